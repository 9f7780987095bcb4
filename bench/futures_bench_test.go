package bench

import (
	"testing"

	"github.com/spindle-go/spindle/pool"
)

// BenchmarkFibFutures times fib(-fibn) with a fork at every level through
// futures, against the textbook central-queue ThreadPool: serial, the
// ThreadPool (Submit and a helping Wait), spindle's pool.Submit and
// Future.Wait, pool.Join and forkjoin.Call, on 1 and 2 workers. docs/bench-notes.md
// quotes a run at -fibn=30.
func BenchmarkFibFutures(b *testing.B) {
	n, check := fibInput(b)
	fam := newFamily(b)
	fam.serial("serial", func(b *testing.B) {
		var got int64
		for b.Loop() {
			got = FibSerial(n)
		}
		check(b, got)
	})
	for _, w := range benchWorkers {
		fam.run("threadpool", w, func(b *testing.B) {
			tp := NewThreadPool(w)
			defer tp.Close()
			var got int64
			for b.Loop() {
				tp.Run(func() { got = FibThreadPool(tp, n) })
			}
			check(b, got)
		})
	}
	spindle := []struct {
		name string
		fib  func(p *pool.Pool, n int) int64
	}{
		{"submit", FibSubmit},
		{"join", func(_ *pool.Pool, n int) int64 { return FibJoin(n) }},
		{"call", func(_ *pool.Pool, n int) int64 { return FibCall(n) }},
	}
	for _, k := range spindle {
		for _, w := range benchWorkers {
			fam.run(k.name, w, func(b *testing.B) {
				var got int64
				onPool(b, w, func(p *pool.Pool) {
					for b.Loop() {
						p.Run(func() { got = k.fib(p, n) })
					}
				})
				check(b, got)
			})
		}
	}
}

// BenchmarkQuicksortFutures is BenchmarkQuicksort's workload (-qsn,
// -cutoff) with the same contenders as BenchmarkFibFutures: the left half
// of every partition submitted, the right half sorted by the submitter,
// then a wait (forkjoin.Do and pool.Join fork both halves the same way).
func BenchmarkQuicksortFutures(b *testing.B) {
	s, cut, loop := quicksortInput(b)
	fam := newFamily(b)

	fam.serial("serial", func(b *testing.B) {
		loop(b, func() { QuicksortSerial(s, cut) })
	})
	for _, w := range benchWorkers {
		fam.run("threadpool", w, func(b *testing.B) {
			tp := NewThreadPool(w)
			defer tp.Close()
			loop(b, func() { tp.Run(func() { QuicksortThreadPool(tp, s, cut) }) })
		})
	}
	spindle := []struct {
		name string
		sort func(p *pool.Pool, s []int64, cutoff int)
	}{
		{"submit", QuicksortSubmit},
		{"join", func(_ *pool.Pool, s []int64, cutoff int) { QuicksortJoin(s, cutoff) }},
		{"do", func(_ *pool.Pool, s []int64, cutoff int) { QuicksortDo(s, cutoff) }},
	}
	for _, k := range spindle {
		for _, w := range benchWorkers {
			fam.run(k.name, w, func(b *testing.B) {
				onPool(b, w, func(p *pool.Pool) {
					loop(b, func() { p.Run(func() { k.sort(p, s, cut) }) })
				})
			})
		}
	}
}
