package runtime

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
)

// A snapshot taken while workers steal, sleep and wake still adds up: its
// totals are the sums of the per-worker counts beside it.
func TestStatsAddUpWhileWorkersRun(t *testing.T) {
	r := newRegistry(t, Config{Workers: 3})
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // short bursts with pauses: workers steal, sleep and are woken
		defer wg.Done()
		for !stop.Load() {
			submit(r, func() int {
				var a, b int
				join(func() { a = 1 }, func() { b = 2 })
				return a + b
			})
			time.Sleep(20 * time.Microsecond)
		}
	}()
	watchdog(t, func() {
		defer wg.Wait()
		defer stop.Store(true)
		var mismatched, changed int
		var last Counts
		// A second of snapshots, longer if the submitter has not run yet
		// (on a loaded machine, at many Ps).
		start := time.Now()
		for changed < 1000 && (time.Since(start) < time.Second || changed == 0 && time.Since(start) < testutil.Limit/2) {
			c := r.Counts()
			require.Len(t, c.Workers, 3)
			var sum WorkerStats
			for i := range c.Workers {
				sum.add(&c.Workers[i])
			}
			if sum != c.Total {
				mismatched++
			}
			if c.Total.Sleeps != last.Total.Sleeps || c.Total.Wakeups != last.Total.Wakeups {
				changed++
			}
			last = c
		}
		assert.Zero(t, mismatched, "snapshots whose totals are not the sums of the per-worker counts (of %d that saw sleeps or wake-ups change)", changed)
		assert.NotZero(t, changed, "the workers never slept or woke while the test looked")
	})
}
