package pool_test

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// futureFib computes fib(n) with a future at every level: submit fib(n-1),
// compute fib(n-2), wait.
func futureFib(p *pool.Pool, n int) int {
	if n < 2 {
		return n
	}
	f := pool.Submit(p, func() int { return futureFib(p, n-1) })
	b := futureFib(p, n-2)
	return f.Wait() + b
}

func TestSubmitFromOutside(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := newPool(t, pool.WithWorkers(workers))
		watchdog(t, func() {
			f := pool.Submit(p, func() string { return "hello" })
			assert.Equal(t, "hello", f.Wait())
			assert.Equal(t, "hello", f.Wait(), "a second Wait returns the same result")
			v, ok := f.TryGet()
			assert.True(t, ok)
			assert.Equal(t, "hello", v)
			select {
			case <-f.Done():
			default:
				t.Error("Done not closed after Wait returned")
			}

			idx := pool.Submit(p, pool.WorkerIndex).Wait()
			assert.GreaterOrEqual(t, idx, 0, "the task runs on a worker")
			assert.Less(t, idx, workers)
			assert.Same(t, p, pool.Submit(p, pool.Current).Wait())
		})
	}
}

func TestSubmitFromInside(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := newPool(t, pool.WithWorkers(workers))
		watchdog(t, func() {
			var got int
			p.Run(func() { got = futureFib(p, 18) })
			assert.Equal(t, 2584, got)
			// Nested waits from the outside too: the root is off-pool.
			assert.Equal(t, 610, pool.Submit(p, func() int { return futureFib(p, 15) }).Wait())
		})
	}
}

func TestManyFuturesWaitedInAnyOrder(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		const n = 500
		rng := rand.New(rand.NewPCG(1, 2))
		check := func(futs []*pool.Future[int], order []int) {
			for _, i := range order {
				require.Equal(t, i*i, futs[i].Wait())
			}
		}
		submit := func() []*pool.Future[int] {
			futs := make([]*pool.Future[int], n)
			for i := range futs {
				futs[i] = pool.Submit(p, func() int {
					if i%50 == 0 {
						time.Sleep(100 * time.Microsecond) // some finish late
					}
					return i * i
				})
			}
			return futs
		}

		// From outside: in reverse, then shuffled, then by several
		// goroutines at once, each in its own order.
		futs := submit()
		reverse := make([]int, n)
		for i := range reverse {
			reverse[i] = n - 1 - i
		}
		check(futs, reverse)
		check(futs, rng.Perm(n))
		futs = submit()
		var wg sync.WaitGroup
		for g := range 4 {
			order := rand.New(rand.NewPCG(uint64(g), 7)).Perm(n)
			wg.Go(func() { check(futs, order) })
		}
		wg.Wait()

		// From a task that submitted them: shuffled.
		order := rng.Perm(n)
		p.Run(func() { check(submit(), order) })
	})
}

func TestFanOutOfTenThousandFutures(t *testing.T) {
	for _, workers := range []int{1, 2} {
		p := newPool(t, pool.WithWorkers(workers))
		watchdog(t, func() {
			const n = 10000
			var ran atomic.Int64
			var sum int64
			p.Run(func() {
				futs := make([]*pool.Future[int64], n)
				for i := range futs {
					futs[i] = pool.Submit(p, func() int64 { ran.Add(1); return int64(i) })
				}
				for _, f := range futs {
					sum += f.Wait()
				}
			})
			assert.EqualValues(t, n, ran.Load())
			assert.EqualValues(t, n*(n-1)/2, sum)
		})
	}
}

func TestFuturePanics(t *testing.T) {
	var handled atomic.Int64
	p := newPool(t, pool.WithWorkers(2), pool.WithPanicHandler(func(any) { handled.Add(1) }))
	watchdog(t, func() {
		f := pool.Submit(p, func() int { panicsWith(errBoom)(); return 1 })
		pe := catchPanicError(t, func() { f.Wait() })
		assert.Equal(t, errBoom, pe.Value)
		assert.ErrorIs(t, pe, errBoom)
		assert.Contains(t, string(pe.Stack), "panicsWith")
		assert.Same(t, pe, catchPanicError(t, func() { f.Wait() }), "every Wait re-panics with the same error")
		assert.Same(t, pe, catchPanicError(t, func() { f.TryGet() }), "TryGet of a finished task re-panics")
		<-f.Done() // closed for a panicked task too

		// Waited for inside the pool: the waiting task gets the
		// *PanicError, here re-raised by Run.
		pe = catchPanicError(t, func() {
			p.Run(func() { pool.Submit(p, func() int { panic("inner") }).Wait() })
		})
		assert.Equal(t, "inner", pe.Value)

		// A panic nobody waits for is kept in its future, not handed to
		// the panic handler.
		g := pool.Submit(p, func() struct{} { panic("unobserved") })
		<-g.Done()
		assert.EqualValues(t, 0, handled.Load())

		assert.Equal(t, 3, pool.Submit(p, func() int { return 3 }).Wait(), "the pool stays usable")
	})
}

func TestFutureWaitAfterClose(t *testing.T) {
	watchdog(t, func() {
		p, err := pool.New(pool.WithWorkers(2))
		require.NoError(t, err)
		var futs []*pool.Future[int]
		for i := range 20 {
			futs = append(futs, pool.Submit(p, func() int {
				time.Sleep(time.Millisecond)
				return i
			}))
		}
		// Submitted by a task while Close drains: allowed, and waited for.
		var inner atomic.Pointer[pool.Future[int]]
		futs = append(futs, pool.Submit(p, func() int {
			time.Sleep(5 * time.Millisecond)
			inner.Store(pool.Submit(p, func() int { time.Sleep(time.Millisecond); return 100 }))
			return 20
		}))
		require.NoError(t, p.Close())

		for i, f := range futs {
			v, ok := f.TryGet()
			require.True(t, ok, "future %d not done after Close", i)
			assert.Equal(t, i, v)
			assert.Equal(t, i, f.Wait())
		}
		f := inner.Load()
		require.NotNil(t, f)
		v, ok := f.TryGet()
		assert.True(t, ok, "a future submitted during Close is done when Close returns")
		assert.Equal(t, 100, v)

		perr := recoverValue(func() { pool.Submit(p, func() int { return 0 }) })
		err, isErr := perr.(error)
		require.True(t, isErr, "panic value %v is not an error", perr)
		assert.ErrorIs(t, err, pool.ErrClosed)
		assert.Contains(t, err.Error(), "pool.Submit")
	})
}

func TestSubmitNilFunction(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	assert.Equal(t, "pool.Submit: nil function", recoverValue(func() { pool.Submit[int](p, nil) }))
}

func TestFutureSelectOnDone(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		gate := make(chan struct{})
		f := pool.Submit(p, func() int { <-gate; return 42 })
		done := f.Done()
		assert.Equal(t, done, f.Done(), "every caller gets the same channel")
		select {
		case <-done:
			t.Fatal("Done closed before the task finished")
		case <-time.After(5 * time.Millisecond):
		}
		v, ok := f.TryGet()
		assert.False(t, ok)
		assert.Zero(t, v)

		close(gate)
		select {
		case <-done:
		case <-time.After(watchdogLimit / 2):
			t.Fatal("Done not closed after the task finished")
		}
		v, ok = f.TryGet()
		assert.True(t, ok)
		assert.Equal(t, 42, v)

		// Done of a finished future, asked for the first time: closed.
		g := pool.Submit(p, func() int { return 1 })
		g.Wait()
		select {
		case <-g.Done():
		default:
			t.Error("Done of a finished future is not closed")
		}
	})
}

// TestManyWaitersOnOneFuture: several workers (each with its own latch)
// and goroutines (on the channel) wait on one future at the same time.
func TestManyWaitersOnOneFuture(t *testing.T) {
	p := newPool(t, pool.WithWorkers(4))
	watchdog(t, func() {
		for range 20 {
			var release atomic.Bool
			f := pool.Submit(p, func() int {
				for !release.Load() {
					time.Sleep(20 * time.Microsecond)
				}
				return 7
			})
			var sum atomic.Int64
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() { sum.Add(int64(f.Wait())) })
			}
			wg.Go(func() {
				// Three workers wait while the fourth runs f (or one of
				// them takes f from the injector and runs it itself).
				p.Scope(func(s *pool.Scope) {
					for range 3 {
						s.Spawn(func(*pool.Scope) { sum.Add(int64(f.Wait())) })
					}
				})
			})
			time.Sleep(200 * time.Microsecond)
			release.Store(true)
			wg.Wait()
			assert.EqualValues(t, 6*7, sum.Load())
		}
	})
}

// TestFutureAcrossPools: a worker waiting on another pool's future keeps
// serving its own pool, which the awaited task needs here (one worker
// each).
func TestFutureAcrossPools(t *testing.T) {
	a := newPool(t, pool.WithWorkers(1), pool.WithGuests(0)) // a.Run on a's worker
	b := newPool(t, pool.WithWorkers(1))
	watchdog(t, func() {
		var got int
		a.Run(func() {
			f := pool.Submit(b, func() int {
				// On b's only worker: a's only worker is waiting for us.
				return pool.Submit(a, func() int { return pool.WorkerIndex() + 10 }).Wait()
			})
			got = f.Wait()
		})
		assert.Equal(t, 10, got)
	})
}
