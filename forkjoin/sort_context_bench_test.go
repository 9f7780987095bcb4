package forkjoin_test

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// BenchmarkSortContextCancel sorts 10M random int64s with each sort that
// takes a context, cancelling it 1 ms after the start, and reports how
// long after the cancellation the sort returned (ms-after-cancel, the
// median over the iterations) on the default pool called from the
// benchmark's goroutine.
//
//	go test -run '^$' -bench SortContextCancel -benchtime 10x ./forkjoin
func BenchmarkSortContextCancel(b *testing.B) {
	const n = 10_000_000
	in := make([]int64, n)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range in {
		in[i] = r.Int64()
	}
	s := make([]int64, n)
	for _, sc := range sortsWithContext {
		b.Run(sc.name, func(b *testing.B) {
			var after []float64
			for b.Loop() {
				copy(s, in)
				ctx, cancel := context.WithCancel(context.Background())
				var cancelled time.Time
				timer := time.AfterFunc(time.Millisecond, func() { cancelled = time.Now(); cancel() })
				err := sc.sort(ctx, s, cmp.Compare[int64])
				returned := time.Now()
				timer.Stop()
				cancel()
				if err == nil {
					b.Fatal("the sort finished within 1 ms")
				}
				after = append(after, float64(returned.Sub(cancelled))/1e6)
			}
			slices.Sort(after)
			b.ReportMetric(after[len(after)/2], "ms-after-cancel")
			b.ReportMetric(after[len(after)-1], "max-ms-after-cancel")
		})
	}
}
