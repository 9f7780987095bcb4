package pool_test

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

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
	p := newPoolAtProcs(t, pool.WithWorkers(4))
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

// TestCloseLeavesNoGoroutineOrThread closes pools and checks that their
// worker goroutines are gone, and with workers locked to their threads
// (the default) that their threads are too. Unlocked workers' threads go
// back to the Go scheduler, which keeps them.
func TestCloseLeavesNoGoroutineOrThread(t *testing.T) {
	for _, locked := range []bool{true, false} {
		t.Run(fmt.Sprintf("locked=%v", locked), func(t *testing.T) { closeLeavesNothing(t, locked) })
	}
}

func closeLeavesNothing(t *testing.T, locked bool) {
	watchdog(t, func() {
		before := goleak.IgnoreCurrent()
		var tids sync.Map // OS thread ids that ran pool tasks
		for range 20 {
			// No guests: the scope runs on the workers, whose threads
			// the test follows.
			p, err := pool.New(pool.WithWorkers(3), pool.WithLockedThreads(locked), pool.WithGuests(0))
			require.NoError(t, err)
			p.Scope(func(s *pool.Scope) {
				for range 12 {
					s.Spawn(func(*pool.Scope) {
						noteWorkerThread(p, &tids)
						time.Sleep(100 * time.Microsecond) // let the other workers take some
					})
				}
			})
			require.NoError(t, p.Close())
		}
		// Worker goroutines signal Close just before they return:
		// goleak retries until the last of them is gone.
		goleak.VerifyNone(t, before)
		deadline := time.Now().Add(10 * time.Second)
		if !locked {
			return
		}
		// Every thread that ran a task on one of the pool's workers was
		// that worker's locked thread, which must have exited with its
		// goroutine.
		n := 0
		tids.Range(func(k, _ any) bool {
			n++
			tid := k.(int)
			if tid < 0 || tid == os.Getpid() {
				// Not Linux; or the process's main thread: a worker that
				// started on it cannot end it (Go parks the main thread for
				// good instead of exiting it), which happens once at most.
				return true
			}
			for threadAlive(tid) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			assert.False(t, threadAlive(tid), "worker thread %d still alive after Close", tid)
			return true
		})
		assert.GreaterOrEqual(t, n, 20)
	})
}

// TestSpawnerBlocksOnItsSpawn: a task spawns several tasks, then blocks
// until the last one runs. The others must be able to take every spawned
// task while the spawner's thread is blocked.
func TestSpawnerBlocksOnItsSpawn(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		for range 50 {
			done := make(chan struct{})
			p.Scope(func(s *pool.Scope) {
				for range 3 {
					s.Spawn(func(*pool.Scope) { time.Sleep(10 * time.Microsecond) })
				}
				s.Spawn(func(*pool.Scope) { close(done) })
				<-done // blocks this worker's thread
			})
		}
	})
}

// TestIdleWorkersGetNestedForks: with three workers, the inner fork of a
// nested join must reach the third worker even though the outer fork was
// still exposed when it was pushed. Every leaf sleeps long enough that all
// three overlap when they can run in parallel.
func TestIdleWorkersGetNestedForks(t *testing.T) {
	p := newPool(t, pool.WithWorkers(3))
	watchdog(t, func() {
		var running, most atomic.Int64
		leaf := func() {
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(50 * time.Millisecond)
			running.Add(-1)
		}
		for range 3 {
			p.Run(func() { p.Join(func() { p.Join(leaf, leaf) }, leaf) })
		}
		assert.EqualValues(t, 3, most.Load(), "the three leaves never ran at once")
	})
}

func TestScopeSpawnAfterScopeFinishedPanics(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	var kept *pool.Scope
	p.Scope(func(s *pool.Scope) { kept = s })
	assert.Equal(t, "pool.Scope.Spawn: the scope has already finished",
		recoverValue(func() { kept.Spawn(func(*pool.Scope) {}) }))
}

// TestCloseFromAnotherPoolsWorker: p's call in progress needs q, and q's
// only worker closes p. Close must wait without taking q's worker away.
func TestCloseFromAnotherPoolsWorker(t *testing.T) {
	watchdog(t, func() {
		p, err := pool.New(pool.WithWorkers(1))
		require.NoError(t, err)
		q := newPool(t, pool.WithWorkers(1))
		var wg sync.WaitGroup
		started := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Run(func() {
				close(started)
				time.Sleep(10 * time.Millisecond)
				q.Run(func() {})
			})
		}()
		<-started
		var closeErr error
		q.Run(func() { closeErr = p.Close() })
		assert.NoError(t, closeErr)
		wg.Wait()
	})
}
