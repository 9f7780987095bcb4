package forkjoin_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/forkjoin"
)

// BenchmarkFold counts 1<<22 keys into a map (100000 distinct keys, so the
// merges of the runs' maps cost something) and into a histogram of 1024
// buckets, serially and with Fold (minimum piece 4096) on 1 and 2 workers.
//
//	go test -run '^$' -bench Fold -count 6 ./forkjoin
func BenchmarkFold(b *testing.B) {
	const n, keys, buckets = 1 << 22, 100_000, 1024
	key := func(i int) uint32 { return uint32(uint64(i) * 2654435761 % keys) }
	type work struct {
		serial func()
		fold   func()
	}
	countInto := func(m map[uint32]int, lo, hi int) map[uint32]int {
		for i := lo; i < hi; i++ {
			m[key(i)]++
		}
		return m
	}
	histInto := func(h []int, lo, hi int) []int {
		for i := lo; i < hi; i++ {
			h[key(i)%buckets]++
		}
		return h
	}
	works := map[string]work{
		"map": {
			serial: func() { countInto(map[uint32]int{}, 0, n) },
			fold: func() {
				forkjoin.Fold(0, n, 4096, func() map[uint32]int { return map[uint32]int{} }, countInto,
					func(a, b map[uint32]int) map[uint32]int {
						for k, v := range b {
							a[k] += v
						}
						return a
					})
			},
		},
		"histogram": {
			serial: func() { histInto(make([]int, buckets), 0, n) },
			fold: func() {
				forkjoin.Fold(0, n, 4096, func() []int { return make([]int, buckets) }, histInto,
					func(a, b []int) []int {
						for i, v := range b {
							a[i] += v
						}
						return a
					})
			},
		},
	}
	for _, name := range []string{"map", "histogram"} {
		w := works[name]
		for _, workers := range []int{1, 2} {
			p := newPool(b, workers)
			for _, impl := range []string{"serial", "fold"} {
				f := w.serial
				if impl == "fold" {
					f = w.fold
				}
				b.Run(fmt.Sprintf("work=%s/impl=%s/workers=%d", name, impl, workers), func(b *testing.B) {
					p.Run(func() {
						for b.Loop() {
							f()
						}
					})
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/index")
				})
			}
		}
	}
}
