package pool_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// BenchmarkScopeContextCancel runs a ScopeContext of 100k tasks of about
// a microsecond each on the default pool, called from the benchmark's
// goroutine, spawned in each of the ways of contextSpawns, cancels its
// context 1 ms after the start, and reports how long after the
// cancellation ScopeContext returned (ms-after-cancel, the median over
// the iterations; max-ms-after-cancel) and the share of the tasks that
// ran (ran-share, median).
//
//	go test -run '^$' -bench ScopeContextCancel -benchtime 5x ./pool
func BenchmarkScopeContextCancel(b *testing.B) {
	p := pool.Default()
	for _, sc := range contextSpawns {
		b.Run(sc.name, func(b *testing.B) {
			var after, shares []float64
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				var cancelled atomic.Int64 // time.Now().UnixNano() just before the cancel
				timer := time.AfterFunc(time.Millisecond, func() { cancelled.Store(time.Now().UnixNano()); cancel() })
				var ran, sink atomic.Int64
				err := p.ScopeContext(ctx, func(s *pool.Scope) {
					sc.spawn(s, contextTasks, func(*pool.Scope) {
						ran.Add(1)
						sink.Add(int64(testutil.Burn(1000)))
					})
				})
				returned := time.Now().UnixNano()
				timer.Stop()
				cancel()
				if err == nil {
					continue // the timer ran late, after the last task started
				}
				after = append(after, float64(returned-cancelled.Load())/1e6)
				shares = append(shares, float64(ran.Load())/contextTasks)
			}
			if len(after) == 0 {
				b.Skip("every cancellation came after the last task started")
			}
			slices.Sort(after)
			slices.Sort(shares)
			b.ReportMetric(after[len(after)/2], "ms-after-cancel")
			b.ReportMetric(after[len(after)-1], "max-ms-after-cancel")
			b.ReportMetric(shares[len(shares)/2], "ran-share")
		})
	}
}
