package pool_test

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

func newPool(t testing.TB, opts ...pool.Option) *pool.Pool {
	t.Helper()
	p := newClosablePool(t, opts...)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

// needTwoPs gives a test of parallel behaviour two Ps (see
// testutil.NeedTwoPs): at one P a steal within the test's few
// milliseconds would be chance (GOMAXPROCS=1 used to fail
// TestBulkDequeStealsHalf and TestSpawnManySpreadsOverWorkers that way).
func needTwoPs(t *testing.T) { testutil.NeedTwoPs(t) }

func TestNewRejectsBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []pool.Option
		want string
	}{
		{"zero workers", []pool.Option{pool.WithWorkers(0)}, "pool.WithWorkers(0)"},
		{"negative workers", []pool.Option{pool.WithWorkers(-3)}, "pool.WithWorkers(-3)"},
		{"absurd workers", []pool.Option{pool.WithWorkers(1 << 20)}, "pool.WithWorkers(1048576)"},
		{"nil option", []pool.Option{nil}, "nil Option"},
		{"negative spares", []pool.Option{pool.WithSpares(-1)}, "pool.WithSpares(-1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := pool.New(tc.opts...)
			require.Error(t, err)
			assert.Nil(t, p)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestDefaults(t *testing.T) {
	p := newPool(t)
	assert.Equal(t, runtime.GOMAXPROCS(0), p.Workers())
	assert.Equal(t, -1, pool.WorkerIndex())
	assert.Same(t, pool.Default(), pool.Current())
	assert.Same(t, pool.Default(), pool.Default())
}

func TestRunOnWorker(t *testing.T) {
	watchdog(t, func() {
		p := newPool(t, pool.WithWorkers(3), pool.WithGuests(4))
		var idx int
		var cur *pool.Pool
		// From outside, the call runs on the caller as a guest: an index
		// past the workers'.
		p.Run(func() { idx, cur = pool.WorkerIndex(), pool.Current() })
		assert.GreaterOrEqual(t, idx, 3)
		assert.Less(t, idx, p.MaxWorkers())
		assert.Same(t, p, cur)
		// From a task on a worker, in place.
		inner := pool.Submit(p, func() int {
			var in int
			p.Run(func() { in = pool.WorkerIndex() })
			return in
		}).Wait()
		assert.Less(t, inner, 3)
	})
}

func TestJoinRunsBoth(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := newPool(t, pool.WithWorkers(workers))
		watchdog(t, func() {
			var a, b int
			p.Join(func() { a = 1 }, func() { b = 2 }) // from outside the pool
			assert.Equal(t, [2]int{1, 2}, [2]int{a, b})
			var got int
			p.Run(func() { got = sum(0, 10000) }) // nested joins on workers
			assert.Equal(t, 10000*9999/2, got)
		})
	}
}

// sum adds lo..hi-1 by recursive halving, a join at every level.
func sum(lo, hi int) int {
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	var a, b int
	pool.Join(func() { a = sum(lo, mid) }, func() { b = sum(mid, hi) })
	return a + b
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	pool.Join(func() { a = fib(n - 1) }, func() { b = fib(n - 2) })
	return a + b
}

// From a goroutine that is no worker, pool.Join runs a on the caller and
// offers b to pool.Default(); nested joins in b run on the pool.
func TestPackageJoinOffPoolUsesDefault(t *testing.T) {
	watchdog(t, func() {
		caller := goroutineHeader()
		var ids [2]string
		var idx [2]int
		var nested int
		pool.Join(func() { ids[0], idx[0] = goroutineHeader(), pool.WorkerIndex() }, func() {
			ids[1], idx[1] = goroutineHeader(), pool.WorkerIndex()
			nested = fib(15)
		})
		assert.Equal(t, caller, ids[0], "a runs on the calling goroutine")
		assert.GreaterOrEqual(t, idx[0], pool.Default().Workers(), "a runs as a guest of the default pool")
		assert.GreaterOrEqual(t, idx[1], 0)
		assert.Equal(t, 610, nested)
		assert.Equal(t, 6765, fib(20))
	})
}

var burnSink atomic.Int64

// b of an off-pool join runs exactly once whether a worker or the caller
// takes it, and a's panic wins over b's.
func TestPackageJoinOffPoolRunsBOnce(t *testing.T) {
	watchdog(t, func() {
		for i := range 2000 {
			var runs atomic.Int32
			pool.Join(func() {
				if i%2 == 0 {
					burnSink.Add(int64(testutil.Burn(i % 500)))
				}
			}, func() { runs.Add(1) })
			require.Equal(t, int32(1), runs.Load(), "round %d", i)
		}
		v := recoverValue(func() { pool.Join(func() { panic("a") }, func() { panic("b") }) })
		pe, ok := v.(*pool.PanicError)
		require.True(t, ok, "%T %v", v, v)
		assert.Equal(t, "a", pe.Value)
	})
}

func TestScopeWaitsForAllSpawned(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		var n atomic.Int64
		var spawn func(s *pool.Scope, depth int)
		spawn = func(s *pool.Scope, depth int) {
			n.Add(1)
			if depth == 0 {
				return
			}
			for range 3 {
				s.Spawn(func(s *pool.Scope) { spawn(s, depth-1) })
			}
		}
		p.Scope(func(s *pool.Scope) { spawn(s, 6) })
		assert.EqualValues(t, (729*3-1)/2, n.Load()) // 1+3+...+3^6
	})
}

func TestScopeSpawnFromOtherGoroutine(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		var n atomic.Int64
		p.Scope(func(s *pool.Scope) {
			var wg sync.WaitGroup
			for range 10 {
				wg.Add(1)
				go func() { // not a worker: the spawn is injected, still part of s
					defer wg.Done()
					s.Spawn(func(*pool.Scope) { n.Add(1) })
				}()
			}
			wg.Wait()
		})
		assert.EqualValues(t, 10, n.Load())
	})
}

func TestSpawnDetachedAndCloseWaits(t *testing.T) {
	watchdog(t, func() {
		p, err := pool.New(pool.WithWorkers(2))
		require.NoError(t, err)
		var n atomic.Int64
		for range 100 {
			p.Spawn(func() {
				n.Add(1)
				pool.Spawn(func() { n.Add(1) }) // from a worker: same pool
			})
		}
		require.NoError(t, p.Close())
		assert.EqualValues(t, 200, n.Load())
	})
}

func TestClosedPoolPanicsWithErrClosed(t *testing.T) {
	p, err := pool.New(pool.WithWorkers(1))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "Close is idempotent")
	for name, call := range map[string]func(){
		"pool.Pool.Run":   func() { p.Run(func() {}) },
		"pool.Pool.Join":  func() { p.Join(func() {}, func() {}) },
		"pool.Pool.Scope": func() { p.Scope(func(*pool.Scope) {}) },
		"pool.Pool.Spawn": func() { p.Spawn(func() {}) },
	} {
		t.Run(name, func(t *testing.T) {
			v := recoverValue(call)
			err, ok := v.(error)
			require.True(t, ok, "panic value %v is not an error", v)
			assert.ErrorIs(t, err, pool.ErrClosed)
			assert.Contains(t, err.Error(), name)
		})
	}
}

func TestCloseFromOwnWorkerReturnsError(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	watchdog(t, func() {
		var err error
		p.Run(func() { err = p.Close() })
		assert.ErrorIs(t, err, pool.ErrCloseFromWorker)
		ran := false
		p.Run(func() { ran = true }) // still open
		assert.True(t, ran)
	})
}

func TestNilFunctionsPanicNamingTheCall(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	for name, call := range map[string]func(){
		"pool.Pool.Run":   func() { p.Run(nil) },
		"pool.Pool.Join":  func() { p.Join(func() {}, nil) },
		"pool.Pool.Scope": func() { p.Scope(nil) },
		"pool.Pool.Spawn": func() { p.Spawn(nil) },
		"pool.Join":       func() { pool.Join(nil, func() {}) },
		"pool.Spawn":      func() { pool.Spawn(nil) },
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, name+": nil function", recoverValue(call))
		})
	}
}

func TestStats(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2), pool.WithGuests(1))
	watchdog(t, func() {
		p.Run(func() { fib(18) })
		s := p.Stats()
		assert.Equal(t, 2, s.Workers)
		assert.Equal(t, uint64(1), s.GuestCalls, "the call ran on its caller")
	})
}

func recoverValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

var errBoom = errors.New("boom")
