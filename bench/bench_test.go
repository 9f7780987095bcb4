package bench

import (
	"flag"
	"fmt"
	"runtime"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

// Sizes of the benchmarks' workloads. Pass them after the package:
//
//	go test -run '^$' -bench Quicksort ./bench -qsn=10000000
var (
	fibN   = flag.Int("fibn", 25, "BenchmarkFib: compute fib(fibn)")
	qsN    = flag.Int("qsn", 1<<20, "BenchmarkQuicksort: number of int64 to sort (the peers use 10000000)")
	sortN  = flag.Int("sortn", 1<<20, "BenchmarkSort: number of int64 to sort")
	cutoff = flag.Int("cutoff", DefaultCutoff, "BenchmarkQuicksort: insertion sort below this length (>= 3)")
)

// benchWorkers are the parallelisms every family is measured at.
var benchWorkers = []int{1, 2}

// family runs the sub-benchmarks of one benchmark and reports, for each,
// its time per op over that of the family's serial sub-benchmark, which
// must run first, as the "x-serial" metric. When a -bench pattern leaves
// the serial sub-benchmark out, x-serial is not reported.
type family struct {
	b        *testing.B
	serialNs float64
}

func newFamily(b *testing.B) *family { return &family{b: b} }

// nsPerOp is the time per iteration of a benchmark whose loop has ended.
func nsPerOp(b *testing.B) float64 {
	if b.N == 0 {
		return 0
	}
	return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
}

// serial runs the baseline as impl=NAME/workers=1.
func (f *family) serial(impl string, body func(b *testing.B)) {
	f.b.Run("impl="+impl+"/workers=1", func(b *testing.B) {
		b.ReportAllocs()
		body(b)
		f.serialNs = nsPerOp(b)
		b.ReportMetric(1, "x-serial")
	})
}

// run runs one sub-benchmark named impl=NAME/workers=K.
func (f *family) run(impl string, workers int, body func(b *testing.B)) {
	f.b.Run(fmt.Sprintf("impl=%s/workers=%d", impl, workers), func(b *testing.B) {
		b.ReportAllocs()
		body(b)
		if f.serialNs > 0 {
			b.ReportMetric(nsPerOp(b)/f.serialNs, "x-serial")
		}
	})
}

// floorCopiesBench runs a floor kernel as impl=NAME/workers=K for every K
// of benchWorkers: K goroutines, each locked to its thread, run copies at
// once (newCopy gives each its own), so ns/op, the time over the copies
// run, is a copy's time at K threads divided by K: the time of one run
// split perfectly over K threads (FibClosureFloorP, UTSClosureFloorP,
// FibLazyForkFloorP).
func (f *family) floorCopiesBench(impl string, newCopy func() func(b *testing.B)) {
	for _, w := range benchWorkers {
		f.run(impl, w, func(b *testing.B) {
			withProcs(w, func() {
				b.RunParallel(func(pb *testing.PB) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					copyOnce := newCopy()
					for pb.Next() {
						copyOnce(b)
					}
				})
			})
		})
	}
}

// onPool runs body with a pool of the given number of workers (and
// options), which it closes afterwards.
func onPool(b *testing.B, workers int, body func(p *pool.Pool), opts ...pool.Option) {
	p, err := pool.New(append([]pool.Option{pool.WithWorkers(workers)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := p.Close(); err != nil {
			b.Error(err)
		}
	}()
	body(p)
}

// withProcs runs body with GOMAXPROCS set to procs, then restores it.
func withProcs(procs int, body func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	body()
}
