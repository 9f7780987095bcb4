package pool_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// closeNowWhile calls p.CloseNow on a goroutine of its own, waits until
// it has begun dropping, runs then, and returns CloseNow's result.
func closeNowWhile(t *testing.T, p *pool.Pool, then func()) error {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- p.CloseNow() }()
	for !pool.Dropping(p) {
		time.Sleep(100 * time.Microsecond)
	}
	then()
	return <-closed
}

// CloseNow drops the detached tasks and futures nobody has started,
// including those a running task queues meanwhile, and lets the task under
// way finish.
func TestCloseNowDropsTheDetachedWorkNotStarted(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(1), pool.WithSpares(0), pool.WithGuests(0))
	release, started := make(chan struct{}), make(chan struct{})
	var ran atomic.Int64
	p.Spawn(func() {
		close(started)
		<-release
		ran.Add(1)
		p.Spawn(func() { ran.Add(100) }) // queued while closing: dropped too
	})
	<-started
	for range 50 {
		p.Spawn(func() { ran.Add(100) })
	}
	var futures []*pool.Future[int]
	for range 10 {
		futures = append(futures, pool.Submit(p, func() int { ran.Add(100); return 1 }))
		futures = append(futures, pool.SubmitContext(context.Background(), p, func() int { ran.Add(100); return 1 }))
	}
	watchdog(t, func() {
		require.NoError(t, closeNowWhile(t, p, func() { close(release) }))
		assert.Equal(t, int64(1), ran.Load(), "only the task under way ran")
		for i, f := range futures {
			select {
			case <-f.Done():
			default:
				t.Fatalf("future %d is not done after CloseNow", i)
			}
			assert.ErrorIs(t, f.Err(), pool.ErrClosed, "future %d", i)
			assert.Zero(t, f.Wait(), "future %d", i)
			v, ok := f.TryGet()
			assert.True(t, ok)
			assert.Zero(t, v)
		}
	})
}

// A future whose task started before CloseNow keeps its result, and a
// SubmitContext future cancelled before CloseNow keeps its context's cause.
func TestCloseNowKeepsWhatWasDecided(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(1), pool.WithSpares(0), pool.WithGuests(0))
	release, started := make(chan struct{}), make(chan struct{})
	running := pool.Submit(p, func() int { close(started); <-release; return 7 })
	<-started
	cause := errors.New("the caller left")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancelled := pool.SubmitContext(ctx, p, func() int { return 1 })
	cancel(cause)
	<-cancelled.Done()
	watchdog(t, func() {
		require.NoError(t, closeNowWhile(t, p, func() { close(release) }))
		assert.Equal(t, 7, running.Wait())
		assert.NoError(t, running.Err())
		assert.ErrorIs(t, cancelled.Err(), cause)
		assert.NotErrorIs(t, cancelled.Err(), pool.ErrClosed)
	})
}

// From the pool's own worker, and on the default pool, CloseNow does what
// Close does there, returns its error, and drops nothing.
func TestCloseNowThatCannotCloseDropsNothing(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(1))
	var err error
	p.Run(func() { err = p.CloseNow() })
	assert.ErrorIs(t, err, pool.ErrCloseFromWorker)
	assert.Equal(t, 5, pool.Submit(p, func() int { return 5 }).Wait(), "the pool still runs tasks")

	assert.ErrorIs(t, pool.Default().CloseNow(), pool.ErrCloseDefault)
	assert.False(t, pool.Dropping(pool.Default()))
	assert.Equal(t, 6, pool.Submit(pool.Default(), func() int { return 6 }).Wait())
	require.NoError(t, p.Close())
}

// Futures submitted while CloseNow runs each end one way: done when it
// returns, with their result (the task ran) or dropped, never lost.
func TestCloseNowRacingWithSubmitsLosesNoFuture(t *testing.T) {
	for round := range 20 {
		p := newClosablePool(t, pool.WithWorkers(2))
		var (
			mu      sync.Mutex
			futures []*pool.Future[int]
			ran     atomic.Int64
			wg      sync.WaitGroup
		)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { _ = recover() }() // Submit on the closed pool panics
				for i := 0; ; i++ {
					var f *pool.Future[int]
					if i%2 == 0 {
						f = pool.Submit(p, func() int { ran.Add(1); return g + 1 })
					} else {
						f = pool.SubmitContext(context.Background(), p, func() int { ran.Add(1); return g + 1 })
					}
					mu.Lock()
					futures = append(futures, f)
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Millisecond)
		watchdog(t, func() {
			require.NoError(t, p.CloseNow())
			wg.Wait()
		})
		var dropped int64
		for _, f := range futures {
			v, ok := f.TryGet()
			require.True(t, ok, "round %d: a future is not done after CloseNow", round)
			if f.Err() != nil {
				require.ErrorIs(t, f.Err(), pool.ErrClosed)
				require.Zero(t, v)
				dropped++
			} else {
				require.NotZero(t, v)
			}
		}
		require.Equal(t, int64(len(futures)), ran.Load()+dropped, "round %d", round)
	}
}
