package runtime

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
)

// testTask is a submitted task running a closure, as pool.Future is one
// running a typed function.
type testTask struct {
	f  Future
	fn func()
}

func (t *testTask) Run(*Worker) { t.f.Complete(t.f.reg.Catch(t.fn)) }

// TestFutureWaitersRaceCompletion races every kind of waiter against the
// completion: workers registering latches (from a Run of their own pool's
// and from another pool's worker), goroutines on the channel, and Chan
// callers, while the task finishes at about the same moment. A lost
// wake-up would hang; the deadline turns that into a failure.
func TestFutureWaitersRaceCompletion(t *testing.T) {
	testutil.NeedProcs(t, 3)
	r, err := NewRegistry(Config{Workers: 3})
	require.NoError(t, err)
	other, err := NewRegistry(Config{Workers: 1})
	require.NoError(t, err)
	defer func() {
		assert.NoError(t, other.Close())
		assert.NoError(t, r.Close())
	}()

	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for i := range 1000 {
			var result atomic.Int64
			start := make(chan struct{})
			task := &testTask{fn: func() {
				<-start
				result.Store(int64(i))
			}}
			f := &task.f
			var seen atomic.Int64
			check := func() {
				if result.Load() == int64(i) {
					seen.Add(1)
				}
			}
			var wg sync.WaitGroup
			wg.Go(func() { f.Wait(); check() })                                    // off-pool
			wg.Go(func() { <-f.Chan(); check() })                                  // select-style
			wg.Go(func() { r.Run("test", func() { f.Wait(); check() }) })          // r's worker
			wg.Go(func() { other.Run("test", func() { f.Wait(); check() }) })      // another pool's worker
			wg.Go(func() { r.Run("test", func() { <-start; f.Wait(); check() }) }) // races completion
			r.Submit("test", f, task)
			close(start)
			wg.Wait()
			if seen.Load() != 5 {
				t.Errorf("round %d: %d of 5 waiters saw the result", i, seen.Load())
				return
			}
			if !f.Ready() {
				t.Errorf("round %d: not ready after Wait", i)
				return
			}
		}
	}()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		t.Fatal("waiters still blocked after 60 s: lost wake-up?")
	}
}

// TestFutureOwnJobRunsWithoutRegistering: a worker that waits for a task
// it just submitted finds it on its own deque and runs it before pushing
// a waiter, so completion finds nobody to wake.
func TestFutureOwnJobRunsWithoutRegistering(t *testing.T) {
	r, err := NewRegistry(Config{Workers: 1})
	require.NoError(t, err)
	defer func() { assert.NoError(t, r.Close()) }()
	var during *futureWaiter
	task := &testTask{}
	f := &task.f
	task.fn = func() { during = f.waiters.Load() }
	r.Run("test", func() {
		r.Submit("test", f, task)
		f.Wait()
	})
	assert.Nil(t, during, "a waiter was pushed before the task ran")
	assert.True(t, f.Ready())
}

// TestFuturePanicIsKept: the panic goes to the future, not to the panic
// handler, and every Wait re-raises the same *PanicError.
func TestFuturePanicIsKept(t *testing.T) {
	var handled atomic.Int64
	r, err := NewRegistry(Config{Workers: 1, PanicHandler: func(any) { handled.Add(1) }})
	require.NoError(t, err)
	defer func() { assert.NoError(t, r.Close()) }()
	task := &testTask{fn: func() { panic("boom") }}
	f := &task.f
	r.Submit("test", f, task)
	first := r.Catch(f.Wait)
	require.NotNil(t, first)
	assert.Equal(t, "boom", first.Value)
	assert.Same(t, first, r.Catch(f.Wait))
	assert.EqualValues(t, 0, handled.Load())
}
