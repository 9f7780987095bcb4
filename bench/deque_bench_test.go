package bench

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/internal/experiment"
	"github.com/spindle-go/spindle/pool"
)

// BenchmarkDequeKinds runs the fib and quicksort workloads (forkjoin.Call
// and forkjoin.Do) on pools built with every deque kind (experiment.WithDeque),
// at 1 and 2 workers, like the BWoS thesis's application benchmarks. The
// default kind publishes lazily; every other kind publishes each fork,
// chaselev-eager being the same deque with eager publication. Compare the
// kinds with benchstat; -fibn and -qsn size the workloads.
func BenchmarkDequeKinds(b *testing.B) {
	n, check := fibInput(b)
	s, cut, loop := quicksortInput(b)
	for _, kind := range experiment.DequeKinds() {
		for _, w := range benchWorkers {
			b.Run(fmt.Sprintf("kind=%v/workload=fib/workers=%d", kind, w), func(b *testing.B) {
				b.ReportAllocs()
				var got int64
				onPool(b, w, func(p *pool.Pool) {
					for b.Loop() {
						p.Run(func() { got = FibCall(n) })
					}
				}, experiment.WithDeque(kind))
				check(b, got)
			})
			b.Run(fmt.Sprintf("kind=%v/workload=quicksort/workers=%d", kind, w), func(b *testing.B) {
				onPool(b, w, func(p *pool.Pool) {
					loop(b, func() { p.Run(func() { QuicksortDo(s, cut) }) })
				}, experiment.WithDeque(kind))
			})
		}
	}
}
