package pool_test

import (
	"bytes"
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// goroutineHeader names the calling goroutine: "goroutine N", from the
// first line of its stack ("goroutine N [running]:", or "[running,
// locked to thread]:" where the goroutine holds its thread).
func goroutineHeader() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	line, _, _ := bytes.Cut(buf, []byte(" ["))
	return string(line)
}

// With guests, a call from a goroutine that is no worker runs on that
// goroutine, as a guest: an index past the workers', Current is the pool,
// and the goroutine is the caller's. Stats counts the call.
func TestGuestRunsOnTheCaller(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2), pool.WithGuests(2))
	watchdog(t, func() {
		caller := goroutineHeader()
		var on string
		var idx int
		var cur *pool.Pool
		p.Run(func() { on, idx, cur = goroutineHeader(), pool.WorkerIndex(), pool.Current() })
		assert.Equal(t, caller, on, "the call ran on another goroutine")
		assert.GreaterOrEqual(t, idx, p.Workers())
		assert.Less(t, idx, p.MaxWorkers())
		assert.Same(t, p, cur)
		assert.Equal(t, -1, pool.WorkerIndex(), "the caller stays a guest after the call")
		assert.Equal(t, uint64(1), p.Stats().GuestCalls)
		assert.Zero(t, p.Stats().Injected)
	})
}

// A guest's forks are open to the workers: the first half of a join waits
// (with a deadline) until a worker has started the second half.
func TestGuestForksAreStolen(t *testing.T) {
	testutil.NeedTwoPs(t)
	p := newPool(t, pool.WithWorkers(2), pool.WithGuests(2))
	watchdog(t, func() {
		var aIdx, bIdx atomic.Int64
		var bStarted atomic.Bool
		p.Run(func() {
			pool.Join(func() {
				aIdx.Store(int64(pool.WorkerIndex()))
				for !bStarted.Load() {
					runtime.Gosched()
				}
			}, func() {
				bIdx.Store(int64(pool.WorkerIndex()))
				bStarted.Store(true)
			})
		})
		assert.GreaterOrEqual(t, int(aIdx.Load()), p.Workers(), "a ran on a worker, not on the caller")
		assert.Less(t, int(bIdx.Load()), p.Workers(), "b was not stolen by a worker")
	})
}

// Past WithGuests(n) callers at once, a call is handed to the workers as
// before: the second caller, while the first holds the only guest slot,
// runs on a worker.
func TestGuestsPastTheBoundAreInjected(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2), pool.WithGuests(1))
	watchdog(t, func() {
		inside := make(chan struct{})
		release := make(chan struct{})
		done := make(chan int)
		go p.Run(func() {
			close(inside)
			<-release
		})
		<-inside
		go func() {
			var idx int
			p.Run(func() { idx = pool.WorkerIndex() })
			done <- idx
		}()
		idx := <-done
		close(release)
		assert.Less(t, idx, p.Workers(), "the second caller ran as a guest past the bound")
		s := p.Stats()
		assert.Equal(t, uint64(1), s.GuestCalls)
		assert.Equal(t, uint64(1), s.Injected)
	})
}

// Work a guest's call leaves queued for later (a detached spawn) runs
// after the call returns, on the workers. (That it leaves the guest's
// slot for the injector is runtime's TestGuestMovesLeftoverJobsToTheInjector.)
func TestGuestLeavesNothingBehind(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1), pool.WithGuests(1), pool.WithSpares(0))
	watchdog(t, func() {
		ran := make(chan int, 1)
		block := make(chan struct{})
		// The only worker is busy until the call has returned.
		pool.Submit(p, func() int { <-block; return 0 })
		p.Run(func() {
			p.Spawn(func() { ran <- pool.WorkerIndex() })
		})
		close(block)
		require.Equal(t, 0, <-ran, "the spawned task ran elsewhere than on the worker")
	})
}

// A goroutine that is no worker and calls Go at the group's limit runs
// the queued tasks itself, as a guest, instead of waiting for a worker:
// here the only worker is blocked, so without that the second Go would
// wait for it forever.
func TestGroupGoAtTheLimitRunsQueuedTasksOnTheCaller(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1), pool.WithSpares(0))
	watchdog(t, func() {
		started, release := make(chan struct{}), make(chan struct{})
		p.Spawn(func() { close(started); <-release })
		<-started
		caller := goroutineHeader()
		g, _ := p.NewGroup(context.Background())
		g.SetLimit(1)
		var ranOn [2]string
		for i := range 2 {
			g.Go(func() error { ranOn[i] = goroutineHeader(); return nil })
		}
		assert.Equal(t, caller, ranOn[0], "the first task did not run on the caller of Go")
		close(release)
		require.NoError(t, g.Wait())
		assert.NotEmpty(t, ranOn[1])
	})
}
