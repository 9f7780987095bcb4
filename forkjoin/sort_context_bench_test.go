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

// cancelBenchN is how many indexes the loops cancelled 1 ms in cover.
const cancelBenchN = 10_000_000

// xorshiftAt is the work of index i in the loops cancelled 1 ms in: an
// xorshift's few nanoseconds.
func xorshiftAt(i int) int64 {
	x := uint64(i) | 1
	for range 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return int64(x)
}

// BenchmarkForErrCancel runs ForErr over 10M indexes (a few nanoseconds
// of work each, automatic grain: chunks of at most 16Ki) with a context cancelled 1 ms after the
// start, and reports how long after the cancellation it returned
// (ms-after-cancel, median; max-ms-after-cancel) and the share of the
// indexes it ran (done-share, median): For with a context.
//
//	go test -run '^$' -bench ForErrCancel -benchtime 10x ./forkjoin
func BenchmarkForErrCancel(b *testing.B) {
	out := make([]int64, cancelBenchN)
	benchCancelled(b, func(ctx context.Context, done *atomic.Int64) error {
		return forkjoin.ForErr(ctx, 0, cancelBenchN, 0, func(_ context.Context, lo, hi int) error {
			for i := lo; i < hi; i++ {
				out[i] = xorshiftAt(i)
			}
			done.Add(int64(hi - lo))
			return nil
		})
	})
}

// BenchmarkFoldErrCancel is BenchmarkForErrCancel for FoldErr, summing
// the indexes' values (grain 0): Fold with a context.
//
//	go test -run '^$' -bench FoldErrCancel -benchtime 10x ./forkjoin
func BenchmarkFoldErrCancel(b *testing.B) {
	benchCancelled(b, func(ctx context.Context, done *atomic.Int64) error {
		_, err := forkjoin.FoldErr(ctx, 0, cancelBenchN, 0,
			func() int64 { return 0 },
			func(_ context.Context, acc int64, lo, hi int) (int64, error) {
				for i := lo; i < hi; i++ {
					acc += xorshiftAt(i)
				}
				done.Add(int64(hi - lo))
				return acc, nil
			},
			func(a, b int64) int64 { return a + b })
		return err
	})
}

// benchCancelled runs loop with a context cancelled 1 ms after each
// start and reports ms-after-cancel, max-ms-after-cancel and done-share
// (loop adds the indexes it ran to done) over the iterations where the
// cancellation came before the end.
func benchCancelled(b *testing.B, loop func(ctx context.Context, done *atomic.Int64) error) {
	var after, shares []float64
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		var cancelled time.Time
		timer := time.AfterFunc(time.Millisecond, func() { cancelled = time.Now(); cancel() })
		var done atomic.Int64
		err := loop(ctx, &done)
		returned := time.Now()
		timer.Stop()
		cancel()
		if err == nil {
			continue // the timer ran late, after the loop (its goroutine waits for a P)
		}
		after = append(after, float64(returned.Sub(cancelled))/1e6)
		shares = append(shares, float64(done.Load())/cancelBenchN)
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
