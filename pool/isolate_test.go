package pool_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// isolateLimit bounds the isolation tests: each finishes in well under a
// second when the regions hold; a worker that runs an unrelated task
// inside a region hangs them for good.
const isolateLimit = 20 * time.Second

// The deadlock Isolate exists for: a task forks while holding a lock; its
// second half is stolen, so the worker waits inside the lock, and while it
// waits another queued task that takes the same lock is there to run.
// Without isolation the waiting worker starts that task on its own
// goroutine, which blocks on the lock its caller holds, forever.
func TestIsolateKeepsALockedForkFromRunningATaskThatTakesTheLock(t *testing.T) {
	testutil.NeedTwoPs(t)
	for _, style := range []struct {
		name string
		fork func(a, b func())
	}{
		{"Join", pool.Join},
		{"Scope", func(a, b func()) {
			pool.Current().Scope(func(s *pool.Scope) {
				s.Spawn(func(*pool.Scope) { b() })
				a()
			})
		}},
		{"Group", func(a, b func()) {
			g, _ := pool.Current().NewGroup(context.Background())
			g.Go(func() error { b(); return nil })
			a()
			_ = g.Wait()
		}},
	} {
		t.Run(style.name, func(t *testing.T) {
			p := newPool(t, pool.WithWorkers(2))
			var mu sync.Mutex
			bStarted := make(chan struct{})
			otherQueued := make(chan struct{})
			otherDone := make(chan struct{})
			testutil.Watchdog(t, isolateLimit, func() {
				go func() {
					<-bStarted
					p.Spawn(func() {
						mu.Lock()
						defer mu.Unlock()
						close(otherDone)
					})
					close(otherQueued)
				}()
				p.Run(func() {
					mu.Lock()
					pool.Isolate(func() {
						style.fork(
							func() { <-otherQueued },
							func() { close(bStarted); time.Sleep(20 * time.Millisecond) },
						)
					})
					mu.Unlock()
				})
				<-otherDone
			})
		})
	}
}

// Regions fork trees on a pool that also runs a stream of unrelated
// tasks. A worker marks itself while it runs a region's code; an unrelated
// task that starts on a marked worker was started by an isolated wait.
func TestIsolatedWaitsRunOnlyTheRegionsTasks(t *testing.T) {
	testutil.NeedTwoPs(t)
	const workers, regions, depth = 4, 6, 9
	p := newPool(t, pool.WithWorkers(workers))
	var inRegion [workers]atomic.Int32
	var foreignInside, unrelatedRan atomic.Int64
	var sums [regions]atomic.Int64

	var tree func(r, d int)
	tree = func(r, d int) {
		me := &inRegion[pool.WorkerIndex()]
		me.Add(1)
		defer me.Add(-1)
		if d == 0 {
			testutil.Burn(2000)
			sums[r].Add(1)
			return
		}
		pool.Join(func() { tree(r, d-1) }, func() { tree(r, d-1) })
	}
	testutil.Watchdog(t, isolateLimit, func() {
		stop := make(chan struct{})
		feederDone := make(chan struct{})
		go func() { // the unrelated work
			defer close(feederDone)
			for {
				select {
				case <-stop:
					return
				default:
				}
				for range 16 {
					p.Spawn(func() {
						if inRegion[pool.WorkerIndex()].Load() > 0 {
							foreignInside.Add(1)
						}
						unrelatedRan.Add(1)
						testutil.Burn(500)
					})
				}
				time.Sleep(50 * time.Microsecond)
			}
		}()
		var wg sync.WaitGroup
		for r := range regions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.Run(func() { pool.Isolate(func() { tree(r, depth) }) })
			}()
		}
		wg.Wait()
		close(stop)
		<-feederDone
	})
	for r := range regions {
		assert.Equal(t, int64(1)<<depth, sums[r].Load(), "region %d", r)
	}
	assert.Zero(t, foreignInside.Load(), "unrelated tasks started inside a region")
	assert.Positive(t, unrelatedRan.Load())
}
