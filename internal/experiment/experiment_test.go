package experiment_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/experiment"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// newRegistry starts a registry of cfg that the test closes when it ends.
func newRegistry(t *testing.T, cfg runtime.Config) *runtime.Registry {
	t.Helper()
	r, err := runtime.NewRegistry(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })
	return r
}

// watchdog runs body under testutil's watchdog.
func watchdog(t *testing.T, body func()) { testutil.Watchdog(t, testutil.Limit, body) }

// fibJoin is fib with the engine's two-way fork at every step.
func fibJoin(n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	runtime.JoinCurrent("test join", func() { a = fibJoin(n - 1) }, func() { b = fibJoin(n - 2) }, nil)
	return a + b
}

// fibCall is fib with forkjoin.Call, whose fork publishes and takes back
// through Worker.Offer and TryTakeBack.
func fibCall(n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Call(fibCall, n-1, n-2)
	return a + b
}

// Every deque kind runs the same work correctly: forks (the engine's join
// and forkjoin.Call), spawned tasks, and a panic carried to the caller.
func TestEveryDequeKindRunsTheWork(t *testing.T) {
	for _, kind := range experiment.DequeKinds() {
		factory, ok := experiment.DequeFactory(kind)
		require.True(t, ok, "%v", kind)
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%v/workers=%d", kind, workers), func(t *testing.T) {
				r := newRegistry(t, runtime.Config{Workers: workers, Research: runtime.Research{Deque: factory}})
				watchdog(t, func() {
					var got int
					r.Run("test run", func() { got = fibCall(18) })
					assert.Equal(t, 2584, got, "fib(18) with forkjoin.Call")

					r.Run("test run", func() { got = fibJoin(16) })
					assert.Equal(t, 987, got, "fib(16) with the engine's join")

					var ran atomic.Int64
					r.Scope("test scope", func(s *runtime.Scope) {
						for range 5000 { // more than a bounded deque holds
							s.Spawn(func(*runtime.Scope) { ran.Add(1) })
						}
					})
					assert.Equal(t, int64(5000), ran.Load(), "spawned tasks")

					pe := r.Catch(func() {
						r.Run("test run", func() { forkjoin.Do(func(i int) { panicAt(i, 7) }, 3, 7) })
					})
					require.NotNil(t, pe)
					assert.Equal(t, "at 7", pe.Value)
				})
			})
		}
	}
}

func panicAt(i, at int) {
	if i == at {
		panic(fmt.Sprintf("at %d", at))
	}
}

var burnSink atomic.Int64

// With DequeBulk thieves take half of a victim's jobs at once: every task
// still runs exactly once, and fewer steals happen than jobs are stolen.
// The thieves must run while the spawner spawns, so the test needs two Ps.
func TestBulkDequeStealsHalf(t *testing.T) {
	testutil.NeedTwoPs(t)
	var stealEvents atomic.Int64
	factory, _ := experiment.DequeFactory(experiment.DequeBulk)
	r := newRegistry(t, runtime.Config{Workers: 4, Research: runtime.Research{Deque: factory}, Trace: func(kind runtime.EventKind, _, _, _ int) {
		if kind == runtime.EventSteal {
			stealEvents.Add(1)
		}
	}})
	const n = 20000
	counts := make([]atomic.Int32, n)
	watchdog(t, func() {
		r.Scope("test scope", func(s *runtime.Scope) {
			for i := range n {
				s.Spawn(func(*runtime.Scope) {
					counts[i].Add(1)
					burnSink.Add(int64(testutil.Burn(300)))
				})
			}
		})
	})
	for i := range counts {
		require.Equal(t, int32(1), counts[i].Load(), "task %d", i)
	}
	st := r.Counts()
	t.Logf("%d jobs stolen in %d steals", st.Total.Steals, stealEvents.Load())
	assert.Less(t, stealEvents.Load(), int64(st.Total.Steals), "some steals took more than one job")
}

func TestWithDequeRejectsUnknownKind(t *testing.T) {
	_, err := pool.New(experiment.WithDeque(experiment.DequeKind(99)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "experiment.WithDeque(99)")
	assert.Equal(t, "DequeKind(99)", experiment.DequeKind(99).String())
	assert.Equal(t, "bwos", experiment.DequeBWoS.String())
}
