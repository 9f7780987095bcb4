package forkjoin_test

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
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
					continue // the timer ran late, after the sort (its goroutine waits for a P)
				}
				after = append(after, float64(returned.Sub(cancelled))/1e6)
			}
			if len(after) == 0 {
				b.Skip("every cancellation came after the sort")
			}
			slices.Sort(after)
			b.ReportMetric(after[len(after)/2], "ms-after-cancel")
			b.ReportMetric(after[len(after)-1], "max-ms-after-cancel")
		})
	}
}

// BenchmarkForErrCancel runs ForErr over 10M indexes (a few nanoseconds
// of work each, automatic grain: 8 chunks per worker) with a context cancelled 1 ms after the
// start, and reports how long after the cancellation it returned
// (ms-after-cancel, median; max-ms-after-cancel) and the share of the
// indexes it ran (done-share, median): For with a context.
//
//	go test -run '^$' -bench ForErrCancel -benchtime 10x ./forkjoin
func BenchmarkForErrCancel(b *testing.B) {
	const n = 10_000_000
	out := make([]int64, n)
	var after, shares []float64
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		var cancelled time.Time
		timer := time.AfterFunc(time.Millisecond, func() { cancelled = time.Now(); cancel() })
		var done atomic.Int64
		err := forkjoin.ForErr(ctx, 0, n, 0, func(_ context.Context, lo, hi int) error {
			for i := lo; i < hi; i++ {
				x := uint64(i) | 1
				for range 8 { // an xorshift's few nanoseconds
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
				out[i] = int64(x)
			}
			done.Add(int64(hi - lo))
			return nil
		})
		returned := time.Now()
		timer.Stop()
		cancel()
		if err == nil {
			continue // the timer ran late, after the loop (its goroutine waits for a P)
		}
		after = append(after, float64(returned.Sub(cancelled))/1e6)
		shares = append(shares, float64(done.Load())/n)
	}
	if len(after) == 0 {
		b.Skip("every cancellation came after the loop")
	}
	slices.Sort(after)
	slices.Sort(shares)
	b.ReportMetric(after[len(after)/2], "ms-after-cancel")
	b.ReportMetric(after[len(after)-1], "max-ms-after-cancel")
	b.ReportMetric(shares[len(shares)/2], "done-share")
}
