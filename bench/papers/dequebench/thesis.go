package main

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/spindle-go/spindle/deque"
)

// ownerResult is what the owner goroutine counted.
type ownerResult struct {
	pushes, pops, fulls, rounds int64
	push, pop                   *sampler
	sink                        int
}

// stealerResult is what one stealer counted.
type stealerResult struct {
	steals, empties, retries int64
	steal                    *sampler
	sink                     int
}

// thesisResult is one deque's row.
type thesisResult struct {
	name      string
	elapsed   time.Duration
	owner     ownerResult
	stealers  []stealerResult
	remaining int
	drained   int
}

func (r *thesisResult) steals() (steals, empties, retries int64) {
	for _, s := range r.stealers {
		steals += s.steals
		empties += s.empties
		retries += s.retries
	}
	return
}

// consistent reports whether every pushed item is accounted for exactly
// once: popped, stolen or still in the deque (and Len agreed with what was
// drained afterwards).
func (r *thesisResult) consistent() bool {
	steals, _, _ := r.steals()
	return r.owner.pushes == r.owner.pops+steals+int64(r.remaining) && r.remaining == r.drained
}

// runThesis measures every configured deque in turn and prints the table
// and the consistency lines. It returns 1 if a check failed.
func runThesis(cfg config, w io.Writer) int {
	overhead := clockOverhead()
	fmt.Fprintf(w, "owner fills to %d items then drains; %d stealer(s) at %s; BWoS %dx%d, Bulk segments of %d; payload %d B; %v per deque\n",
		cfg.capacity, cfg.stealers, freqString(cfg.freq), cfg.blocks, cfg.blockSize, cfg.blockSize,
		cfg.payload, cfg.duration)
	fmt.Fprintf(w, "latencies: one call in %d timed, minus the clock's median overhead of %.0f ns\n\n", sampleEvery, overhead)

	var results []*thesisResult
	for _, name := range cfg.variants {
		results = append(results, measure(name, cfg))
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\towner Mops/s\tsteal Mops/s\ttotal Mops/s\towner ns/op\tpush p50\tp99\tpop p50\tp99\tsteal p50\tp99\tsteals\tEmpty\tRetry\tfull\t")
	for _, r := range results {
		secs := r.elapsed.Seconds()
		steals, empties, retries := r.steals()
		ownerOps := r.owner.pushes + r.owner.pops
		var ss []*sampler
		for _, s := range r.stealers {
			ss = append(ss, s.steal)
		}
		push := summarize(overhead, r.owner.push)
		pop := summarize(overhead, r.owner.pop)
		steal := summarize(overhead, ss...)
		fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%.1f\t%.2f\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%s\t%d\t%d\t%d\t%d\t\n",
			r.name, float64(ownerOps)/secs/1e6, float64(steals)/secs/1e6, float64(ownerOps+steals)/secs/1e6,
			float64(r.elapsed.Nanoseconds())/float64(max(ownerOps, 1)),
			push.p50, push.p99, pop.p50, pop.p99, ns(steal.p50, steal.n), ns(steal.p99, steal.n),
			steals, empties, retries, r.owner.fulls)
	}
	tw.Flush()
	fmt.Fprintln(w)

	status := 0
	for _, r := range results {
		steals, _, _ := r.steals()
		verdict := "ok"
		if !r.consistent() {
			verdict = "VIOLATED"
			status = 1
		}
		fmt.Fprintf(w, "consistency %s: pushes %d = pops %d + steals %d + remaining %d (drained %d): %s\n",
			r.name, r.owner.pushes, r.owner.pops, steals, r.remaining, r.drained, verdict)
	}
	return status
}

func freqString(f float64) string {
	if f == 0 {
		return "full speed"
	}
	return fmt.Sprintf("%g attempts/s each", f)
}

// ns formats a latency, or "-" if nothing was sampled.
func ns(v float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

// measure runs the owner and the stealers on a new deque of the named
// variant for cfg.duration.
func measure(name string, cfg config) *thesisResult {
	d := newDeque(name, cfg)
	// The owner cycles through a pool of items, more than a fill holds,
	// so that successive fills push different items at a given index.
	pool := newItems(cfg.capacity+cfg.capacity/2+7, cfg.payload)
	r := &thesisResult{name: name, stealers: make([]stealerResult, cfg.stealers)}

	var stop atomic.Bool
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(1 + cfg.stealers)
	done.Add(1 + cfg.stealers)
	go func() {
		defer done.Done()
		ready.Done()
		<-start
		r.owner = runOwner(d, pool, cfg.capacity, &stop)
	}()
	for i := range r.stealers {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			r.stealers[i] = runStealer(d, cfg.freq, uint64(i)+2, &stop)
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	time.Sleep(cfg.duration)
	stop.Store(true)
	r.elapsed = time.Since(t0)
	done.Wait()

	// Everyone has stopped; done.Wait synchronizes with them, so even
	// BWoS's owner-only Len is safe here. The sinks keep consume's reads
	// from being optimized away.
	sink := r.owner.sink
	for _, s := range r.stealers {
		sink += s.sink
	}
	runtime.KeepAlive(sink)
	r.remaining = d.Len()
	for d.Pop() != nil {
		r.drained++
	}
	return r
}

// runOwner fills d to capacity (or until full) and drains it, over and over,
// until stop is set, and at least once: on a loaded machine the stealers,
// spinning, can keep the owner off the CPU for a whole short run (the
// bench module's race tests, 30 ms per deque, once saw an owner that
// pushed nothing).
func runOwner(d deque.Deque[item], pool []*item, capacity int, stop *atomic.Bool) ownerResult {
	res := ownerResult{push: newSampler(0x9e3779b9), pop: newSampler(0x7f4a7c15)}
	next := 0
	for first := true; first || !stop.Load(); first = false {
		res.rounds++
		for k := 0; k < capacity; k++ {
			it := pool[next]
			var ok bool
			if res.push.due() {
				t0 := time.Now()
				ok = d.TryPush(it)
				res.push.add(time.Since(t0))
			} else {
				ok = d.TryPush(it)
			}
			if !ok {
				res.fulls++
				break
			}
			res.pushes++
			if next++; next == len(pool) {
				next = 0
			}
			if k&1023 == 1023 && stop.Load() {
				break
			}
		}
		for n := 0; ; n++ {
			var v *item
			if res.pop.due() {
				t0 := time.Now()
				v = d.Pop()
				res.pop.add(time.Since(t0))
			} else {
				v = d.Pop()
			}
			if v == nil {
				break
			}
			res.pops++
			res.sink += consume(v)
			if n&1023 == 1023 && stop.Load() {
				break
			}
		}
	}
	return res
}

// runStealer steals from d until stop is set, at freq attempts per second
// (0: back to back). Pacing busy-waits on the monotonic clock and, after a
// stall, resumes the pace instead of bursting to catch up.
func runStealer(d deque.Deque[item], freq float64, seed uint64, stop *atomic.Bool) stealerResult {
	res := stealerResult{steal: newSampler(seed)}
	var period time.Duration
	if freq > 0 {
		period = time.Duration(float64(time.Second) / freq)
	}
	start := time.Now()
	next := time.Duration(0)
	for !stop.Load() {
		if period > 0 {
			now := time.Since(start)
			if now < next {
				continue
			}
			next += period
			if now-next > 100*period {
				next = now + period
			}
		}
		var v *item
		var r deque.StealResult
		timed := res.steal.due()
		var t0 time.Time
		if timed {
			t0 = time.Now()
		}
		v, r = d.Steal()
		if timed && r == deque.Success {
			res.steal.add(time.Since(t0))
		}
		switch r {
		case deque.Success:
			res.steals++
			res.sink += consume(v)
		case deque.Empty:
			res.empties++
		case deque.Retry:
			res.retries++
		}
	}
	return res
}
