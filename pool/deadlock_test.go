package pool_test

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// The tests in this file would hang, not fail, if the pool deadlocked; the
// watchdog turns that into a failure with stacks.

func TestOneWorkerNestedScopeJoinRun(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	watchdog(t, func() {
		var n atomic.Int64
		p.Scope(func(s *pool.Scope) {
			s.Spawn(func(s *pool.Scope) {
				p.Join(func() {
					p.Run(func() {
						p.Scope(func(s2 *pool.Scope) {
							s2.Spawn(func(*pool.Scope) { n.Add(1) })
							s.Spawn(func(*pool.Scope) { n.Add(1) })
						})
					})
				}, func() { n.Add(1) })
			})
		})
		assert.EqualValues(t, 3, n.Load())
	})
}

func TestPoolsCallIntoEachOther(t *testing.T) {
	a := newPool(t, pool.WithWorkers(1))
	b := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		var n atomic.Int64
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				from, to := a, b
				if i%2 == 1 {
					from, to = b, a
				}
				from.Run(func() {
					to.Join(func() {
						from.Run(func() { n.Add(1) })
					}, func() {
						assert.Same(t, to, pool.Current())
						n.Add(1)
					})
				})
			}()
		}
		wg.Wait()
		assert.EqualValues(t, 16, n.Load())
	})
}

func TestManyGoroutinesRunAtOnce(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		var n atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				p.Run(func() { n.Add(int64(sum(0, 100))) })
			}()
		}
		close(start)
		wg.Wait()
		assert.EqualValues(t, 64*4950, n.Load())
	})
}

func TestMoreWorkersThanGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	p := newPool(t, pool.WithWorkers(4))
	watchdog(t, func() {
		var got int
		p.Run(func() { got = fib(20) })
		assert.Equal(t, 6765, got)
		var n atomic.Int64
		p.Scope(func(s *pool.Scope) {
			for range 100 {
				s.Spawn(func(*pool.Scope) { n.Add(1) })
			}
		})
		assert.EqualValues(t, 100, n.Load())
	})
}

func TestDeepJoinChain(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		var n atomic.Int64
		var chain func(depth int)
		chain = func(depth int) {
			if depth == 0 {
				return
			}
			p.Join(func() { chain(depth - 1) }, func() { n.Add(1) })
		}
		p.Run(func() { chain(20000) })
		assert.EqualValues(t, 20000, n.Load())
	})
}

func TestCloseLeavesNoGoroutineOrThread(t *testing.T) {
	watchdog(t, func() {
		// Warm up what the runtime starts once (timers, the default pool is
		// not involved).
		p0, err := pool.New(pool.WithWorkers(2))
		require.NoError(t, err)
		require.NoError(t, p0.Close())

		goroutines, threads := runtime.NumGoroutine(), threadCount()
		for range 20 {
			p, err := pool.New(pool.WithWorkers(3))
			require.NoError(t, err)
			p.Run(func() { fib(10) })
			require.NoError(t, p.Close())
		}
		// Worker goroutines signal Close just before they return; give the
		// last of them a moment to be gone. Not a duration assertion: the
		// counts are what is checked.
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		assert.LessOrEqual(t, runtime.NumGoroutine(), goroutines)
		if threads >= 0 {
			for threadCount() > threads && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			assert.LessOrEqual(t, threadCount(), threads, "worker threads must exit with Close")
		}
	})
}

// threadCount is the number of OS threads of the process (Linux), or -1.
func threadCount() int {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return -1
	}
	return len(entries)
}
