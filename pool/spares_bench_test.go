package pool_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// BenchmarkBlockingFanOut is an errgroup-style I/O fan-out: 500 tasks
// that each block for 2 ms (time.Sleep standing for a request), at most
// 50 in flight, started from outside the pool on 2 workers. The rows:
// a goroutine per task under a semaphore (errgroup's SetLimit), the
// baseline; pool.Group with the task blocking directly (spares make up
// for the blocked workers); the same with each fan-out begun shortly
// after the last; the same inside pool.Block; with spares off (each
// blocked task holds a worker: about 2 in flight); and goroutines and
// the group again beside 2 goroutines that compute (a loaded server:
// the Ps are busy, and blocked tasks must still get spares).
func BenchmarkBlockingFanOut(b *testing.B) {
	const tasks, limit, wait = 500, 50, 2 * time.Millisecond
	goroutines := func(b *testing.B) {
		for range b.N {
			sem := make(chan struct{}, limit)
			var wg sync.WaitGroup
			for range tasks {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-sem; wg.Done() }()
					time.Sleep(wait)
				}()
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/fanout")
	}
	b.Run("goroutines", goroutines)
	group := func(b *testing.B, p *pool.Pool, task func()) {
		for range b.N {
			g, _ := p.NewGroup(context.Background())
			g.SetLimit(limit)
			for range tasks {
				g.Go(func() error { task(); return nil })
			}
			_ = g.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/fanout")
		st := p.Stats()
		b.ReportMetric(float64(st.SparesStarted)/float64(b.N), "spares/fanout")
	}
	b.Run("group", func(b *testing.B) {
		group(b, newPool(b, pool.WithWorkers(2)), func() { time.Sleep(wait) })
	})
	b.Run("group-block", func(b *testing.B) {
		group(b, newPool(b, pool.WithWorkers(2)), func() { pool.Block(func() { time.Sleep(wait) }) })
	})
	b.Run("group-after-idle", func(b *testing.B) {
		// Each fan-out begins 5 ms after the last ended, once the
		// blocked-task monitor has parked: its spares come as soon as the
		// monitor is told of the call (runtime/monitor.go), which a monitor
		// that slept through the call's start would delay
		// (docs/runs/server-history.md). ms/fanout is the fan-out alone.
		p := newPool(b, pool.WithWorkers(2))
		var fanning time.Duration
		for range b.N {
			time.Sleep(5 * time.Millisecond)
			start := time.Now()
			g, _ := p.NewGroup(context.Background())
			g.SetLimit(limit)
			for range tasks {
				g.Go(func() error { time.Sleep(wait); return nil })
			}
			_ = g.Wait()
			fanning += time.Since(start)
		}
		b.ReportMetric(fanning.Seconds()*1e3/float64(b.N), "ms/fanout")
	})
	b.Run("group-nospares", func(b *testing.B) {
		group(b, newPool(b, pool.WithWorkers(2), pool.WithSpares(0)), func() { time.Sleep(wait) })
	})
	b.Run("goroutines-beside-2", func(b *testing.B) {
		defer testutil.ComputeBeside(2)()
		goroutines(b)
	})
	b.Run("group-beside-2", func(b *testing.B) {
		p := newPool(b, pool.WithWorkers(2))
		defer testutil.ComputeBeside(2)()
		group(b, p, func() { time.Sleep(wait) })
	})
}

// BenchmarkSparesWhileComputing counts the spares a computation starts,
// which should be none: fib(24) forked with pool.Join (two closures
// allocated per fork) and a loop whose chunks allocate, on two workers.
// A goroutine that helps the garbage collector may wait for it off its
// CPU, which the monitor can take for a blocked task; spares/op is how
// often it did.
func BenchmarkSparesWhileComputing(b *testing.B) {
	p := newPool(b, pool.WithWorkers(2))
	out := make([][]int, 1<<12)
	for range b.N {
		p.Run(func() { fib(24) })
		computeRound(p)
		p.Run(func() {
			forkjoin.For(0, len(out), 1, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					out[i] = make([]int, 64)
				}
			})
		})
	}
	b.ReportMetric(float64(p.Stats().SparesStarted)/float64(b.N), "spares/op")
}

// BenchmarkWaitersUnderLoad: two tasks on a pool of two wait on a channel
// that a third, queued behind them, closes, beside 0, 3 and 8 goroutines
// that compute (a loaded server's handlers), at GOMAXPROCS 2; ms/op is
// the time from the first Spawn until all three returned. The third runs
// once a spare starts for a blocked worker; with goroutines it would run
// at once.
func BenchmarkWaitersUnderLoad(b *testing.B) {
	for _, load := range []int{0, 3, 8} {
		b.Run(fmt.Sprintf("beside-%d", load), func(b *testing.B) {
			testutil.WithProcs(b, 2)
			p := newPool(b, pool.WithWorkers(2))
			defer testutil.ComputeBeside(load)()
			for range b.N {
				ch := make(chan struct{})
				var done sync.WaitGroup
				done.Add(3)
				p.Spawn(func() { defer done.Done(); <-ch })
				p.Spawn(func() { defer done.Done(); <-ch })
				p.Spawn(func() { defer done.Done(); close(ch) })
				done.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/op")
		})
	}
}
