package forkjoin_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/xorshift"
	"github.com/spindle-go/spindle/pool"
)

// spin costs about rounds * 1.3 ns: a chain of dependent xorshift steps.
func spin(x uint64, rounds int) uint64 {
	x |= 1
	for range rounds {
		xorshift.Next(&x)
	}
	return x
}

// BenchmarkMapSeq maps items of slices.Values with f costing about 20 ns
// (cost=cheap) or 1 µs (cost=1us): the serial range loop, then MapSeq on
// 1 and 2 workers with the consumer on a worker (consumer=worker, inside
// Pool.Run), and on pool.Default() with the consumer on the benchmark's
// goroutine (consumer=outside).
// ns/item is per item of the input.
//
//	go test -run '^$' -bench MapSeq -count 6 ./forkjoin
func BenchmarkMapSeq(b *testing.B) {
	costs := []struct {
		name   string
		rounds int
		n      int
	}{{"cheap", 15, 1 << 19}, {"1us", 770, 1 << 14}}
	for _, c := range costs {
		s := seqItems(c.n)
		f := func(x uint64) uint64 { return spin(x, c.rounds) }
		var sink uint64
		report := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.n), "ns/item")
		}
		b.Run(fmt.Sprintf("cost=%s/impl=serial", c.name), func(b *testing.B) {
			for b.Loop() {
				for x := range slices.Values(s) {
					sink += f(x)
				}
			}
			report(b)
		})
		mapAll := func() {
			for y := range forkjoin.MapSeq(slices.Values(s), f) {
				sink += y
			}
		}
		for _, workers := range []int{1, 2} {
			p := newPool(b, workers)
			b.Run(fmt.Sprintf("cost=%s/impl=mapseq/consumer=worker/workers=%d", c.name, workers), func(b *testing.B) {
				p.Run(func() {
					for b.Loop() {
						mapAll()
					}
				})
				report(b)
			})
		}
		b.Run(fmt.Sprintf("cost=%s/impl=mapseq/consumer=outside/workers=%d", c.name, pool.Default().Workers()), func(b *testing.B) {
			for b.Loop() {
				mapAll()
			}
			report(b)
		})
		_ = sink
	}
}
