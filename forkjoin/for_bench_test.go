package forkjoin_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/xorshift"
)

// BenchmarkFor compares For (a bulk spawn of its chunks) with the
// recursive halving it replaced, on a loop of 1<<20 cheap, uniform
// iterations and one whose cost grows with the index (the last chunks
// cost far more than the first), with the automatic grain and with grain
// 1024, on 1 and 2 workers.
//
//	go test -run '^$' -bench For -count 6 ./forkjoin
func BenchmarkFor(b *testing.B) {
	const n = 1 << 20
	out := make([]uint64, n)
	bodies := map[string]func(lo, hi int){
		"uniform": func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = uint64(i) * uint64(i)
			}
		},
		"growing": func(lo, hi int) {
			for i := lo; i < hi; i++ {
				x := uint64(i) | 1
				for range i >> 16 { // 0 to 15 rounds
					xorshift.Next(&x)
				}
				out[i] = x
			}
		},
	}
	impls := []struct {
		name string
		f    func(lo, hi, grain int, body func(lo, hi int))
	}{{"bulk", forkjoin.For}, {"halving", forkjoin.ForHalving}}
	for _, work := range []string{"uniform", "growing"} {
		for _, grain := range []int{0, 1024} {
			for _, workers := range []int{1, 2} {
				p := newPool(b, workers)
				for _, impl := range impls {
					name := fmt.Sprintf("work=%s/grain=%d/impl=%s/workers=%d", work, grain, impl.name, workers)
					b.Run(name, func(b *testing.B) {
						p.Run(func() {
							for b.Loop() {
								impl.f(0, n, grain, bodies[work])
							}
						})
					})
				}
			}
		}
	}
}
