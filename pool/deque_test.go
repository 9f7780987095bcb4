package pool_test

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
)

// Every deque kind runs the same work correctly: forks (forkjoin.Call and
// pool.Join), spawned tasks, and a panic carried to the caller.
func TestEveryDequeKindRunsTheWork(t *testing.T) {
	for _, kind := range experiment.DequeKinds() {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%v/workers=%d", kind, workers), func(t *testing.T) {
				p := newPool(t, pool.WithWorkers(workers), experiment.WithDeque(kind))
				watchdog(t, func() {
					var got int
					p.Run(func() { got = fibCall(18) })
					assert.Equal(t, 2584, got, "fib(18) with forkjoin.Call")

					p.Run(func() { got = fib(16) })
					assert.Equal(t, 987, got, "fib(16) with pool.Join")

					var ran atomic.Int64
					p.Scope(func(s *pool.Scope) {
						for range 5000 { // more than a bounded deque holds
							s.Spawn(func(*pool.Scope) { ran.Add(1) })
						}
					})
					assert.Equal(t, int64(5000), ran.Load(), "spawned tasks")

					v := recoverValue(func() {
						p.Run(func() { forkjoin.Do(func(i int) { panicAt(i, 7) }, 3, 7) })
					})
					var pe *pool.PanicError
					require.ErrorAs(t, v.(error), &pe)
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

func TestWithDequeRejectsUnknownKind(t *testing.T) {
	_, err := pool.New(experiment.WithDeque(experiment.DequeKind(99)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "experiment.WithDeque(99)")
	assert.Equal(t, "DequeKind(99)", experiment.DequeKind(99).String())
	assert.Equal(t, "bwos", experiment.DequeBWoS.String())
}

// With DequeBulk thieves take half of a victim's jobs at once: every task
// still runs exactly once, and fewer steals happen than jobs are stolen.
// The thieves must run while the spawner spawns, so the test needs two Ps.
func TestBulkDequeStealsHalf(t *testing.T) {
	needTwoPs(t)
	var stealEvents atomic.Int64
	p := newPool(t, pool.WithWorkers(4), experiment.WithDeque(experiment.DequeBulk), pool.WithTrace(func(e pool.Event) {
		if e.Kind == pool.EventSteal {
			stealEvents.Add(1)
		}
	}))
	const n = 20000
	counts := make([]atomic.Int32, n)
	watchdog(t, func() {
		p.Scope(func(s *pool.Scope) {
			for i := range n {
				s.Spawn(func(*pool.Scope) {
					counts[i].Add(1)
					burnSink.Add(int64(testutil.Burn(300)))
				})
			}
		})
	})
	for i := range counts {
		require.Equal(t, int32(1), counts[i].Load(), "task %d", i)
	}
	st := p.Stats()
	t.Logf("%d jobs stolen in %d steals", st.Steals, stealEvents.Load())
	assert.Less(t, stealEvents.Load(), int64(st.Steals), "some steals took more than one job")
}
