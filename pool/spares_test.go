package pool_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// sparesLimit bounds the tests of compensation: each finishes in well
// under a second when spares start; without them the tasks that wait for
// one another never finish.
const sparesLimit = 30 * time.Second

// Tasks that meet at a barrier, more of them than the pool has workers,
// each waiting directly (no Block): the pool must start spares until all
// have arrived. Every way of starting tasks.
func TestTasksMeetingAtABarrierAllArrive(t *testing.T) {
	needSpares(t)
	const tasks = 16
	starts := []struct {
		name  string
		start func(p *pool.Pool, task func())
	}{
		{"Group.Go", func(p *pool.Pool, task func()) {
			g, _ := p.NewGroup(context.Background())
			for range tasks {
				g.Go(func() error { task(); return nil })
			}
			require.NoError(t, g.Wait())
		}},
		{"Scope.Spawn", func(p *pool.Pool, task func()) {
			p.Scope(func(s *pool.Scope) {
				for range tasks {
					s.Spawn(func(*pool.Scope) { task() })
				}
			})
		}},
		{"pool.Spawn", func(p *pool.Pool, task func()) {
			var done sync.WaitGroup
			done.Add(tasks)
			p.Run(func() {
				for range tasks {
					pool.Spawn(func() { task(); done.Done() })
				}
			})
			done.Wait()
		}},
	}
	for _, st := range starts {
		t.Run(st.name, func(t *testing.T) {
			p := newPool(t, pool.WithWorkers(2))
			testutil.Watchdog(t, sparesLimit, func() {
				for range 5 {
					var arrived sync.WaitGroup
					var passed atomic.Int32
					arrived.Add(tasks)
					st.start(p, func() {
						arrived.Done()
						arrived.Wait()
						passed.Add(1)
					})
					assert.EqualValues(t, tasks, passed.Load())
				}
			})
			s := p.Stats()
			assert.GreaterOrEqual(t, s.SparesStarted, uint64(tasks-2), "%v", s)
			assert.LessOrEqual(t, len(s.PerWorker), p.MaxWorkers())
		})
	}
}

// A producer and consumers over an unbuffered channel, started inside a
// pool task (errgroup's MD5All pipeline shape): the producer blocks on
// every send until a consumer, a queued task, runs.
func TestAPipelineStartedInsideATaskCompletes(t *testing.T) {
	needSpares(t)
	for _, workers := range []int{1, 2} {
		p := newPool(t, pool.WithWorkers(workers))
		testutil.Watchdog(t, sparesLimit, func() {
			const items, consumers = 200, 4
			var sum atomic.Int64
			p.Run(func() {
				g, _ := pool.NewGroup(context.Background())
				ch := make(chan int)
				g.Go(func() error {
					defer close(ch)
					for i := range items {
						ch <- i
					}
					return nil
				})
				for range consumers {
					g.Go(func() error {
						for v := range ch {
							sum.Add(int64(v))
						}
						return nil
					})
				}
				require.NoError(t, g.Wait())
			})
			assert.EqualValues(t, items*(items-1)/2, sum.Load())
		})
	}
}

// The bound holds: with WithSpares(k), at most k spares run at once, and
// tasks still waiting for one another beyond the bound wait for those
// that block to resume.
func TestSparesStayWithinTheBound(t *testing.T) {
	needSpares(t)
	p := newPool(t, pool.WithWorkers(1), pool.WithSpares(2), pool.WithGuests(0))
	assert.Equal(t, 3, p.MaxWorkers())
	testutil.Watchdog(t, sparesLimit, func() {
		var most atomic.Int32
		var running atomic.Int32
		g, _ := p.NewGroup(context.Background())
		for range 12 {
			g.Go(func() error {
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				assert.Less(t, pool.WorkerIndex(), 3)
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				return nil
			})
		}
		require.NoError(t, g.Wait())
		assert.LessOrEqual(t, most.Load(), int32(3), "tasks in flight beyond 1 worker and 2 spares")
		assert.Greater(t, most.Load(), int32(1), "no spare ran")
	})
}

// Computation starts no spare: fork-join, spawned tasks and loops that
// allocate nothing, on two workers, never look blocked. (Tasks that
// allocate heavily rarely can: a goroutine that must help the garbage
// collector may wait for it, off its CPU; the monitor believes no stall
// while the GC marks, and BenchmarkSparesWhileComputing counts what
// remains.)
func TestNoSpareStartsWhileTasksCompute(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	testutil.Watchdog(t, sparesLimit, func() {
		for range 10 {
			computeRound(p)
		}
	})
	s := p.Stats()
	assert.Zero(t, s.SparesStarted, "%v", s)
}

// computeRound is a round of computation that allocates nothing per
// task: typed forks, a bulk spawn and a loop.
func computeRound(p *pool.Pool) {
	var sink atomic.Int64
	p.Run(func() { sink.Add(int64(fibCall(25))) })
	p.Scope(func(s *pool.Scope) {
		s.SpawnMany(2000, func(_ *pool.Scope, i int) { sink.Add(int64(testutil.Burn(200 + i%7))) })
	})
	p.Run(func() {
		forkjoin.For(0, 1<<12, 1, func(lo, hi int) {
			n := 0
			for i := lo; i < hi; i++ {
				n += testutil.Burn(300)
			}
			sink.Add(int64(n))
		})
	})
}

// The trace reports each spare that starts and retires, and Stats agrees.
func TestTheTraceReportsSpares(t *testing.T) {
	needSpares(t)
	var starts, retires atomic.Int64
	p := newPool(t, pool.WithWorkers(2), pool.WithTrace(func(e pool.Event) {
		switch e.Kind {
		case pool.EventSpareStart:
			starts.Add(1)
			assert.GreaterOrEqual(t, e.Worker, 2, "a spare's index follows the workers'")
		case pool.EventSpareRetire:
			retires.Add(1)
		}
	}))
	testutil.Watchdog(t, sparesLimit, func() {
		_, finish := classicDeadlock(p, func(ch chan struct{}) { <-ch })
		finish()
		// Every spare retires within spareIdle once the tasks are done.
		for deadline := time.Now().Add(5 * time.Second); p.Stats().SparesRunning > 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	})
	s := p.Stats()
	assert.Positive(t, starts.Load())
	assert.Equal(t, s.SparesStarted, uint64(starts.Load()))
	assert.Zero(t, s.SparesRunning)
	assert.Equal(t, starts.Load(), retires.Load())
	assert.Equal(t, "spare start", pool.EventSpareStart.String())
}

// A spare that stays dormant for a second ends its goroutine, and its slot
// starts a new one when tasks block again.
func TestDormantSparesExitAndStartAgain(t *testing.T) {
	needSpares(t)
	p := newPool(t, pool.WithWorkers(2))
	testutil.Watchdog(t, sparesLimit, func() {
		before := runtime.NumGoroutine()
		_, finish := classicDeadlock(p, func(ch chan struct{}) { <-ch })
		finish()
		started := p.Stats().SparesStarted
		require.Positive(t, started)
		// The spares retire, then exit after their keep-alive.
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		assert.LessOrEqual(t, runtime.NumGoroutine(), before, "spare goroutines left")
		for range 3 {
			_, finish = classicDeadlock(p, func(ch chan struct{}) { <-ch })
			finish() // completes only if a spare ran the releasing task
		}
		assert.Greater(t, p.Stats().SparesStarted, started)
	})
}
