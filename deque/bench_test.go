package deque

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPushPop times one Push and one Pop by the owner with no thieves:
// the fast path of a fork that nobody steals. Zero allocations per op.
// publish=seqcst is the default deque, publish=release one switched to
// release pushes (PublishWithRelease; seq-cst where the platform does not
// grant them).
func BenchmarkPushPop(b *testing.B) {
	for _, release := range []bool{false, true} {
		name := "publish=seqcst"
		if release {
			name = "publish=release"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			d := NewChaseLev[int](64)
			if release {
				d.PublishWithRelease()
			}
			x := new(int)
			for b.Loop() {
				d.Push(x)
				if d.Pop() == nil {
					b.Fatal("Pop of a just-pushed item returned nil")
				}
			}
		})
	}
}

// BenchmarkSteal times one uncontended, successful Steal. The deque is
// refilled outside the timer whenever a batch has been stolen.
func BenchmarkSteal(b *testing.B) {
	b.ReportAllocs()
	const batch = 1 << 16
	d := NewChaseLev[int](batch)
	x := new(int)
	refill := func() {
		for range batch {
			d.Push(x)
		}
	}
	refill()
	left := batch
	for b.Loop() {
		if left == 0 {
			b.StopTimer()
			refill()
			left = batch
			b.StartTimer()
		}
		if _, res := d.Steal(); res != Success {
			b.Fatalf("Steal from a non-empty deque: %v", res)
		}
		left--
	}
}

// stealPeriod is each benchmark thief's pace: one Steal attempt per period.
const stealPeriod = time.Microsecond

// pacedThief calls d.Steal once per period until stop is set, busy-waiting
// in between on the monotonic clock (time.Since reads it through the vDSO
// in tens of nanoseconds, fine-grained enough for a 1 µs period). After a
// stall (say it was descheduled) it resumes the pace instead of bursting
// to catch up.
func pacedThief(d *ChaseLev[int], stop *atomic.Bool, attempts, steals *atomic.Int64, period time.Duration) {
	start := time.Now()
	next := time.Duration(0)
	for !stop.Load() {
		now := time.Since(start)
		if now < next {
			continue
		}
		if _, res := d.Steal(); res == Success {
			steals.Add(1)
		}
		attempts.Add(1)
		next += period
		if now-next > 100*period {
			next = now + period
		}
	}
}

// BenchmarkOwnerThroughput times the owner's Push+Pop pair while 0, 1 or 3
// thieves steal from the same deque at a fixed pace. The owner keeps a
// reserve of items at the top end for them, topping it up (one Push per
// stolen item, inside the timed loop: a work-stealing owner pays for every
// item it loses) whenever a check every 64 ops finds it below half, so its
// own Pop does not race for the last item. What the thieves cost it is
// cache traffic on top (their CASes) and bottom (their loads), and, with
// more goroutines than cores, CPU time. The reserve is large (64Ki items,
// over 20 ms of stealing for three thieves at the pace, two Go scheduling
// quanta) so that thieves running while the owner is descheduled do not
// empty it. Besides ns/op it reports the thieves'
// successful steals and attempts per second; attempts that were not
// steals saw Empty or Retry.
func BenchmarkOwnerThroughput(b *testing.B) {
	for _, thieves := range []int{0, 1, 3} {
		b.Run(fmt.Sprintf("thieves=%d", thieves), func(b *testing.B) {
			b.ReportAllocs()
			const reserve = 1 << 16
			d := NewChaseLev[int](2 * reserve)
			x := new(int)
			for range reserve {
				d.Push(x)
			}
			var stop atomic.Bool
			var attempts, steals atomic.Int64
			var wg sync.WaitGroup
			for range thieves {
				wg.Go(func() { pacedThief(d, &stop, &attempts, &steals, stealPeriod) })
			}

			steals0, attempts0 := steals.Load(), attempts.Load()
			ops := 0
			for b.Loop() {
				d.Push(x)
				// If the owner was descheduled long enough for the
				// thieves to drain the reserve, they may also take
				// this item and Pop returns nil; that is legal.
				d.Pop()
				ops++
				if ops&63 == 0 && d.Len() < reserve/2 {
					for d.Len() < reserve {
						d.Push(x)
					}
				}
			}
			stolen, tried := steals.Load()-steals0, attempts.Load()-attempts0
			elapsed := b.Elapsed().Seconds()
			stop.Store(true)
			wg.Wait()
			b.ReportMetric(float64(stolen)/elapsed, "steals/s")
			b.ReportMetric(float64(tried)/elapsed, "attempts/s")
		})
	}
}
