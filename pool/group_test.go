package pool_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

var errTask = errors.New("task failed")

func TestGroupReturnsFirstErrorAndCancelsWithIt(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p := newPool(t, pool.WithWorkers(workers))
			watchdog(t, func() {
				g, ctx := p.NewGroup(context.Background())
				for i := range 100 {
					g.Go(func() error {
						if i == 50 {
							return errTask
						}
						return nil
					})
				}
				assert.Same(t, errTask, g.Wait())
				assert.ErrorIs(t, context.Cause(ctx), errTask)
			})
		})
	}
}

func TestGroupWaitCancelsContext(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		g, ctx := p.NewGroup(context.Background())
		g.Go(func() error { return nil })
		require.NoError(t, g.Wait())
		assert.ErrorIs(t, ctx.Err(), context.Canceled)
		assert.ErrorIs(t, context.Cause(ctx), context.Canceled)
	})
}

// On one worker, tasks injected from outside run in order: once the first
// fails, none of the others may start. No guest slot: a caller whose Wait
// ran queued tasks itself could run all the others while the worker,
// holding the first, waited for a CPU (it did, once in CI).
func TestGroupSkipsQueuedTasksAfterError(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1), pool.WithGuests(0))
	watchdog(t, func() {
		g, _ := p.NewGroup(context.Background())
		var ran atomic.Int64
		g.Go(func() error { return errTask })
		for range 1000 {
			g.Go(func() error { ran.Add(1); return nil })
		}
		assert.Same(t, errTask, g.Wait())
		assert.Zero(t, ran.Load(), "tasks started after the group's first error")
	})
}

// A task that fails stops its own siblings queued on the same worker.
func TestGroupSkipsQueuedTasksAfterErrorInside(t *testing.T) {
	// One worker and no guest: the call runs on the worker, alone.
	p := newPool(t, pool.WithWorkers(1), pool.WithGuests(0))
	watchdog(t, func() {
		var ran atomic.Int64
		var err error
		p.Run(func() {
			g, _ := pool.NewGroup(context.Background())
			for range 1000 {
				g.Go(func() error { ran.Add(1); return nil })
			}
			g.Go(func() error { return errTask }) // newest: runs first on this worker
			err = g.Wait()
		})
		assert.Same(t, errTask, err)
		assert.Zero(t, ran.Load())
	})
}

func TestGroupParentCancellation(t *testing.T) {
	// No spares: a spare would start once the first task has blocked
	// for a tenth of a millisecond and run the queued tasks, and a caller
	// slower than that to cancel (the race detector on a busy machine)
	// failed the test.
	p := newPool(t, pool.WithWorkers(1), pool.WithSpares(0))
	watchdog(t, func() {
		cause := errors.New("parent gave up")
		parent, cancel := context.WithCancelCause(context.Background())
		g, ctx := p.NewGroup(parent)
		started := make(chan struct{})
		release := make(chan struct{})
		var ran atomic.Int64
		g.Go(func() error {
			close(started)
			<-release // holds the only worker (no spare): the tasks below stay queued
			return nil
		})
		<-started
		for range 100 {
			g.Go(func() error { ran.Add(1); return nil })
		}
		cancel(cause)
		<-ctx.Done()
		close(release)
		assert.Same(t, cause, g.Wait())
		assert.Zero(t, ran.Load())
	})
}

// If the parent ends after every task ran, nothing was skipped: no error.
func TestGroupParentCancelledAfterAllRan(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		parent, cancel := context.WithCancel(context.Background())
		g, _ := p.NewGroup(parent)
		ran := make(chan struct{})
		g.Go(func() error { close(ran); return nil })
		<-ran // the task started: nothing is left to skip (a sleep here failed on a loaded machine)
		cancel()
		assert.NoError(t, g.Wait())
	})
}

func TestGroupNested(t *testing.T) {
	p := newPool(t, pool.WithWorkers(4))
	watchdog(t, func() {
		var g pool.Group
		var n atomic.Int64
		var spawn func(depth int) error
		spawn = func(depth int) error {
			n.Add(1)
			if depth > 0 {
				for range 3 {
					g.Go(func() error { return spawn(depth - 1) })
				}
			}
			return nil
		}
		p.Run(func() {
			g.Go(func() error { return spawn(7) })
			require.NoError(t, g.Wait())
		})
		assert.EqualValues(t, (3*3*3*3*3*3*3*3-1)/2, n.Load())
	})
}

func TestGroupZeroValue(t *testing.T) {
	watchdog(t, func() {
		t.Run("outside a pool", func(t *testing.T) {
			var g pool.Group
			var on atomic.Pointer[pool.Pool]
			g.Go(func() error { on.Store(pool.Current()); return nil })
			require.NoError(t, g.Wait())
			assert.Same(t, pool.Default(), on.Load())
		})
		t.Run("inside a pool", func(t *testing.T) {
			p := newPool(t, pool.WithWorkers(2))
			var on atomic.Pointer[pool.Pool]
			p.Run(func() {
				var g pool.Group
				g.Go(func() error { on.Store(pool.Current()); return nil })
				require.NoError(t, g.Wait())
			})
			assert.Same(t, p, on.Load())
		})
		t.Run("runs every task and can be reused", func(t *testing.T) {
			var g pool.Group
			var ran atomic.Int64
			for round := range 3 {
				g.Go(func() error { return errTask })
				for range 10 {
					g.Go(func() error { ran.Add(1); return nil })
				}
				assert.Same(t, errTask, g.Wait(), "round %d", round)
			}
			assert.EqualValues(t, 30, ran.Load())
		})
	})
}

func TestGroupPanicAfterAllFinished(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		g, ctx := p.NewGroup(context.Background())
		var finished atomic.Int64
		release := make(chan struct{})
		g.Go(func() error {
			pool.Block(func() { <-release })
			finished.Add(1)
			return nil
		})
		g.Go(func() error { panic("boom") })
		go func() {
			<-ctx.Done() // the panic cancels the context
			time.Sleep(time.Millisecond)
			close(release)
		}()
		v := recoverValue(func() { _ = g.Wait() })
		pe, ok := v.(*pool.PanicError)
		require.True(t, ok, "%T %v", v, v)
		assert.Equal(t, "boom", pe.Value)
		assert.EqualValues(t, 1, finished.Load(), "Wait re-panicked before every task finished")
		var cause *pool.PanicError
		assert.ErrorAs(t, context.Cause(ctx), &cause)
	})
}

func TestGroupLimit(t *testing.T) {
	for _, workers := range []int{1, 4} {
		for _, limit := range []int{1, 2} {
			t.Run(fmt.Sprintf("workers=%d/limit=%d", workers, limit), func(t *testing.T) {
				p := newPool(t, pool.WithWorkers(workers))
				watchdog(t, func() {
					var active, most, ran atomic.Int64
					task := func() error {
						n := active.Add(1)
						for {
							m := most.Load()
							if n <= m || most.CompareAndSwap(m, n) {
								break
							}
						}
						time.Sleep(50 * time.Microsecond)
						active.Add(-1)
						ran.Add(1)
						return nil
					}
					// From outside (blocking) and from a task (helping).
					var g pool.Group
					g.SetLimit(limit)
					for range 20 {
						g.Go(task)
					}
					require.NoError(t, g.Wait())
					p.Run(func() {
						var h pool.Group
						h.SetLimit(limit)
						for range 20 {
							h.Go(task)
						}
						require.NoError(t, h.Wait())
					})
					assert.EqualValues(t, 40, ran.Load())
					assert.LessOrEqual(t, most.Load(), int64(limit))
				})
			})
		}
	}
}

func TestGroupTryGo(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		g, _ := p.NewGroup(context.Background())
		g.SetLimit(1)
		release := make(chan struct{})
		require.True(t, g.TryGo(func() error { pool.Block(func() { <-release }); return nil }))
		assert.False(t, g.TryGo(func() error { return nil }), "TryGo past the limit")
		assert.Panics(t, func() { g.SetLimit(3) }, "SetLimit with a task queued")
		close(release)
		require.NoError(t, g.Wait())
		assert.True(t, g.TryGo(func() error { return nil }))
		_ = g.Wait()
		g.SetLimit(0)
		assert.False(t, g.TryGo(func() error { return nil }))
		assert.PanicsWithValue(t, "pool.Group.Go: the group's limit is 0, no task can start", func() { g.Go(func() error { return nil }) })
	})
}

func TestGroupGoFromManyGoroutines(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		var g pool.Group
		var n atomic.Int64
		var wg sync.WaitGroup
		p.Run(func() {}) // g runs on Default(); p only keeps two threads busy
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 500 {
					g.Go(func() error { n.Add(1); return nil })
				}
			}()
		}
		wg.Wait()
		require.NoError(t, g.Wait())
		assert.EqualValues(t, 4000, n.Load())
	})
}

func TestGroupBadInput(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	var g pool.Group
	//nolint:staticcheck // a nil context is the bad input under test
	assert.PanicsWithValue(t, "pool.NewGroup: nil context", func() { pool.NewGroup(nil) })   //lint:ignore SA1012 the bad input under test
	assert.PanicsWithValue(t, "pool.Pool.NewGroup: nil context", func() { p.NewGroup(nil) }) //lint:ignore SA1012 the bad input under test
	assert.PanicsWithValue(t, "pool.Group.Go: nil function", func() { g.Go(nil) })
	assert.PanicsWithValue(t, "pool.Group.TryGo: nil function", func() { g.TryGo(nil) })
	g.SetLimit(-1)
	assert.True(t, g.TryGo(func() error { return nil }), "a negative limit is no limit")
	assert.NoError(t, g.Wait())
}

func TestGroupLeaksNoGoroutine(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	before := runtime.NumGoroutine()
	watchdog(t, func() {
		for range 50 {
			g, _ := p.NewGroup(context.Background())
			for range 10 {
				g.Go(func() error { return errTask })
			}
			_ = g.Wait()
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before)
}

// Wait from outside the pool must not become a job: the only worker,
// helping inside a task of the group (pool.Block), would run it on top of
// that task, and the wait would then wait for the task below it forever.
func TestGroupWaitFromOutsideWhileATaskHelps(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	watchdog(t, func() {
		g, _ := p.NewGroup(context.Background())
		started := make(chan struct{})
		release := make(chan struct{})
		g.Go(func() error {
			close(started)
			pool.Block(func() { <-release }) // the worker helps meanwhile
			return nil
		})
		<-started
		go func() {
			time.Sleep(5 * time.Millisecond) // Wait is blocked by now
			close(release)
		}()
		assert.NoError(t, g.Wait())
	})
}

// TestWaitFromOutsideRunsQueuedTasks: a Wait from a goroutine that is no
// worker runs the group's queued tasks itself while they are in flight.
// The pool's only worker (no spares) runs a task that waits for a second
// task; only the caller's Wait can run that one. Before, Wait blocked at
// once, and the two waited for each other.
func TestWaitFromOutsideRunsQueuedTasks(t *testing.T) {
	p, err := pool.New(pool.WithWorkers(1), pool.WithSpares(0))
	require.NoError(t, err)
	defer func() { assert.NoError(t, p.Close()) }()
	watchdog(t, func() {
		for range 20 {
			g, _ := p.NewGroup(context.Background())
			release := make(chan struct{})
			g.Go(func() error { <-release; return nil })
			g.Go(func() error { close(release); return nil })
			assert.NoError(t, g.Wait())
		}
	})
}

// Go after Wait runs its task, as errgroup's does, on a Group from
// NewGroup too (its context is done then, as errgroup's is), and the next
// Wait waits for it; after a failure the group skips new tasks and every
// Wait returns the first error.
func TestGoAfterWaitRunsTheTask(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		g, ctx := p.NewGroup(context.Background())
		g.Go(func() error { return nil })
		require.NoError(t, g.Wait())
		ran := false
		g.Go(func() error { ran = true; return nil })
		require.NoError(t, g.Wait())
		assert.True(t, ran, "a task queued after Wait did not run")
		assert.Error(t, ctx.Err(), "the group's context is done after Wait")

		boom := errors.New("boom")
		f, _ := p.NewGroup(context.Background())
		f.Go(func() error { return boom })
		require.ErrorIs(t, f.Wait(), boom)
		ranAfterFailure := false
		f.Go(func() error { ranAfterFailure = true; return nil })
		assert.ErrorIs(t, f.Wait(), boom)
		assert.False(t, ranAfterFailure, "a task queued after a failure ran")
	})
}
