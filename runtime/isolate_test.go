package runtime

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
)

// The tag of a private job is that of the innermost context that began at
// or below its index, and once the private stack restarts at 0 every
// context's jobs start there.
func TestPrivateJobsTakeTheTagOfTheContextThatPushedThem(t *testing.T) {
	w := &Worker{private: make([]*Job, 8), deque: newWorkerDeque(8)}
	w.privTop = 2
	w.enterContext(5)
	w.privTop = 4
	w.enterContext(7)
	w.privTop = 6
	for i, want := range []uint64{0, 0, 5, 5, 7, 7} {
		assert.Equal(t, want, w.privateTag(i), "private job %d", i)
	}
	w.privateEmptied()
	assert.Equal(t, uint64(7), w.privateTag(0))
	w.leaveContext()
	assert.Equal(t, uint64(5), w.iso)
	assert.Equal(t, uint64(5), w.privateTag(0))
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

// Tasks a region spawned and nobody took when it ends go to the injector,
// keeping the region's tag, where any worker outside a region takes them.
func TestARegionsLeftoverTasksMoveToTheInjector(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1})
	var ran atomic.Int32
	watchdog(t, func() {
		r.Run("test", func() {
			w := CurrentWorker()
			var region uint64
			w.Isolate(func() {
				region = w.iso
				for range 3 {
					r.Spawn("test", func() { ran.Add(1) })
				}
			})
			assert.Zero(t, w.publicLen(), "the region's tasks stayed on the deque")
			for range 3 {
				j := r.injector.popTagged(region)
				require.NotNil(t, j)
				r.enqueue(j, 1)
			}
			assert.Zero(t, ran.Load())
		})
	})
	require.NoError(t, r.Close())
	assert.Equal(t, int32(3), ran.Load())
}
