package pool_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// holdOnlyWorker starts a task on p, a pool of one worker that takes no
// guests and has no spares (which would take the blocked worker's place),
// and returns once it holds the worker. The task returns when release is
// called, or when the test ends.
func holdOnlyWorker(t *testing.T, p *pool.Pool) (f *pool.Future[int], release func()) {
	started, gate := make(chan struct{}), make(chan struct{})
	release = sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release) // before the pool's Close, registered earlier
	f = pool.Submit(p, func() int {
		close(started)
		<-gate
		return -1
	})
	<-started
	return f, release
}

// cancelBound bounds the wait for a cancelled future to complete: the
// time context.AfterFunc's goroutine takes to run, with a wide margin for
// a loaded machine.
const cancelBound = 5 * time.Second

// onlyWorker are the options of the pools of holdOnlyWorker.
var onlyWorker = []pool.Option{pool.WithWorkers(1), pool.WithGuests(0), pool.WithSpares(0)}

// A future whose context is cancelled while its task is queued behind a
// busy worker completes at once, before the worker is free: Done closes,
// Wait returns the zero value, Err the cause, and the task never runs,
// neither then nor once the worker reaches it. Whoever waits before the
// cancellation (a goroutine on the channel, a worker of another pool on
// its latch) wakes.
func TestSubmitContextCancelledWhileQueuedCompletesAtOnce(t *testing.T) {
	cases := []struct {
		name string
		// wait starts waiting for f before the cancellation, if it
		// does, and returns what Wait returned once done is closed; q is
		// another pool.
		wait func(t *testing.T, q *pool.Pool, f *pool.Future[int]) (got func() int)
	}{
		{"nobody waits", nil},
		{"Done asked for before", func(t *testing.T, _ *pool.Pool, f *pool.Future[int]) func() int {
			done := f.Done()
			return func() int { <-done; return f.Wait() }
		}},
		{"Wait off the pool", func(t *testing.T, _ *pool.Pool, f *pool.Future[int]) func() int {
			got, done := -1, make(chan struct{})
			go func() { got = f.Wait(); close(done) }()
			return func() int { <-done; return got }
		}},
		{"Err off the pool", func(t *testing.T, _ *pool.Pool, f *pool.Future[int]) func() int {
			var err error
			done := make(chan struct{})
			go func() { err = f.Err(); close(done) }()
			return func() int { <-done; assert.Error(t, err); return f.Wait() }
		}},
		{"Wait on a worker of another pool", func(t *testing.T, q *pool.Pool, f *pool.Future[int]) func() int {
			got, done := -1, make(chan struct{})
			go func() { q.Run(func() { got = f.Wait() }); close(done) }()
			return func() int { <-done; return got }
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newClosablePool(t, onlyWorker...)
			// Made before the worker is held: if the test fails, q closes
			// after the worker is released (cleanups run last first).
			q := newPool(t, pool.WithWorkers(1), pool.WithGuests(0))
			watchdog(t, func() {
				busy, release := holdOnlyWorker(t, p)
				ctx, cancel := context.WithCancelCause(context.Background())
				cause := errors.New("client went away")
				var ran atomic.Bool
				f := pool.SubmitContext(ctx, p, func() int { ran.Store(true); return 7 })
				var got func() int
				if c.wait != nil {
					got = c.wait(t, q, f)
					time.Sleep(2 * time.Millisecond) // let the waiter wait
				}
				_, ok := f.TryGet()
				require.False(t, ok, "done before the cancellation")

				cancel(cause)
				select {
				case <-f.Done():
				case <-time.After(cancelBound):
					t.Fatal("Done not closed after the cancellation while the worker is busy")
				}
				if got != nil {
					assert.Zero(t, got(), "Wait of a cancelled future")
				}
				assert.Same(t, cause, f.Err())
				assert.Zero(t, f.Wait())
				v, ok := f.TryGet()
				assert.True(t, ok)
				assert.Zero(t, v)
				_, ok = busy.TryGet()
				assert.False(t, ok, "the worker was released before the future was done")

				release()
				assert.Equal(t, -1, busy.Wait())
				require.NoError(t, p.Close())
				assert.False(t, ran.Load(), "a cancelled task ran")
				assert.Same(t, cause, f.Err(), "after Close")
			})
		})
	}
}

// With a context already done, the function never runs, from outside the
// pool or from one of its tasks; the future is done, Err is the cause.
func TestSubmitContextWithADoneContextRunsNothing(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	cause := errors.New("too late")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	for _, onWorker := range []bool{false, true} {
		name := "from outside"
		if onWorker {
			name = "on a worker"
		}
		t.Run(name, func(t *testing.T) {
			watchdog(t, func() {
				var ran atomic.Bool
				var f *pool.Future[string]
				submit := func() {
					f = pool.SubmitContext(ctx, p, func() string { ran.Store(true); return "ran" })
					select {
					case <-f.Done():
					default:
						t.Error("Done not closed on return")
					}
					assert.Same(t, cause, f.Err())
					assert.Empty(t, f.Wait())
				}
				if onWorker {
					p.Run(submit)
				} else {
					submit()
				}
				p.Run(func() {}) // the job dropped or not, the pool goes on
				assert.False(t, ran.Load())
				v, ok := f.TryGet()
				assert.True(t, ok)
				assert.Empty(t, v)
			})
		})
	}
}

// A context cancelled after the function started changes nothing: its
// result is kept, Err is nil; so for a context that is never cancelled,
// and for Submit's futures, a panic included (Wait re-raises it, Err does
// not).
func TestSubmitContextCancelledAfterStartKeepsTheResult(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		ctx, cancel := context.WithCancelCause(context.Background())
		started, release := make(chan struct{}), make(chan struct{})
		f := pool.SubmitContext(ctx, p, func() int {
			close(started)
			<-release
			return 42
		})
		<-started
		cancel(errors.New("too late to matter"))
		time.Sleep(time.Millisecond) // the AfterFunc callback has run, and lost
		_, ok := f.TryGet()
		assert.False(t, ok, "a running task's future completed at the cancellation")
		close(release)
		assert.NoError(t, f.Err())
		assert.Equal(t, 42, f.Wait())

		g := pool.SubmitContext(context.Background(), p, func() int { return 1 })
		assert.NoError(t, g.Err())
		assert.Equal(t, 1, g.Wait())

		h := pool.Submit(p, func() int { return 2 })
		assert.NoError(t, h.Err())
		assert.Equal(t, 2, h.Wait())

		for _, submit := range []func(func() int) *pool.Future[int]{
			func(fn func() int) *pool.Future[int] { return pool.Submit(p, fn) },
			func(fn func() int) *pool.Future[int] { return pool.SubmitContext(t.Context(), p, fn) },
		} {
			e := submit(func() int { panic("boom") })
			assert.NoError(t, e.Err(), "a panic is Wait's")
			var pe *pool.PanicError
			require.ErrorAs(t, asError(recoverValue(func() { e.Wait() })), &pe)
			assert.Equal(t, "boom", pe.Value)
		}
	})
}

// asError is v as an error, or nil.
func asError(v any) error {
	err, _ := v.(error)
	return err
}

// SubmitContext's registration with the context (context.AfterFunc) is
// withdrawn once the task starts, and when a closed pool refuses the
// task: nothing stays registered with a context that outlives the
// future. A cancelled task's registration has fired; nothing to withdraw.
func TestSubmitContextWithdrawsItsRegistration(t *testing.T) {
	cases := []struct {
		name        string
		run         func(t *testing.T, p *pool.Pool, ctx *registryCtx)
		wantStopped int32
	}{
		{"the task ran", func(t *testing.T, p *pool.Pool, ctx *registryCtx) {
			assert.Equal(t, 1, pool.SubmitContext(ctx, p, func() int { return 1 }).Wait())
		}, 1},
		{"the task was cancelled", func(t *testing.T, p *pool.Pool, ctx *registryCtx) {
			busy, release := holdOnlyWorker(t, p)
			f := pool.SubmitContext(ctx, p, func() int { return 1 })
			ctx.cancel()
			select {
			case <-f.Done():
			case <-time.After(cancelBound):
				t.Fatal("Done not closed after the cancellation while the worker is busy")
			}
			assert.ErrorIs(t, f.Err(), context.Canceled)
			release()
			busy.Wait()
			p.Run(func() {}) // the worker has dropped the cancelled task
		}, 0},
		{"the pool was closed", func(t *testing.T, p *pool.Pool, ctx *registryCtx) {
			require.NoError(t, p.Close())
			err := asError(recoverValue(func() { pool.SubmitContext(ctx, p, func() int { return 1 }) }))
			assert.ErrorIs(t, err, pool.ErrClosed)
			assert.ErrorContains(t, err, "pool.SubmitContext")
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newClosablePool(t, onlyWorker...)
			watchdog(t, func() {
				inner, cancel := context.WithCancel(context.Background())
				defer cancel()
				ctx := &registryCtx{Context: inner, cancel: cancel}
				c.run(t, p, ctx)
				assert.EqualValues(t, 1, ctx.registered.Load())
				assert.Equal(t, c.wantStopped, ctx.stopped.Load())
			})
		})
	}
}

// registryCtx counts the context.AfterFunc registrations made with it and
// their withdrawals (context.AfterFunc calls a context's own AfterFunc
// method when it has one).
type registryCtx struct {
	context.Context
	cancel              context.CancelFunc
	registered, stopped atomic.Int32
}

// Value hides the context.WithCancel inside, which context.AfterFunc
// would otherwise register with directly, bypassing AfterFunc below.
func (c *registryCtx) Value(any) any { return nil }

func (c *registryCtx) AfterFunc(f func()) func() bool {
	c.registered.Add(1)
	stop := context.AfterFunc(c.Context, f)
	return func() bool {
		c.stopped.Add(1)
		return stop()
	}
}

// Futures cancelled at random moments while Close drains the pool: Close
// returns, every future is done by then, and each either ran its function
// once, with Err nil and its result, or was cancelled before it started:
// Err the cause, the zero value, and the function never ran.
func TestSubmitContextCancelledWhileCloseRuns(t *testing.T) {
	for round := range 3 {
		t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
			p := newClosablePool(t, pool.WithWorkers(2))
			watchdog(t, func() {
				const n = 300
				futs := make([]*pool.Future[int], n)
				ran := make([]atomic.Int32, n)
				causes := make([]error, n)
				cancels := make([]context.CancelCauseFunc, n)
				for i := range n {
					ctx, cancel := context.WithCancelCause(context.Background())
					causes[i], cancels[i] = fmt.Errorf("cancel %d", i), cancel
					futs[i] = pool.SubmitContext(ctx, p, func() int {
						ran[i].Add(1)
						time.Sleep(10 * time.Microsecond)
						return i + 1
					})
				}
				var wg sync.WaitGroup
				wg.Go(func() {
					for _, i := range rand.Perm(n) {
						cancels[i](causes[i])
						if i%16 == 0 {
							time.Sleep(20 * time.Microsecond)
						}
					}
				})
				require.NoError(t, p.Close())
				wg.Wait()
				cancelled := 0
				for i, f := range futs {
					v, ok := f.TryGet()
					require.True(t, ok, "future %d not done after Close", i)
					switch err := f.Err(); err {
					case nil:
						assert.EqualValues(t, 1, ran[i].Load(), "future %d ran", i)
						assert.Equal(t, i+1, v)
					default:
						cancelled++
						assert.Same(t, causes[i], err, "future %d", i)
						assert.Zero(t, ran[i].Load(), "future %d was cancelled and ran", i)
						assert.Zero(t, v)
					}
				}
				t.Logf("%d of %d cancelled before they started", cancelled, n)
			})
		})
	}
}

// SubmitContext panics naming the call on a nil context, as NewGroup
// does, and on a nil function, as Submit does.
func TestSubmitContextNilArguments(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	var nilCtx context.Context
	assert.PanicsWithValue(t, "pool.SubmitContext: nil context", func() {
		pool.SubmitContext(nilCtx, p, func() int { return 0 })
	})
	assert.PanicsWithValue(t, "pool.SubmitContext: nil function", func() {
		pool.SubmitContext[int](context.Background(), p, nil)
	})
}

// SubmitContext inside a testing/synctest bubble, with a context the
// bubble made, on a pool made outside it: the workers check the context
// at every task start, and may not receive from a channel the bubble made
// (a fatal error that ends the test binary), so there they ask the
// context for its cause instead. The futures are cancelled by the
// bubble's goroutine once a tenth of them have been waited for (a task
// on an outside worker may not cancel it: that closes the bubble's
// channel): each either ran once with its result, or never ran and
// reports the cause.
func TestSubmitContextInASynctestBubble(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2)) // made outside any bubble
	watchdog(t, func() {
		for range 3 {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				cause := errors.New("enough")
				const n = 1000
				futs := make([]*pool.Future[int], n)
				ran := make([]atomic.Int32, n)
				for i := range n {
					futs[i] = pool.SubmitContext(ctx, p, func() int {
						ran[i].Add(1)
						return i + 1
					})
				}
				for i, f := range futs {
					if i == n/10 {
						cancel(cause)
					}
					v := f.Wait()
					if err := f.Err(); err != nil {
						assert.Same(t, cause, err)
						assert.Zero(t, ran[i].Load(), "future %d was cancelled and ran", i)
						assert.Zero(t, v)
					} else {
						assert.EqualValues(t, 1, ran[i].Load(), "future %d", i)
						assert.Equal(t, i+1, v)
					}
				}
			})
		}
	})
}
