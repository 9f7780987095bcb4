package pool_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// contextTasks is how many tasks the tests of ScopeContext's cancellation
// spawn.
const contextTasks = 100_000

// contextSpawns are the ways a scope's tasks are spawned. Each spawns n
// tasks on s, each of which calls task once; fewer for the tree once
// tasks are skipped, as a skipped node spawns no children.
var contextSpawns = []struct {
	name  string
	spawn func(s *pool.Scope, n int, task func(s *pool.Scope))
}{
	{"Spawn", func(s *pool.Scope, n int, task func(*pool.Scope)) {
		for range n {
			s.Spawn(task)
		}
	}},
	{"SpawnPriority", func(s *pool.Scope, n int, task func(*pool.Scope)) {
		for range n {
			s.SpawnPriority(1, task)
		}
	}},
	{"SpawnMany", func(s *pool.Scope, n int, task func(*pool.Scope)) {
		s.SpawnMany(n, func(s *pool.Scope, _ int) { task(s) })
	}},
	{"SpawnManyPriority", func(s *pool.Scope, n int, task func(*pool.Scope)) {
		s.SpawnManyPriority(1, n, func(s *pool.Scope, _ int) { task(s) })
	}},
	{"forkjoin.Spawn", func(s *pool.Scope, n int, task func(*pool.Scope)) {
		for i := range n {
			forkjoin.Spawn(s, func(s *pool.Scope, _ int) { task(s) }, i)
		}
	}},
	{"a task per tree node", func(s *pool.Scope, n int, task func(*pool.Scope)) {
		// Node i of a 4-ary heap-ordered tree of n nodes spawns its
		// children, 4i+1 to 4i+4, after its own work.
		var node func(s *pool.Scope, i int)
		node = func(s *pool.Scope, i int) {
			task(s)
			for c := 4*i + 1; c <= 4*i+4 && c < n; c++ {
				s.Spawn(func(s *pool.Scope) { node(s, c) })
			}
		}
		s.Spawn(func(s *pool.Scope) { node(s, 0) })
	}},
}

// Once a task of a ScopeContext cancels its context, no task of the scope
// starts: ScopeContext returns context.Cause, and the tasks that start
// after cancel has returned are only those another runner had already
// let through (at most one per runner other than the canceller's; none
// on one worker, where exactly the tasks up to the canceller ran).
// Without the check at every task start all 100k would run.
func TestScopeContextCancelledByATaskStartsNothingAfter(t *testing.T) {
	const cancelAt = 1000
	for _, workers := range []int{1, 2} {
		if workers > 1 {
			needTwoPs(t)
		}
		// No guest and no spare: the runners are the workers.
		p := newPool(t, pool.WithWorkers(workers), pool.WithGuests(0), pool.WithSpares(0))
		for _, sc := range contextSpawns {
			t.Run(fmt.Sprintf("%s/workers=%d", sc.name, workers), func(t *testing.T) {
				watchdog(t, func() {
					cause := errors.New("enough")
					ctx, cancel := context.WithCancelCause(context.Background())
					defer cancel(nil)
					var started, late atomic.Int64
					var cancelled atomic.Bool
					err := p.ScopeContext(ctx, func(s *pool.Scope) {
						sc.spawn(s, contextTasks, func(*pool.Scope) {
							if cancelled.Load() {
								late.Add(1)
							}
							if started.Add(1) == cancelAt {
								cancel(cause)
								cancelled.Store(true)
							}
						})
					})
					assert.Same(t, cause, err)
					assert.LessOrEqual(t, late.Load(), int64(p.MaxWorkers()-1), "tasks started after the cancel returned")
					assert.GreaterOrEqual(t, started.Load(), int64(cancelAt))
					assert.Less(t, started.Load(), int64(contextTasks), "some tasks were skipped")
					if workers == 1 {
						assert.Equal(t, int64(cancelAt), started.Load(), "one worker starts nothing after the canceller")
					}
				})
			})
		}
	}
}

// A context cancelled from outside the pool, while the tasks (a few
// microseconds each) run on two workers, stops the scope the same way:
// at most one task per worker starts after cancel returns.
func TestScopeContextCancelledFromOutsideStartsNothingAfter(t *testing.T) {
	needTwoPs(t)
	p := newPool(t, pool.WithWorkers(2), pool.WithGuests(0), pool.WithSpares(0))
	for _, sc := range contextSpawns {
		t.Run(sc.name, func(t *testing.T) {
			watchdog(t, func() {
				cause := errors.New("client went away")
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				var started, late, sink atomic.Int64
				var cancelled atomic.Bool
				reached := make(chan struct{})
				go func() {
					<-reached
					cancel(cause)
					cancelled.Store(true)
				}()
				err := p.ScopeContext(ctx, func(s *pool.Scope) {
					sc.spawn(s, contextTasks, func(*pool.Scope) {
						if cancelled.Load() {
							late.Add(1)
						}
						if started.Add(1) == 100 {
							close(reached)
						}
						sink.Add(int64(testutil.Burn(2000)))
					})
				})
				assert.Same(t, cause, err)
				assert.LessOrEqual(t, late.Load(), int64(p.MaxWorkers()), "tasks started after the cancel returned")
				assert.Less(t, started.Load(), int64(contextTasks), "some tasks were skipped")
			})
		})
	}
}

// Tasks queued when the context ends are skipped, and ScopeContext still
// waits for the task that was running: one worker, held by a task that
// queued the others.
func TestScopeContextSkipsQueuedTasksAndWaitsForRunningOnes(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1), pool.WithGuests(0), pool.WithSpares(0))
	for _, sc := range contextSpawns {
		t.Run(sc.name, func(t *testing.T) {
			watchdog(t, func() {
				cause := errors.New("parent gave up")
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				started := make(chan struct{})
				release := make(chan struct{})
				var ran atomic.Int64
				var finished atomic.Bool
				go func() {
					<-started
					cancel(cause)
					close(release)
				}()
				err := p.ScopeContext(ctx, func(s *pool.Scope) {
					s.Spawn(func(s *pool.Scope) {
						sc.spawn(s, 100, func(*pool.Scope) { ran.Add(1) })
						close(started)
						<-release // holds the only worker: the tasks above stay queued
						finished.Store(true)
					})
				})
				assert.Same(t, cause, err)
				assert.Zero(t, ran.Load(), "queued tasks ran")
				assert.True(t, finished.Load(), "returned before the running task finished")
			})
		})
	}
}

// Tasks spawned after the context ended, by a task that started before,
// are skipped too, on any number of workers.
func TestScopeContextSkipsSpawnsAfterCancellation(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	for _, sc := range contextSpawns {
		t.Run(sc.name, func(t *testing.T) {
			watchdog(t, func() {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var ran atomic.Int64
				err := p.ScopeContext(ctx, func(s *pool.Scope) {
					s.Spawn(func(s *pool.Scope) {
						cancel()
						sc.spawn(s, 1000, func(*pool.Scope) { ran.Add(1) })
					})
				})
				assert.ErrorIs(t, err, context.Canceled)
				assert.Zero(t, ran.Load())
			})
		})
	}
}

// TestScopeContextQueuesNothingAfterCancellation: a body that goes on
// spawning in a loop once the context is done queues none of those
// tasks (the pool's Queued gauge stays 0), so the loop costs a check per
// spawn, not a queued task.
func TestScopeContextQueuesNothingAfterCancellation(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1), pool.WithGuests(0))
	for _, sc := range contextSpawns {
		t.Run(sc.name, func(t *testing.T) {
			watchdog(t, func() {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var queued int
				err := p.ScopeContext(ctx, func(s *pool.Scope) {
					cancel()
					sc.spawn(s, 1000, func(*pool.Scope) {})
					queued = p.Stats().Queued
				})
				assert.ErrorIs(t, err, context.Canceled)
				assert.Zero(t, queued, "tasks queued by spawns after the cancellation")
			})
		})
	}
}

// With a context already done, neither RunContext nor ScopeContext runs
// its function (ScopeContext's body counts as the scope's first task): both
// return the context's cause, called from outside the pool or from one
// of its workers.
func TestContextCallsWithADoneContextRunNothing(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	cause := errors.New("too late")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	calls := []struct {
		name string
		call func(ran *atomic.Bool) error
	}{
		{"RunContext", func(ran *atomic.Bool) error {
			return p.RunContext(ctx, func() { ran.Store(true) })
		}},
		{"ScopeContext", func(ran *atomic.Bool) error {
			return p.ScopeContext(ctx, func(s *pool.Scope) {
				ran.Store(true)
				s.Spawn(func(*pool.Scope) { ran.Store(true) })
			})
		}},
	}
	for _, c := range calls {
		for _, onWorker := range []bool{false, true} {
			name := c.name + "/from outside"
			if onWorker {
				name = c.name + "/on a worker"
			}
			t.Run(name, func(t *testing.T) {
				watchdog(t, func() {
					var ran atomic.Bool
					var err error
					if onWorker {
						p.Run(func() { err = c.call(&ran) })
					} else {
						err = c.call(&ran)
					}
					assert.Same(t, cause, err)
					assert.False(t, ran.Load())
				})
			})
		}
	}
}

// A context that does not end before every task started costs nothing:
// every task runs and the result is nil, also when the last task to start
// is the one that cancels it (one worker: it is the last).
func TestScopeContextReturnsNilWhenEveryTaskStarted(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1), pool.WithGuests(0), pool.WithSpares(0))
	const n = 1000
	for _, sc := range contextSpawns {
		t.Run(sc.name, func(t *testing.T) {
			watchdog(t, func() {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				for _, cancelLast := range []bool{false, true} {
					var started atomic.Int64
					err := p.ScopeContext(ctx, func(s *pool.Scope) {
						sc.spawn(s, n, func(*pool.Scope) {
							if started.Add(1) == n && cancelLast {
								cancel()
							}
						})
					})
					assert.NoError(t, err, "cancelLast=%v", cancelLast)
					assert.Equal(t, int64(n), started.Load(), "cancelLast=%v", cancelLast)
				}
			})
		})
	}
}

// RunContext runs f unless the context ended before f started: a call
// queued behind a busy worker and cancelled meanwhile never runs. Once f
// has started, the context's end is f's business: nil.
func TestRunContext(t *testing.T) {
	watchdog(t, func() {
		p := newPool(t, pool.WithWorkers(1), pool.WithGuests(0), pool.WithSpares(0))

		var ran bool
		require.NoError(t, p.RunContext(context.Background(), func() { ran = true }))
		assert.True(t, ran)

		ctx, cancel := context.WithCancel(context.Background())
		ran = false
		require.NoError(t, p.RunContext(ctx, func() { cancel(); ran = true }), "cancelled by f itself")
		assert.True(t, ran)

		// Queued behind a task holding the only worker.
		cause := errors.New("gave up waiting")
		ctx, cancelCause := context.WithCancelCause(context.Background())
		defer cancelCause(nil)
		started, release := make(chan struct{}), make(chan struct{})
		busy := pool.Submit(p, func() int { close(started); <-release; return 0 })
		<-started
		var queuedRan atomic.Bool
		result := make(chan error)
		go func() { result <- p.RunContext(ctx, func() { queuedRan.Store(true) }) }()
		for p.Stats().Queued == 0 { // the call is queued
			time.Sleep(50 * time.Microsecond)
		}
		cancelCause(cause)
		close(release)
		busy.Wait()
		assert.Same(t, cause, <-result)
		assert.False(t, queuedRan.Load())
	})
}

// A panic in a task of a ScopeContext, or in RunContext's f, comes out as
// Scope's and Run's do: a *PanicError, after the tasks that started.
func TestContextCallsRaisePanicsAsPanicErrors(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		var finished atomic.Int64
		pe := catchPanicError(t, func() {
			_ = p.ScopeContext(context.Background(), func(s *pool.Scope) {
				s.SpawnMany(100, func(*pool.Scope, int) { finished.Add(1) })
				s.Spawn(func(*pool.Scope) { panic("task failed") })
			})
		})
		assert.Equal(t, "task failed", pe.Value)
		assert.Equal(t, int64(100), finished.Load())

		pe = catchPanicError(t, func() { _ = p.RunContext(context.Background(), panicsWith(7)) })
		assert.Equal(t, 7, pe.Value)
	})
}

type scopeContextKey struct{}

// Every task of a ScopeContext, however spawned, gets its ctx from
// s.Context(); a plain Scope's, nested in it or not, is
// context.Background(); a nested ScopeContext's is its own.
func TestScopeContextIsTheScopesContext(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	ctx := context.WithValue(context.Background(), scopeContextKey{}, "request 42")
	for _, sc := range contextSpawns {
		t.Run(sc.name, func(t *testing.T) {
			watchdog(t, func() {
				var wrong atomic.Int64
				err := p.ScopeContext(ctx, func(s *pool.Scope) {
					assert.Same(t, ctx, s.Context())
					sc.spawn(s, 100, func(s *pool.Scope) {
						if s.Context() != ctx {
							wrong.Add(1)
						}
					})
				})
				require.NoError(t, err)
				assert.Zero(t, wrong.Load())
			})
		})
	}
	watchdog(t, func() {
		p.Scope(func(s *pool.Scope) { assert.Equal(t, context.Background(), s.Context()) })
		inner, cancel := context.WithCancel(ctx)
		defer cancel()
		require.NoError(t, p.ScopeContext(ctx, func(s *pool.Scope) {
			s.Spawn(func(s *pool.Scope) {
				p.Scope(func(s *pool.Scope) { assert.Equal(t, context.Background(), s.Context()) })
				assert.NoError(t, p.ScopeContext(inner, func(s *pool.Scope) { assert.Same(t, inner, s.Context()) }))
			})
		}))
	})
}

// A nil context or function panics naming the call, as the package's
// other calls do.
func TestContextCallsPanicOnNilContextOrFunction(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	ctx := context.Background()
	for _, c := range []struct {
		want string
		call func()
	}{
		//lint:ignore SA1012 the bad input under test
		{"pool.Pool.RunContext: nil context", func() { _ = p.RunContext(nil, func() {}) }},
		{"pool.Pool.RunContext: nil function", func() { _ = p.RunContext(ctx, nil) }},
		//lint:ignore SA1012 the bad input under test
		{"pool.Pool.ScopeContext: nil context", func() { _ = p.ScopeContext(nil, func(*pool.Scope) {}) }},
		{"pool.Pool.ScopeContext: nil function", func() { _ = p.ScopeContext(ctx, nil) }},
	} {
		t.Run(c.want, func(t *testing.T) { assert.PanicsWithValue(t, c.want, c.call) })
	}
}
