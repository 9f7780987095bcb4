package pool_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// classicDeadlock spawns, on a pool of 2 workers, two tasks that wait for
// a channel that only a third, queued task closes. wait is how the two
// wait: directly, or through pool.Block. It returns once both waiters are
// blocked (or, with Block, have handed their wait off) and reports whether
// the releasing task has started by then, plus a function that ends the
// scenario and waits for all three tasks.
func classicDeadlock(p *pool.Pool, wait func(ch chan struct{})) (releaserStarted func() bool, finish func()) {
	release := make(chan struct{})
	var waiting sync.WaitGroup
	var started atomic.Bool
	var done sync.WaitGroup
	waiting.Add(2)
	done.Add(1)
	go func() {
		defer done.Done()
		// On a worker, not on this goroutine as a guest: the pool's own
		// workers are to be the only ones there to run the tasks.
		pool.Submit(p, func() int {
			p.Scope(func(s *pool.Scope) {
				for range 2 {
					s.Spawn(func(*pool.Scope) {
						waiting.Done()
						wait(release)
					})
				}
				s.Spawn(func(*pool.Scope) {
					waiting.Wait() // both waiters are in place
					started.Store(true)
					close(release)
				})
			})
			return 0
		}).Wait()
	}()
	return started.Load, done.Wait
}

func TestBlockAvoidsTheClassicDeadlock(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		for range 20 {
			_, finish := classicDeadlock(p, func(ch chan struct{}) {
				pool.Block(func() { <-ch })
			})
			finish() // completes only if the releasing task ran
		}
	})
}

// TestWithoutBlockOrSparesTheClassicDeadlockHappens shows why Block and
// spares exist: when both workers wait directly and no spare may start,
// the releasing task cannot start. The test then releases the waiters
// itself so that the pool can close.
func TestWithoutBlockOrSparesTheClassicDeadlockHappens(t *testing.T) {
	// No guests: the test's call must not run on its own goroutine.
	p := newPool(t, pool.WithWorkers(2), pool.WithSpares(0), pool.WithGuests(0))
	watchdog(t, func() {
		rescue := make(chan struct{})
		started, finish := classicDeadlock(p, func(ch chan struct{}) {
			select {
			case <-ch:
			case <-rescue:
			}
		})
		// Not a duration assertion: the releasing task can never start
		// while both workers wait, however long we look; 100 ms of looking
		// is when we stop.
		time.Sleep(100 * time.Millisecond)
		assert.False(t, started(), "the releasing task ran although both workers were blocked")
		close(rescue)
		finish()
	})
}

// With spares (the default), the pool notices both workers blocked in
// their tasks and starts a spare, which runs the releasing task: no Block
// needed. (Locked workers on Linux only: elsewhere no spare starts.)
func TestSparesAvoidTheClassicDeadlock(t *testing.T) {
	needSpares(t)
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		for range 20 {
			_, finish := classicDeadlock(p, func(ch chan struct{}) { <-ch })
			finish() // completes only if the releasing task ran
		}
	})
	st := p.Stats()
	assert.Positive(t, st.SparesStarted, "%v", st)
	assert.Positive(t, st.BlockedTime, "%v", st)
}

func TestBlockRunsOffWorkerAndCarriesPanics(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	watchdog(t, func() {
		inside := 99
		p.Run(func() { pool.Block(func() { inside = pool.WorkerIndex() }) })
		assert.Equal(t, -1, inside)
		pe := catchPanicError(t, func() { p.Run(func() { pool.Block(panicsWith("blocked boom")) }) })
		assert.Equal(t, "blocked boom", pe.Value)
		ran := false
		pool.Block(func() { ran = true }) // off-pool: a plain call
		require.True(t, ran)
		assert.Equal(t, "pool.Block: nil function", recoverValue(func() { pool.Block(nil) }))
	})
}
