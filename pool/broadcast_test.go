package pool_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// broadcastSeen runs p.Broadcast and returns, by worker index, how many
// times f ran there, failing the test if f's argument was not the index
// of the worker it ran on.
func broadcastSeen(t *testing.T, p *pool.Pool) map[int]int {
	t.Helper()
	var mu sync.Mutex
	seen := map[int]int{}
	p.Broadcast(func(worker int) {
		if got := pool.WorkerIndex(); got != worker {
			t.Errorf("f(%d) ran on worker %d", worker, got)
		}
		mu.Lock()
		seen[worker]++
		mu.Unlock()
	})
	return seen
}

// Every worker runs f once: idle, asleep, or parked past the Ps (four
// workers on two Ps leave two parked).
func TestBroadcastRunsOnceOnEveryWorker(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		testutil.WithProcs(t, procs)
		p := newPoolAtProcs(t, pool.WithWorkers(4))
		watchdog(t, func() {
			for round := range 30 {
				if round%10 == 9 {
					time.Sleep(5 * time.Millisecond) // the workers fall asleep
				}
				seen := broadcastSeen(t, p)
				require.Len(t, seen, 4, "GOMAXPROCS %d, round %d: %v", procs, round, seen)
				for w, n := range seen {
					require.Equal(t, 1, n, "worker %d ran f %d times", w, n)
					require.True(t, w >= 0 && w < p.MaxWorkers())
				}
			}
		})
	}
}

// Broadcasts from many goroutines at once each reach every worker once.
func TestConcurrentBroadcastsEachReachEveryWorker(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(3))
	watchdog(t, func() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 20 {
					seen := broadcastSeen(t, p)
					assert.Len(t, seen, 3)
				}
			})
		}
		wg.Wait()
	})
}

// A worker busy with a task runs its share once the task returns; the
// others do not wait for it.
func TestBroadcastWaitsForABusyWorkersTask(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(2), pool.WithSpares(0))
	release, started := make(chan struct{}), make(chan struct{})
	var taskDone atomic.Bool
	busy := -1
	p.Spawn(func() {
		busy = pool.WorkerIndex()
		close(started)
		<-release
		taskDone.Store(true)
	})
	<-started
	var mu sync.Mutex
	ran := map[int]bool{}
	done := make(chan struct{})
	watchdog(t, func() {
		go func() {
			defer close(done)
			p.Broadcast(func(worker int) {
				if worker == busy && !taskDone.Load() {
					t.Error("the busy worker ran its share inside its task")
				}
				mu.Lock()
				ran[worker] = true
				mu.Unlock()
			})
		}()
		for {
			mu.Lock()
			n := len(ran)
			mu.Unlock()
			if n == 1 {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
		select {
		case <-done:
			t.Fatal("Broadcast returned while a worker's task was still running")
		case <-time.After(10 * time.Millisecond):
		}
		close(release)
		<-done
		assert.Len(t, ran, 2)
	})
}

// A panic in a share comes out of Broadcast as a *PanicError, after every
// share has run.
func TestBroadcastReRaisesAPanicAfterEveryShare(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(3))
	var ran atomic.Int32
	watchdog(t, func() {
		pe := catchPanicError(t, func() {
			p.Broadcast(func(worker int) {
				ran.Add(1)
				if worker == 0 {
					panic("share 0 failed")
				}
			})
		})
		assert.Equal(t, "share 0 failed", pe.Value)
		assert.Equal(t, int32(3), ran.Load())
	})
}

// From the pool's own tasks Broadcast panics naming the call; from a
// worker of another pool it serves that pool while it waits; on a closed
// pool it panics with ErrClosed.
func TestBroadcastCallers(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		for name, run := range map[string]func(func()){
			"worker": func(f func()) { pool.Submit(p, func() int { f(); return 0 }).Wait() },
			"guest":  p.Run,
		} {
			var v any
			run(func() { v = recoverValue(func() { p.Broadcast(func(int) {}) }) })
			assert.Contains(t, v, "pool.Pool.Broadcast", name)
		}

		other := newPool(t, pool.WithWorkers(1), pool.WithGuests(0))
		other.Run(func() {
			served := make(chan struct{})
			other.Spawn(func() { close(served) })
			seen := broadcastSeen(t, p)
			assert.Len(t, seen, 2)
			<-served
		})

		require.NoError(t, p.Close())
		err, _ := recoverValue(func() { p.Broadcast(func(int) {}) }).(error)
		assert.ErrorIs(t, err, pool.ErrClosed)
	})
}
