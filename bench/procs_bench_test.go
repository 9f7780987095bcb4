package bench

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// procsFibN is the fib of the GOMAXPROCS benchmarks: about 3 ms on one
// worker, long enough that a pool's start and a P's hand-off are noise.
const procsFibN = 27

// BenchmarkDefaultPoolFib forks fib(27) at every level (forkjoin.Call)
// on the default pool, called from the benchmark's goroutine. Run it
// with -cpu 1,2 and -cpu 2,1: the default pool follows GOMAXPROCS, so
// each setting takes the same time whichever ran first (a pool sized once
// would run 2 workers on 1 P in one order, 1 worker on 2 Ps in the other).
//
// It loops b.N times rather than with b.Loop: a b.Loop benchmark measures
// in its first call, which the testing package makes before it sets the
// first -cpu value.
func BenchmarkDefaultPoolFib(b *testing.B) {
	for range b.N {
		if got := FibCall(procsFibN); got != FibExpected(procsFibN) {
			b.Fatalf("fib(%d) = %d", procsFibN, got)
		}
	}
	b.ReportMetric(float64(pool.Default().Workers()), "workers")
}

// BenchmarkOversubscribed times fib(27) on a pool of 4 x GOMAXPROCS
// workers (pool.WithWorkers) against the pool sized to GOMAXPROCS, in
// the same run, alternating: ns-sized and ns-4x are each one's median
// time per fib, x-sized their ratio (1 is as fast). A pool runs no more
// workers at once than there are Ps; the rest park.
func BenchmarkOversubscribed(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	sized, err := pool.New()
	if err != nil {
		b.Fatal(err)
	}
	defer sized.Close()
	over, err := pool.New(pool.WithWorkers(4 * procs))
	if err != nil {
		b.Fatal(err)
	}
	defer over.Close()
	run := func(p *pool.Pool) time.Duration {
		t := time.Now()
		var got int64
		p.Run(func() { got = FibCall(procsFibN) })
		if got != FibExpected(procsFibN) {
			b.Fatalf("fib(%d) = %d", procsFibN, got)
		}
		return time.Since(t)
	}
	var ts, to []time.Duration
	for b.Loop() {
		ts = append(ts, run(sized))
		to = append(to, run(over))
	}
	ms, mo := medianDuration(ts), medianDuration(to)
	b.ReportMetric(float64(ms.Nanoseconds()), "ns-sized")
	b.ReportMetric(float64(mo.Nanoseconds()), "ns-4x")
	b.ReportMetric(float64(mo)/float64(ms), "x-sized")
}

// medianDuration returns the median of ds, reordering ds.
func medianDuration(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// manyProcsFibN and manyProcsCutoff are BenchmarkManyProcsFib's fib and
// its goroutine version's cutoff (fib(20), about 30 µs serially: a
// goroutine per fork above it costs a few percent).
const manyProcsFibN, manyProcsCutoff = 32, 20

// BenchmarkManyProcsFib runs fib(32) with forkjoin.Call on the default
// pool, and the same fib with a goroutine per fork above a cutoff
// (serially below it), reporting each one's wall and CPU time per fib
// (cpu-ns/op: the process's, all threads). Run it at -cpu 2,16,64,128 on
// any machine: the default pool follows GOMAXPROCS, so past the CPUs the
// pool's extra workers can only cost, and the goroutines show what Go's
// own scheduler pays at the same settings (docs/performance/many-cores.md
// compares the two slowdowns).
func BenchmarkManyProcsFib(b *testing.B) {
	for _, tc := range []struct {
		name string
		fib  func(int) int64
	}{
		{"call", FibCall},
		{"goroutines", func(n int) int64 { return fibGoCutoff(n, manyProcsCutoff) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cpu0 := processCPUTime()
			for range b.N {
				if got := tc.fib(manyProcsFibN); got != FibExpected(manyProcsFibN) {
					b.Fatalf("fib(%d) = %d", manyProcsFibN, got)
				}
			}
			b.ReportMetric(float64(processCPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// fibGoCutoff is fib(n) with a goroutine per fork from n down to cutoff,
// serial below.
func fibGoCutoff(n, cutoff int) int64 {
	if n < cutoff {
		return FibSerial(n)
	}
	var wg sync.WaitGroup
	var a int64
	wg.Go(func() { a = fibGoCutoff(n-1, cutoff) })
	b := fibGoCutoff(n-2, cutoff)
	wg.Wait()
	return a + b
}
