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

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// Groups, futures, scopes and blocking calls against the pool's lifecycle
// and a group's limit: nothing handed to a pool is dropped at Close, and
// every misuse panics or returns an error naming it instead of hanging.

// newClosablePool is newPool without the cleanup's Close: these tests
// close their pools themselves.
// newClosablePool starts a pool the test closes, with as many Ps as
// workers: the tests assume that all the workers run at once (a pool
// parks the workers past GOMAXPROCS).
func newClosablePool(t testing.TB, opts ...pool.Option) *pool.Pool {
	t.Helper()
	p := newPoolAtProcs(t, opts...)
	if testutil.NeedProcs(t, p.Workers()) {
		// Made before the raise, p would run fewer workers until its
		// next call: have it read GOMAXPROCS now.
		pool.ReadGOMAXPROCS(p)
	}
	return p
}

// newPoolAtProcs starts a pool the test closes, leaving GOMAXPROCS as it
// is: for tests of pools with more workers than Ps.
func newPoolAtProcs(t testing.TB, opts ...pool.Option) *pool.Pool {
	t.Helper()
	p, err := pool.New(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

func TestCloseWaitsForEveryGroupTask(t *testing.T) {
	tests := []struct {
		name string
		// queue hands the group its tasks (each calls task once) and
		// returns how many there are in all.
		queue func(g *pool.Group, task func() error) int
	}{
		{"queued from outside", func(g *pool.Group, task func() error) int {
			for range 100 {
				g.Go(task)
			}
			return 100
		}},
		{"queued by tasks while Close waits", func(g *pool.Group, task func() error) int {
			for range 10 {
				g.Go(func() error {
					time.Sleep(2 * time.Millisecond) // Close is waiting by now, usually
					for range 9 {
						g.Go(task)
					}
					return task()
				})
			}
			return 100
		}},
		{"limit 1", func(g *pool.Group, task func() error) int {
			g.SetLimit(1)
			for range 20 {
				g.Go(task)
			}
			return 20
		}},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/workers=%d", tt.name, workers), func(t *testing.T) {
				p := newClosablePool(t, pool.WithWorkers(workers))
				watchdog(t, func() {
					g, _ := p.NewGroup(context.Background())
					var ran atomic.Int64
					n := tt.queue(g, func() error {
						time.Sleep(time.Millisecond)
						ran.Add(1)
						return nil
					})
					require.NoError(t, p.Close())
					assert.EqualValues(t, n, ran.Load(), "tasks run when Close returned")
					assert.NoError(t, g.Wait())
				})
			})
		}
	}
}

func TestGroupOnClosedPoolPanics(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(2))
	g, _ := p.NewGroup(context.Background()) // made before Close, used after
	require.NoError(t, p.Close())
	watchdog(t, func() {
		h, _ := p.NewGroup(context.Background())
		for _, gr := range []*pool.Group{g, h} {
			for name, call := range map[string]func(){
				"Go":    func() { gr.Go(func() error { return nil }) },
				"TryGo": func() { gr.TryGo(func() error { return nil }) },
			} {
				err, _ := recoverValue(call).(error)
				assert.ErrorIs(t, err, pool.ErrClosed, "%s on a closed pool", name)
				assert.ErrorContains(t, err, "pool.Group."+name)
			}
			assert.NoError(t, gr.Wait(), "Wait with nothing queued")
		}
		// A refused task gives its slot back: TryGo under a limit of 1
		// panics again rather than report the limit reached.
		h.SetLimit(1)
		for range 2 {
			err, _ := recoverValue(func() { h.TryGo(func() error { return nil }) }).(error)
			assert.ErrorIs(t, err, pool.ErrClosed)
		}
	})
}

func TestGroupSetLimitWhileBusyPanics(t *testing.T) {
	tests := []struct {
		name  string
		group func(t *testing.T) *pool.Group
		limit int // before the round; -1: none
	}{
		{"zero value on Default", func(*testing.T) *pool.Group { return new(pool.Group) }, -1},
		{"NewGroup", func(t *testing.T) *pool.Group {
			g, _ := newPool(t, pool.WithWorkers(2)).NewGroup(context.Background())
			return g
		}, -1},
		{"zero value with a limit", func(*testing.T) *pool.Group { return new(pool.Group) }, 2},
	}
	for _, tt := range tests {
		for _, state := range []string{"running", "queued"} {
			t.Run(tt.name+"/"+state, func(t *testing.T) {
				watchdog(t, func() {
					g := tt.group(t)
					g.SetLimit(tt.limit)
					release := make(chan struct{})
					var ran atomic.Int64
					started := make(chan struct{})
					g.Go(func() error { close(started); <-release; ran.Add(1); return nil })
					if state == "queued" {
						for range 1 + tt.limit {
							g.TryGo(func() error { <-release; ran.Add(1); return nil })
						}
					}
					<-started
					v := recoverValue(func() { g.SetLimit(1) })
					assert.Contains(t, fmt.Sprint(v), "pool.Group.SetLimit", "SetLimit with a task %s", state)
					close(release)
					require.NoError(t, g.Wait())
					// Still usable, with its old limit, and SetLimit works
					// once the group is idle.
					g.SetLimit(1)
					g.Go(func() error { ran.Add(1); return nil })
					require.NoError(t, g.Wait())
					assert.Positive(t, ran.Load())
				})
			})
		}
	}
}

func TestCloseDefaultPoolRefuses(t *testing.T) {
	watchdog(t, func() {
		assert.ErrorIs(t, pool.Default().Close(), pool.ErrCloseDefault)
		ran := false
		pool.Default().Run(func() { ran = true })
		assert.True(t, ran, "Default() after its Close")
		var g pool.Group
		g.Go(func() error { return nil })
		assert.NoError(t, g.Wait())
	})
}

func TestGroupWaitInsideOwnTaskPanics(t *testing.T) {
	testutil.NeedTwoPs(t)
	// Wait is recognised on the worker that runs the task, and in a join
	// half the task forked that another worker stole (a scope's task that
	// another worker took is not: see Group.Wait), so the scope case runs
	// on one worker.
	stolen := func(wait func()) {
		// The first half waits until the second has started on another
		// worker, which steals it. It forks while it waits: a worker
		// publishes its older private jobs (the second half) at a fork,
		// once a thief asked; blocked without forking, it would keep
		// the half private when a thief took an older job first.
		var started atomic.Bool
		pool.Join(func() {
			for !started.Load() {
				pool.Join(func() {}, func() {})
				runtime.Gosched()
			}
		}, func() { started.Store(true); wait() })
	}
	tests := []struct {
		name string
		// call calls wait from inside a task of the group.
		call    func(wait func())
		workers []int
	}{
		{"in the task", func(wait func()) { wait() }, []int{1, 2}},
		{"in a join's first function", func(wait func()) { pool.Join(wait, func() {}) }, []int{1, 2}},
		{"in a join's second function", func(wait func()) { pool.Join(func() {}, wait) }, []int{1, 2}},
		{"in a join's stolen second function", stolen, []int{2}},
		{"in a stolen join half's stolen half", func(wait func()) {
			stolen(func() { stolen(wait) })
		}, []int{3}},
		{"in a join half stolen inside a join half stolen by a group task", func(wait func()) {
			stolen(func() { pool.Join(func() { stolen(wait) }, func() {}) })
		}, []int{3}},
		// Recognised only while the task's own worker runs the scope's
		// task (the guide says so): one worker, and no guests, since the
		// Wait from outside would otherwise help run queued tasks and
		// could take the scope's task itself.
		{"in a scope's task", func(wait func()) {
			pool.Current().Scope(func(s *pool.Scope) { s.Spawn(func(*pool.Scope) { wait() }) })
		}, []int{1}},
	}
	for _, tt := range tests {
		for _, workers := range tt.workers {
			t.Run(fmt.Sprintf("%s/workers=%d", tt.name, workers), func(t *testing.T) {
				opts := []pool.Option{pool.WithWorkers(workers)}
				if tt.name == "in a scope's task" {
					opts = append(opts, pool.WithGuests(0))
				}
				p := newPool(t, opts...)
				watchdog(t, func() {
					g, _ := p.NewGroup(context.Background())
					g.Go(func() error {
						tt.call(func() { _ = g.Wait() })
						return nil
					})
					pe, _ := recoverValue(func() { _ = g.Wait() }).(*pool.PanicError)
					require.NotNil(t, pe, "Wait inside one of the group's tasks")
					assert.Contains(t, fmt.Sprint(pe.Value), "pool.Group.Wait")
				})
			})
		}
	}
}

func TestGroupGoInsideOwnTasksAtTheLimit(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		for _, limit := range []int{1, 2} {
			t.Run(fmt.Sprintf("workers=%d/limit=%d", workers, limit), func(t *testing.T) {
				p := newPool(t, pool.WithWorkers(workers))
				watchdog(t, func() {
					g, _ := p.NewGroup(context.Background())
					g.SetLimit(limit)
					var ran, running, most atomic.Int64
					// enter counts a task that runs on while its own
					// children (run in its slot) may run.
					enter := func() func() {
						n := running.Add(1)
						for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
						}
						return func() { running.Add(-1) }
					}
					var child func(depth int) func() error
					child = func(depth int) func() error {
						return func() error {
							defer enter()()
							ran.Add(1)
							if depth < 2 {
								for range 2 {
									g.Go(child(depth + 1))
								}
							}
							return nil
						}
					}
					for range 4 {
						g.Go(child(0))
					}
					require.NoError(t, g.Wait())
					assert.EqualValues(t, 4*(1+2+4), ran.Load())
					// A child run in its parent's slot counts twice here
					// (parent and child both entered): at most depth 3.
					assert.LessOrEqual(t, most.Load(), int64(3*limit))
				})
			})
		}
	}
}

func TestBlockOffPoolRaisesPanicError(t *testing.T) {
	for _, onWorker := range []bool{false, true} {
		t.Run(fmt.Sprintf("onWorker=%v", onWorker), func(t *testing.T) {
			watchdog(t, func() {
				block := func() { pool.Block(func() { panic("boom") }) }
				if onWorker {
					p := newPool(t, pool.WithWorkers(1))
					inner := block
					block = func() { p.Run(inner) }
				}
				pe, ok := recoverValue(block).(*pool.PanicError)
				require.True(t, ok, "Block's panic is a *PanicError")
				assert.Equal(t, "boom", pe.Value)
			})
		})
	}
}

func TestCloseWaitsForFuturesAndScopes(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		f := pool.Submit(p, func() int { time.Sleep(5 * time.Millisecond); return 7 })
		var spawned atomic.Int64
		inScope := make(chan struct{})
		scopeDone := make(chan struct{})
		go func() {
			defer close(scopeDone)
			p.Scope(func(s *pool.Scope) {
				close(inScope)
				for range 50 {
					s.Spawn(func(*pool.Scope) { time.Sleep(100 * time.Microsecond); spawned.Add(1) })
				}
			})
		}()
		<-inScope
		require.NoError(t, p.Close())
		assert.EqualValues(t, 50, spawned.Load(), "scope tasks run when Close returned")
		assert.Equal(t, 7, f.Wait(), "future submitted before Close")
		<-scopeDone
		err, _ := recoverValue(func() { pool.Submit(p, func() int { return 0 }) }).(error)
		assert.ErrorIs(t, err, pool.ErrClosed, "Submit after Close")
		err, _ = recoverValue(func() { p.Scope(func(*pool.Scope) {}) }).(error)
		assert.ErrorIs(t, err, pool.ErrClosed, "Scope after Close")
	})
}

func TestCloseWhileGroupContextIsCancelled(t *testing.T) {
	// No spares: the one worker, blocked in the first task, holds the
	// other 99 queued until the cancellation.
	p := newClosablePool(t, pool.WithWorkers(1), pool.WithSpares(0))
	watchdog(t, func() {
		ctx, cancel := context.WithCancel(context.Background())
		g, gctx := p.NewGroup(ctx)
		var ran atomic.Int64
		started := make(chan struct{})
		g.Go(func() error { close(started); <-gctx.Done(); ran.Add(1); return nil })
		for range 99 {
			g.Go(func() error { ran.Add(1); return nil })
		}
		<-started // the one worker holds the first task; 99 are queued
		closed := make(chan error)
		go func() { closed <- p.Close() }()
		time.Sleep(time.Millisecond) // let Close start waiting (not required)
		cancel()
		require.NoError(t, <-closed)
		assert.EqualValues(t, 1, ran.Load(), "tasks started after the cancellation")
		assert.ErrorIs(t, g.Wait(), context.Canceled)
	})
}

func TestCloseWhileWaitRuns(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p := newClosablePool(t, pool.WithWorkers(workers))
			watchdog(t, func() {
				g, _ := p.NewGroup(context.Background())
				release := make(chan struct{})
				var ran atomic.Int64
				for range 20 {
					g.Go(func() error { <-release; ran.Add(1); return nil })
				}
				var wg sync.WaitGroup
				var waitErr, closeErr error
				wg.Add(2)
				go func() { defer wg.Done(); waitErr = g.Wait() }()
				go func() { defer wg.Done(); closeErr = p.Close() }()
				close(release)
				wg.Wait()
				assert.NoError(t, waitErr)
				assert.NoError(t, closeErr)
				assert.EqualValues(t, 20, ran.Load())
			})
		})
	}
}

func TestClosePanicInGroupTask(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		g, _ := p.NewGroup(context.Background())
		release := make(chan struct{})
		g.Go(func() error { <-release; panic("task panic while Close waits") })
		closed := make(chan error)
		go func() { closed <- p.Close() }()
		close(release)
		require.NoError(t, <-closed)
		pe, _ := recoverValue(func() { _ = g.Wait() }).(*pool.PanicError)
		require.NotNil(t, pe)
		assert.Equal(t, "task panic while Close waits", pe.Value)
		assert.False(t, errors.Is(pe, pool.ErrClosed))
	})
}

// Goroutines race Group.Go on an idle group with Close: every Go that
// returned without panicking handed over a task that ran before Close
// returned (a Go that turned the group busy while another slipped in
// behind it used to leave Close free to finish with the second task
// queued).
func TestCloseRacesGoOnAnIdleGroup(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 20
	}
	watchdog(t, func() {
		for range rounds {
			p := newClosablePool(t, pool.WithWorkers(2))
			g, _ := p.NewGroup(context.Background())
			var accepted, ran atomic.Int64
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					defer func() {
						err, _ := recover().(error)
						assert.ErrorIs(t, err, pool.ErrClosed)
					}()
					for {
						g.Go(func() error { ran.Add(1); return nil })
						accepted.Add(1)
					}
				})
			}
			require.NoError(t, p.Close())
			wg.Wait()
			require.Equal(t, accepted.Load(), ran.Load(), "tasks accepted and never run")
			require.NoError(t, g.Wait())
		}
	})
}
