package pool_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// useDefault makes p the default pool for the rest of the test, then
// gives the default back.
func useDefault(t *testing.T, p *pool.Pool) {
	old := pool.Default()
	pool.SetDefault(p)
	t.Cleanup(func() { pool.SetDefault(old) })
}

// Every call that runs outside a pool runs on the pool given to
// SetDefault, which cannot be closed while it is the default.
func TestSetDefaultRoutesCallsFromOutsideAPool(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	useDefault(t, p)
	watchdog(t, func() {
		require.Same(t, p, pool.Default())
		require.Same(t, p, pool.Current(), "off-pool Current")
		on := func(name string) func() {
			return func() { assert.Same(t, p, pool.Current(), name) }
		}
		pool.Default().Run(on("Default().Run"))
		done := make(chan struct{})
		pool.Spawn(func() { on("pool.Spawn")(); close(done) })
		<-done
		var g pool.Group
		g.Go(func() error { on("Group.Go")(); return nil })
		require.NoError(t, g.Wait())
		cg, _ := pool.NewGroup(context.Background())
		cg.Go(func() error { on("NewGroup's Go")(); return nil })
		require.NoError(t, cg.Wait())
		assert.ErrorIs(t, p.Close(), pool.ErrCloseDefault, "Close of the default")
	})
}

// Once another pool is the default, the one before can be closed (one
// given to SetDefault; the built-in pool is never closed).
func TestAPoolNoLongerTheDefaultCanBeClosed(t *testing.T) {
	p, err := pool.New(pool.WithWorkers(1))
	require.NoError(t, err)
	old := pool.Default()
	pool.SetDefault(p)
	pool.SetDefault(old)
	require.NoError(t, p.Close())
	assert.ErrorIs(t, old.Close(), pool.ErrCloseDefault)
}

func TestSetDefaultRefusesNilAndClosedPools(t *testing.T) {
	assert.PanicsWithValue(t, "pool.SetDefault: nil *pool.Pool", func() { pool.SetDefault(nil) })
	p, err := pool.New(pool.WithWorkers(1))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	v := recoverValue(func() { pool.SetDefault(p) })
	err, ok := v.(error)
	require.True(t, ok, "panic value %v", v)
	assert.True(t, errors.Is(err, pool.ErrClosed), "%v", err)
	assert.Contains(t, err.Error(), "pool.SetDefault")
}

// Calls from outside any pool racing with SetDefault run whole on one
// default or the other: none is lost or run twice, none hangs.
func TestCallsRacingWithSetDefaultLoseNothing(t *testing.T) {
	p1 := newPool(t, pool.WithWorkers(2))
	p2 := newPool(t, pool.WithWorkers(1))
	useDefault(t, p1)
	watchdog(t, func() {
		const callers, calls = 4, 200
		var ran atomic.Int64
		stop := make(chan struct{})
		var flips sync.WaitGroup
		flips.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				pool.SetDefault([]*pool.Pool{p1, p2}[i%2])
			}
		})
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				for range calls {
					var g pool.Group
					for range 3 {
						g.Go(func() error { ran.Add(1); return nil })
					}
					var a, b int
					pool.Join(func() { a = 1 }, func() { b = 1 })
					ran.Add(int64(a + b))
					if err := g.Wait(); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		close(stop)
		flips.Wait()
		assert.EqualValues(t, callers*calls*5, ran.Load())
	})
}

// pool's errors are its own values; a refused call's error matches the
// engine's too, for code that sees both.
func TestPoolErrorsAreThePoolsOwn(t *testing.T) {
	p, err := pool.New(pool.WithWorkers(1))
	require.NoError(t, err)
	var fromWorker error
	p.Run(func() { fromWorker = p.Close() })
	assert.Same(t, pool.ErrCloseFromWorker, fromWorker)
	require.NoError(t, p.Close())
	v := recoverValue(func() { p.Run(func() {}) })
	refused, ok := v.(error)
	require.True(t, ok, "panic value %v", v)
	assert.ErrorIs(t, refused, pool.ErrClosed)
	assert.ErrorIs(t, refused, runtime.ErrClosed)
	assert.Equal(t, "pool.Pool.Run: spindle: pool is closed", refused.Error())
	assert.NotSame(t, runtime.ErrClosed, pool.ErrClosed)
}
