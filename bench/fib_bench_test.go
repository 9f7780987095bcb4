package bench

import (
	"testing"

	"github.com/spindle-go/spindle/pool"
)

// BenchmarkFib times fib(-fibn) with a fork at every level: serial, serial
// with a closure fork's two allocations (closure-floor at K workers: K of
// them at once on K threads, ns/op per fib), the lazy-fork floor
// (FibLazyForkFloor, K copies likewise), forkjoin.Call and pool.Join on pools of 1 and 2 workers, and a goroutine
// per fork (sync.WaitGroup, errgroup, conc) at GOMAXPROCS 1 and 2.
func BenchmarkFib(b *testing.B) {
	n, check := fibInput(b)
	fam := newFamily(b)
	fam.fibSerial(n, check)
	fam.floorCopiesBench("closure-floor", func() func(b *testing.B) {
		sink := new(closureSink) // each copy publishes to a sink of its own
		return func(b *testing.B) {
			if got := fibClosureFloor(n, sink); got != FibExpected(n) {
				b.Errorf("fib(%d) = %d", n, got)
			}
		}
	})
	fam.floorCopiesBench("lazy-fork-floor", func() func(b *testing.B) {
		w := new(fibFloorWorker) // each copy has a worker of its own
		return func(b *testing.B) {
			if got := fibLazyFloor(w, n); got != FibExpected(n) {
				b.Errorf("fib(%d) = %d", n, got)
			}
		}
	})

	spindle := []struct {
		name string
		fib  func(int) int64
	}{
		{"call", FibCall},
		{"join", FibJoin},
	}
	for _, k := range spindle {
		for _, w := range benchWorkers {
			fam.run(k.name, w, func(b *testing.B) {
				var got int64
				onPool(b, w, func(p *pool.Pool) {
					for b.Loop() {
						p.Run(func() { got = k.fib(n) })
					}
				})
				check(b, got)
			})
		}
	}

	goroutines := []struct {
		name string
		fib  func(int) int64
	}{
		{"waitgroup", FibWaitGroup},
		{"errgroup", FibErrgroup},
		{"conc", FibConc},
	}
	for _, k := range goroutines {
		for _, w := range benchWorkers {
			fam.run(k.name, w, func(b *testing.B) {
				var got int64
				withProcs(w, func() {
					for b.Loop() {
						got = k.fib(n)
					}
				})
				check(b, got)
			})
		}
	}
}

// fibInput checks -fibn and returns it with check, which fails the
// benchmark when a result is not fib(n).
func fibInput(b *testing.B) (n int, check func(*testing.B, int64)) {
	n = *fibN
	if n < 0 || n > 40 {
		b.Fatalf("-fibn=%d: want 0 to 40", n)
	}
	want := FibExpected(n)
	return n, func(b *testing.B, got int64) {
		if got != want {
			b.Fatalf("fib(%d) = %d, want %d", n, got, want)
		}
	}
}

// fibSerial runs serial fib(n) as the family's baseline, impl=serial.
func (f *family) fibSerial(n int, check func(*testing.B, int64)) {
	f.serial("serial", func(b *testing.B) {
		var got int64
		for b.Loop() {
			got = FibSerial(n)
		}
		check(b, got)
	})
}
