package pool_test

import (
	"bytes"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

func fibCall(n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Call(fibCall, n-1, n-2)
	return a + b
}

// The workers carry pprof labels naming the pool and their index; the
// goroutine profile (debug=1) prints them.
func TestWorkersCarryProfilerLabels(t *testing.T) {
	newPool(t, pool.WithWorkers(2), pool.WithName("labelled"))
	var buf bytes.Buffer
	require.NoError(t, pprof.Lookup("goroutine").WriteTo(&buf, 1))
	out := buf.String()
	for _, label := range []string{`"spindle.pool":"labelled"`, `"spindle.worker":"0"`, `"spindle.worker":"1"`} {
		assert.Contains(t, out, label)
	}
}

func TestDefaultNamesAreDistinct(t *testing.T) {
	newPool(t, pool.WithWorkers(1))
	newPool(t, pool.WithWorkers(1))
	var buf bytes.Buffer
	require.NoError(t, pprof.Lookup("goroutine").WriteTo(&buf, 1))
	assert.Regexp(t, `"spindle.pool":"pool-\d+"`, buf.String())
}

// Per-worker counts add up to the pool's totals, and String shows them.
func TestPerWorkerStatsAddUp(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2), pool.WithGuests(1))
	watchdog(t, func() {
		for range 5 {
			p.Run(func() { fibCall(20) })
		}
	})
	st := p.Stats()
	// The workers, and the guest slot the calls ran on.
	require.Len(t, st.PerWorker, 3)
	assert.Equal(t, uint64(5), st.GuestCalls)
	var executed, steals, sleeps, wakeups uint64
	for _, w := range st.PerWorker {
		executed += w.Executed
		steals += w.Steals
		sleeps += w.Sleeps
		wakeups += w.Wakeups
	}
	assert.Equal(t, st.Executed, executed)
	assert.Equal(t, st.Steals, steals)
	assert.Equal(t, st.Sleeps, sleeps)
	assert.Equal(t, st.Wakeups, wakeups)
	s := st.String()
	assert.Contains(t, s, "2 workers")
	assert.Contains(t, s, "worker 1: executed")
}

// The trace reports every steal (as many as Stats counts, each from
// another worker) and the workers' sleeps.
func TestTraceReportsStealsAndSleeps(t *testing.T) {
	var mu sync.Mutex
	var events []pool.Event
	p := newPool(t, pool.WithWorkers(2), pool.WithGuests(1), pool.WithTrace(func(e pool.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}))
	watchdog(t, func() {
		for range 5 {
			p.Run(func() { fibCall(20) })
		}
		// Idle workers go to sleep within a millisecond or so.
		require.Eventually(t, func() bool { return p.Stats().Sleeps > 0 }, 10*time.Second, time.Millisecond)
	})
	// The events first, then the counters: a worker counts its sleep
	// before it reports it, so every sleep in the copy is counted, while
	// workers that sleep again meanwhile only add to the counters. (Read
	// the other way round, a sleep between the two reads failed the test.)
	mu.Lock()
	seen := slices.Clone(events)
	mu.Unlock()
	st := p.Stats()
	var steals, sleeps uint64
	for _, e := range seen {
		switch e.Kind {
		case pool.EventSteal:
			steals++
			assert.NotEqual(t, e.Worker, e.Victim, "%v", e)
			assert.Contains(t, []int{0, 1, 2}, e.Victim) // the workers and the calls' guest slot
		case pool.EventSleep:
			sleeps++
			assert.Equal(t, -1, e.Victim)
		}
		assert.Contains(t, []int{0, 1, 2}, e.Worker)
	}
	assert.Equal(t, st.Steals, steals, "steal events")
	assert.LessOrEqual(t, sleeps, st.Sleeps, "sleep events (Stats read later)")
	assert.Positive(t, sleeps)
}

// TestTaskOnSleepingPoolWakesOneWorker: a task spawned on a pool whose
// workers all sleep wakes one worker, which runs it without waking the
// other: with nothing else queued, the sleep protocol's chain wake-up
// would only have delayed the task (sleep.Sleep.WorkFound). Both woke
// before.
func TestTaskOnSleepingPoolWakesOneWorker(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	// A worker sleeps now if it blocked once more than it was woken.
	bothAsleep := func() bool { st := p.Stats(); return st.Sleeps == st.Wakeups+2 }
	watchdog(t, func() {
		for range 5 {
			for !bothAsleep() {
				time.Sleep(100 * time.Microsecond)
			}
			before := p.Stats().Wakeups
			done := make(chan struct{})
			p.Spawn(func() { close(done) })
			<-done
			for !bothAsleep() {
				time.Sleep(100 * time.Microsecond)
			}
			assert.Equal(t, uint64(1), p.Stats().Wakeups-before, "workers woken for one task")
		}
	})
}
