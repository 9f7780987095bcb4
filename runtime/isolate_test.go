package runtime

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
)

// The tag of a fork's job is that of the innermost context that began at
// or below its frame's depth.
func TestPrivateJobsTakeTheTagOfTheContextThatPushedThem(t *testing.T) {
	w := &Worker{slots: make([]FrameSlot, 8), deque: newWorkerDeque(8)}
	w.depth = 2
	w.enterContext(5)
	w.depth = 4
	w.enterContext(7)
	w.depth = 6
	for i, want := range []uint64{0, 0, 5, 5, 7, 7} {
		assert.Equal(t, want, w.privateTag(i), "frame %d", i)
	}
	w.leaveContext()
	assert.Equal(t, uint64(5), w.iso)
	assert.Equal(t, uint64(5), w.privateTag(2))
	assert.Equal(t, uint64(0), w.privateTag(1))
	w.leaveContext()
	assert.Zero(t, w.iso)
	assert.Empty(t, w.isoStack)
}

func TestIsolateLeavesItsContextWhenFPanics(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1})
	watchdog(t, func() {
		r.Run("test", func() {
			w := CurrentWorker()
			var inner uint64
			v := recoverValue(func() {
				w.Isolate(func() {
					outer := w.iso
					w.Isolate(func() {
						inner = w.iso
						assert.NotEqual(t, outer, inner, "nested regions share a tag")
						panic("boom")
					})
				})
			})
			assert.Equal(t, "boom", v)
			assert.NotZero(t, inner)
			assert.Zero(t, w.iso, "the worker stayed in a region")
			assert.Empty(t, w.isoStack)
		})
	})
}

// A stolen half of a region's fork runs in the region on the thief, and
// the thief leaves the region when the half returns.
func TestAStolenJobRunsInItsRegionOnTheThief(t *testing.T) {
	testutil.NeedTwoPs(t)
	r := newRegistry(t, Config{Workers: 2})
	watchdog(t, func() {
		r.Run("test", func() {
			w := CurrentWorker()
			var region, seen uint64
			var thief *Worker
			var started atomic.Bool
			w.Isolate(func() {
				region = w.iso
				join(func() {
					for !started.Load() {
						time.Sleep(10 * time.Microsecond)
					}
				}, func() {
					thief = CurrentWorker()
					seen = thief.iso
					started.Store(true)
				})
			})
			require.NotNil(t, thief)
			assert.NotSame(t, w, thief, "the second half was not stolen")
			assert.Equal(t, region, seen)
		})
	})
	require.NoError(t, r.Close()) // the workers have stopped: their fields are ours to read
	for _, v := range r.workers {
		assert.Zero(t, v.iso)
	}
}

// Tasks a region submitted and nobody took when it ends go to the
// injector, keeping the region's tag, where any worker outside a region
// takes them.
func TestARegionsLeftoverTasksMoveToTheInjector(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1})
	var ran atomic.Int32
	watchdog(t, func() {
		r.Run("test", func() {
			w := CurrentWorker()
			var region uint64
			tasks := make([]*testTask, 3)
			w.Isolate(func() {
				region = w.iso
				for i := range tasks {
					tasks[i] = &testTask{fn: func() { ran.Add(1) }}
					r.Submit("test", &tasks[i].f, tasks[i])
				}
			})
			assert.Zero(t, w.publicLen(), "the region's tasks stayed on the deque")
			for range tasks {
				j := r.injector.popTagged(region)
				require.NotNil(t, j)
				r.enqueue(j, 1)
			}
			assert.Zero(t, ran.Load())
			for _, task := range tasks {
				task.f.Wait()
			}
		})
	})
	assert.Equal(t, int32(3), ran.Load())
}

// Tasks queued inside a region for a wait outside it (detached tasks,
// tasks of a scope or group made outside the region) do not carry the
// region's tag and are not on the region worker's deque, where the
// region's waits would find them: they are injected untagged. A scope
// made inside the region tags its tasks, including the tasks spawned
// from a goroutine its body started.
func TestOnlyTheRegionsOwnTasksCarryItsTag(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1})
	watchdog(t, func() {
		r.Run("test", func() {
			w := CurrentWorker()
			group := r.NewGroup(nopHooks{})
			currentScope(func(outer *Scope) {
				w.Isolate(func() {
					r.Spawn("test", func() {})
					outer.Spawn(func(*Scope) {})
					require.NoError(t, group.Go("test", func() error { return nil }))
					assert.Zero(t, w.publicLen(), "a task the region does not wait for is on its deque")
					assert.Nil(t, r.injector.popTagged(w.iso), "a task the region does not wait for has its tag")
					var inner *Scope
					currentScope(func(s *Scope) {
						inner = s
						assert.Equal(t, w.iso, s.tag)
						done := make(chan struct{})
						go func() { s.Spawn(func(*Scope) {}); close(done) }()
						<-done
						j := r.injector.popTagged(w.iso)
						require.NotNil(t, j, "a task of the region's scope spawned off the pool lost its tag")
						r.enqueue(j, 1)
					})
					assert.NotNil(t, inner)
				})
			})
			group.WaitGroup()
			if pe := group.GroupPanic(true); pe != nil {
				r.Raise(pe)
			}
		})
	})
}

// nopHooks is a group's hooks that record nothing.
type nopHooks struct{}

func (nopHooks) Skip() bool     { return false }
func (nopHooks) Fail(err error) {}
func (nopHooks) Done()          {}
