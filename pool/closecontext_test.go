package pool_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// A deadline bounds CloseContext's wait, not the work: past it, the pool
// refuses calls but still runs the task it was given, and a later Close
// waits for that and closes it.
func TestCloseContextReturnsAtTheDeadlineAndThePoolGoesOnClosing(t *testing.T) {
	// The raise to 2 Ps comes before the snapshot, and the default pool,
	// if a test before this one made it at 1 P, grows to follow it now:
	// its new worker is no goroutine of this test.
	testutil.NeedProcs(t, 2)
	pool.ReadGOMAXPROCS(pool.Default())
	before := goleak.IgnoreCurrent()
	p := newClosablePool(t, pool.WithWorkers(2), pool.WithSpares(0))
	release := make(chan struct{})
	ran := make(chan struct{})
	p.Spawn(func() { <-release; close(ran) })
	cause := errors.New("shutdown budget spent")
	ctx, cancel := context.WithTimeoutCause(context.Background(), 20*time.Millisecond, cause)
	defer cancel()
	watchdog(t, func() {
		err := p.CloseContext(ctx)
		require.Error(t, err)
		assert.ErrorIs(t, err, cause)
		assert.Panics(t, func() { p.Run(func() {}) }, "a closing pool takes no call")
		close(release)
		require.NoError(t, p.Close(), "Close waits for the close begun")
		select {
		case <-ran:
		default:
			t.Error("the spawned task did not run before Close returned")
		}
	})
	goleak.VerifyNone(t, before) // the goroutine that finished the close is gone
}

// Called from a worker of another pool, CloseContext keeps that worker
// serving its own pool while it waits.
func TestCloseContextFromAnotherPoolsWorkerServesIt(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(1), pool.WithSpares(0))
	release := make(chan struct{})
	p.Spawn(func() { <-release })
	caller := newPool(t, pool.WithWorkers(1), pool.WithSpares(0), pool.WithGuests(0)) // Run runs on its worker
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	watchdog(t, func() {
		var err error
		served := make(chan struct{})
		caller.Run(func() {
			caller.Spawn(func() { close(served) })
			err = p.CloseContext(ctx)
			select {
			case <-served:
			default:
				t.Error("the caller's pool ran nothing while its worker waited")
			}
		})
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		close(release)
		require.NoError(t, p.Close())
	})
}

// Without a deadline, or with one the pool meets, CloseContext is Close.
func TestCloseContextOfADrainedPoolIsClose(t *testing.T) {
	for _, ctx := range []context.Context{context.Background(), t.Context()} {
		p := newClosablePool(t, pool.WithWorkers(2))
		done := make(chan struct{})
		p.Spawn(func() { time.Sleep(time.Millisecond); close(done) })
		watchdog(t, func() {
			require.NoError(t, p.CloseContext(ctx))
			select {
			case <-done:
			default:
				t.Error("CloseContext returned before the task ran")
			}
			require.NoError(t, p.CloseContext(ctx), "idempotent")
		})
	}
}

// CloseContext refuses what Close refuses, at once, even with a context
// already done; a nil context panics naming the call.
func TestCloseContextRefusesAsCloseDoes(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, pool.Default().CloseContext(done), pool.ErrCloseDefault)
	p := newPool(t, pool.WithWorkers(1))
	var err error
	p.Run(func() { err = p.CloseContext(done) })
	assert.ErrorIs(t, err, pool.ErrCloseFromWorker)
	assert.PanicsWithValue(t, "pool.Pool.CloseContext: nil Context", func() {
		//lint:ignore SA1012 the bad input under test
		p.CloseContext(nil)
	})
}
