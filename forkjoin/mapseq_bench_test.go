package forkjoin_test

import (
	"fmt"
	"iter"
	"runtime"
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
// goroutine (consumer=outside); and the ordered pipeline one writes with
// goroutines (impl=goroutines: batches mapped by up to GOMAXPROCS
// goroutines, consumed in order on the benchmark's goroutine).
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
		procs := runtime.GOMAXPROCS(0)
		b.Run(fmt.Sprintf("cost=%s/impl=goroutines/consumer=outside/workers=%d", c.name, procs), func(b *testing.B) {
			// About 30 µs of work per batch: long enough that handing
			// one over costs little next to computing it, as MapSeq's
			// batches are sized.
			batch := max(1, 30000/(c.rounds*13/10))
			var want, got []uint64
			for x := range slices.Values(s) {
				want = append(want, f(x))
			}
			goroutineMapSeq(slices.Values(s), f, batch, procs, func(y uint64) { got = append(got, y) })
			if !slices.Equal(got, want) {
				b.Fatal("the goroutine pipeline's output differs from the serial loop's")
			}
			for b.Loop() {
				goroutineMapSeq(slices.Values(s), f, batch, procs, func(y uint64) { sink += y })
			}
			report(b)
		})
		_ = sink
	}
}

// goroutineMapSeq calls yield(f(x)) for the items of s in order, mapping
// them in batches of batch items on up to procs goroutines at once, with
// at most 2*procs batches in flight: the hand-written ordered pipeline
// that MapSeq replaces.
func goroutineMapSeq(s iter.Seq[uint64], f func(uint64) uint64, batch, procs int, yield func(uint64)) {
	type result struct {
		out  []uint64
		done chan struct{}
	}
	pending := make(chan *result, 2*procs)
	running := make(chan struct{}, procs)
	go func() {
		defer close(pending)
		in := make([]uint64, 0, batch)
		flush := func() {
			items := in
			in = make([]uint64, 0, batch)
			r := &result{done: make(chan struct{})}
			pending <- r // in input order; blocks while 2*procs are in flight
			running <- struct{}{}
			go func() {
				r.out = make([]uint64, len(items))
				for i, x := range items {
					r.out[i] = f(x)
				}
				<-running
				close(r.done)
			}()
		}
		for x := range s {
			if in = append(in, x); len(in) == batch {
				flush()
			}
		}
		if len(in) > 0 {
			flush()
		}
	}()
	for r := range pending {
		<-r.done
		for _, y := range r.out {
			yield(y)
		}
	}
}
