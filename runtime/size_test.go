package runtime

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/spindle-go/spindle/internal/testutil"
)

// startSized starts a registry of cfg at exactly procs Ps (restored when
// the test ends), without newRegistry's raise to one P per worker.
func startSized(t *testing.T, procs int, cfg Config) *Registry {
	t.Helper()
	testutil.WithProcs(t, procs)
	r, err := NewRegistry(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })
	return r
}

// waitParked waits until the workers ranked at or past running are parked
// as surplus (their main loop parks them once out of work).
func waitParked(t *testing.T, r *Registry, running int) {
	t.Helper()
	deadline := time.Now().Add(testutil.Limit / 2)
	for {
		z := &r.sizing
		z.mu.Lock()
		all := true
		for _, w := range z.ranked[running:] {
			all = all && w.surplus.Load()
		}
		z.mu.Unlock()
		if all {
			return
		}
		require.False(t, time.Now().After(deadline), "workers past %d never parked", running)
		time.Sleep(100 * time.Microsecond)
	}
}

// waitAsleep waits until the first n workers are parked in the engine
// (asleep in the protocol, once idle).
func waitAsleep(t *testing.T, r *Registry, n int) {
	t.Helper()
	deadline := time.Now().Add(testutil.Limit / 2)
	for i := 0; i < n; {
		r.sizing.mu.Lock()
		w := r.sizing.ranked[i]
		r.sizing.mu.Unlock()
		if r.sleep.Parked(w.index) {
			i++
			continue
		}
		require.False(t, time.Now().After(deadline), "worker %d never fell asleep", i)
		time.Sleep(100 * time.Microsecond)
	}
}

// workersMade returns how many workers r has made.
func workersMade(r *Registry) int {
	r.sizing.mu.Lock()
	defer r.sizing.mu.Unlock()
	return len(r.sizing.ranked)
}

// taskWorkers runs tasks tasks that compute a little each, spawned from
// outside, and returns the set of worker indexes that ran them.
func taskWorkers(r *Registry, tasks int) map[int]bool {
	var mu sync.Mutex
	ran := map[int]bool{}
	r.Scope("test", func(s *Scope) {
		for range tasks {
			s.Spawn(func(*Scope) {
				burnSink.Add(int64(testutil.Burn(2000)))
				i := CurrentWorker().Index()
				mu.Lock()
				ran[i] = true
				mu.Unlock()
			})
		}
	})
	return ran
}

// meet runs n tasks that can only finish together (testutil.Meeting) and
// returns how many gave up waiting: 0 when n workers ran at once.
func meet(r *Registry, n int) int {
	m := testutil.NewMeeting(n, testutil.MeetingWait)
	r.Scope("test", func(s *Scope) {
		for range n {
			s.Spawn(func(*Scope) { m.Arrive() })
		}
	})
	return m.Missed()
}

// TestSurplusWorkersParkAndComeBack: a registry of 4 workers on 2 Ps runs
// its tasks on 2 of them (the others park once out of work), and all 4
// again once GOMAXPROCS is 4. Without parking, every worker takes tasks.
func TestSurplusWorkersParkAndComeBack(t *testing.T) {
	for _, unlocked := range []bool{false, true} {
		t.Run(fmt.Sprintf("unlocked=%v", unlocked), func(t *testing.T) {
			r := startSized(t, 2, Config{Workers: 4, Unlocked: unlocked})
			watchdog(t, func() {
				assert.Equal(t, 4, r.Workers())
				waitParked(t, r, 2)
				ran := taskWorkers(r, 2000)
				assert.Subset(t, []int{0, 1}, keys(ran), "tasks ran on a surplus worker")

				goruntime.GOMAXPROCS(4)
				assert.Zero(t, meet(r, 4), "4 workers at 4 Ps did not run at once")
				assert.Equal(t, 4, r.Workers())

				// Shrink while all 4 sleep in the protocol: the 2 past
				// the count must leave it (resize wakes them) and park.
				waitAsleep(t, r, 4)
				goruntime.GOMAXPROCS(2)
				r.Run("test", func() {}) // reads GOMAXPROCS
				waitParked(t, r, 2)
				ran = taskWorkers(r, 2000)
				assert.Subset(t, []int{0, 1}, keys(ran), "tasks ran on a surplus worker")
			})
		})
	}
}

func keys(m map[int]bool) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestFollowingRegistrySize: a registry that follows GOMAXPROCS reports it
// as its size after each change and a call, makes workers as it grows,
// runs that many at once, and computes right at each step.
func TestFollowingRegistrySize(t *testing.T) {
	r := startSized(t, 2, Config{Workers: 2, FollowProcs: true, MaxFollowed: 8})
	watchdog(t, func() {
		for _, k := range []int{1, 3, 2, 1, 3} {
			goruntime.GOMAXPROCS(k)
			var got int
			r.Run("test", func() { got = fib(20) })
			assert.Equal(t, 6765, got)
			assert.Equal(t, k, r.Workers(), "at GOMAXPROCS %d", k)
			assert.Zero(t, meet(r, k), "at GOMAXPROCS %d", k)
			waitParked(t, r, k)
		}
		assert.Equal(t, 3, workersMade(r), "workers made")
		goruntime.GOMAXPROCS(20)
		r.Run("test", func() {})
		assert.Equal(t, 8, r.Workers(), "capped at MaxFollowed")
	})
}

// fib forks at every level on the calling worker.
func fib(n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	join(func() { a = fib(n - 1) }, func() { b = fib(n - 2) })
	return a + b
}

// TestResizeWhileComputing: GOMAXPROCS raised inside a call reaches the
// registry while the call computes (the monitor's round reads it), not
// only at the next call: a meeting of 2 tasks started after the change
// completes although the second worker was parked.
func TestResizeWhileComputing(t *testing.T) {
	if !canSeeGoroutines() {
		t.Skip("no blocked-worker monitor here: the next call reads GOMAXPROCS")
	}
	r := startSized(t, 1, Config{Workers: 2, Spares: 1})
	watchdog(t, func() {
		waitParked(t, r, 1)
		missed := -1
		r.Run("test", func() {
			goruntime.GOMAXPROCS(2)
			missed = meet(r, 2)
		})
		assert.Zero(t, missed)
	})
}

// TestCloseWakesSurplusWorkers: Close ends parked surplus workers too (a
// parked worker left behind would hang Close, which waits for every
// worker's goroutine, or leak it).
func TestCloseWakesSurplusWorkers(t *testing.T) {
	testutil.WithProcs(t, 1)
	before := goleak.IgnoreCurrent()
	watchdog(t, func() {
		r, err := NewRegistry(Config{Workers: 3, FollowProcs: true, MaxFollowed: 4})
		require.NoError(t, err)
		waitParked(t, r, 1)
		require.NoError(t, r.Close())
	})
	goleak.VerifyNone(t, before)
}

// A reading of GOMAXPROCS that is stale by the time its resize runs (a
// worker read the old setting just before GOMAXPROCS moved, and a call
// resized for the new one meanwhile) must not undo the newer resize:
// resize reads GOMAXPROCS itself, under its lock.
func TestStaleProcsReadingKeepsTheNewestSetting(t *testing.T) {
	r := startSized(t, 2, Config{Workers: 2, FollowProcs: true, MaxFollowed: 8})
	watchdog(t, func() {
		goruntime.GOMAXPROCS(3)
		r.CheckProcs()
		require.Equal(t, 3, r.Workers())
		goruntime.GOMAXPROCS(4)
		r.CheckProcs()
		require.Equal(t, 4, r.Workers())
		r.resize() // as CheckProcs would after a stale reading of 3
		assert.Equal(t, 4, r.Workers(), "a stale reading of GOMAXPROCS undid a newer resize")
		assert.Equal(t, int32(4), r.sizing.procs.Load())
	})
}

// Guests take workers' places only once workers and guests would outnumber
// the Ps: a pool of fewer workers than Ps keeps them all running beside
// its guests.
func TestGuestsParkWorkersOnlyPastThePs(t *testing.T) {
	r := startSized(t, 8, Config{Workers: 4, Guests: 8})
	gs := &r.guests
	defer gs.running.Store(0)
	for _, tc := range []struct {
		guests int32
		want   int
	}{
		{0, 4},
		{4, 4}, // 8 threads on 8 Ps
		{6, 2},
		{8, 1}, // one worker always
	} {
		gs.running.Store(tc.guests)
		assert.Equal(t, tc.want, r.workersRunning(), "%d guests", tc.guests)
	}
}

// A call from outside reads GOMAXPROCS, which takes the Go scheduler's
// lock, only when it finds the registry idle; while it is busy (a call in
// progress) the monitor's rounds read it.
func TestBusyRegistryCallsDoNotReadGOMAXPROCS(t *testing.T) {
	// The hook is set before the registry starts its worker and restored
	// after it is closed (cleanups run last first), as the worker reads
	// it too; and only this goroutine's reads count: the worker's own
	// look at GOMAXPROCS made the count 3 once in a full run.
	reads := 0
	saved := readProcs
	me := currentG()
	readProcs = func(n int) int {
		if currentG() == me {
			reads++
		}
		return saved(n)
	}
	t.Cleanup(func() { readProcs = saved })
	r := newUnmonitored(t, Config{Workers: 1})
	require.True(t, r.admit())
	assert.Equal(t, 1, reads, "the call that turned the registry busy")
	for range 100 {
		require.True(t, r.admit())
		r.leave()
	}
	assert.Equal(t, 1, reads, "calls while busy read GOMAXPROCS")
	r.leave()
	require.True(t, r.admit())
	assert.Equal(t, 2, reads, "the call after the registry turned idle")
	r.leave()
}
