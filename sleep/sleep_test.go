package sleep

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func noInjected() bool { return false }

// nothingQueued is WorkFound's queued for callers that model no queue.
func nothingQueued() bool { return false }

func TestNewBounds(t *testing.T) {
	tests := []struct {
		n         int
		wantPanic bool
	}{
		{-1, true},
		{0, true},
		{1, false},
		{64, false},
		{MaxWorkers, false},
		{MaxWorkers + 1, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			if tt.wantPanic {
				assert.Panics(t, func() { New(tt.n) })
				return
			}
			s := New(tt.n)
			assert.Len(t, s.workers, tt.n)
			assert.Equal(t, counters(0), s.counters.load())
		})
	}
}

func TestStartLookingWorkFound(t *testing.T) {
	s := New(3)
	assert.False(t, s.Looking())
	a := s.StartLooking(0)
	assert.True(t, s.Looking())
	b := s.StartLooking(2)
	assert.Equal(t, 0, a.worker)
	assert.Equal(t, 2, b.worker)
	assert.Equal(t, pack(0, 2, 0), s.counters.load())
	s.WorkFound(nothingQueued)
	assert.Equal(t, pack(0, 1, 0), s.counters.load())
	s.WorkFound(nothingQueued)
	assert.Equal(t, pack(0, 0, 0), s.counters.load())
	assert.False(t, s.Looking())
}

// idleUntilSleepy runs the idle loop of worker 0 up to its announcement of
// sleepiness (without ever sleeping) and returns its state.
func idleUntilSleepy(t *testing.T, s *Sleep, worker int) Idle {
	t.Helper()
	st := s.StartLooking(worker)
	var l Latch
	for i := 0; i < roundsUntilSleepy; i++ {
		s.NoWorkFound(&st, &l, noInjected)
		require.False(t, s.counters.load().sleepy(), "sleepy after %d rounds", i+1)
	}
	s.NoWorkFound(&st, &l, noInjected)
	require.True(t, s.counters.load().sleepy(), "not sleepy after %d rounds", roundsUntilSleepy+1)
	require.Equal(t, s.counters.load().jec(), st.jec)
	require.Equal(t, uint32(roundsUntilSleeping), st.rounds)
	return st
}

// TestFenceWhenSleepy checks where the sleepy fence runs: once per turn to
// sleepy, after the JEC announces it (so a poster that loads the counters
// after the fence sees the odd JEC), and not in the spin or yield rounds,
// nor when the worker backs out of sleeping and turns sleepy again only
// at its next announcement.
func TestFenceWhenSleepy(t *testing.T) {
	s := New(2)
	var calls int
	var sleepyAtFence []bool
	s.FenceWhenSleepy(func() {
		calls++
		sleepyAtFence = append(sleepyAtFence, s.counters.load().sleepy())
	})
	st := idleUntilSleepy(t, s, 0)
	assert.Equal(t, 1, calls, "fences in the first turn to sleepy")
	s.NewInternalJobs(1, true) // a post: the sleep below backs out
	var l Latch
	s.NoWorkFound(&st, &l, noInjected)
	assert.Equal(t, 1, calls, "fences after backing out of sleep")
	s.NoWorkFound(&st, &l, noInjected) // announces sleepiness afresh
	assert.Equal(t, 2, calls, "fences after the second announcement")
	assert.Equal(t, []bool{true, true}, sleepyAtFence, "JEC odd when the fence runs")
}

// TestSleepAborted covers the ways a worker that announced itself sleepy
// gives up sleeping without blocking: the single goroutine would hang if it
// blocked.
func TestSleepAborted(t *testing.T) {
	tests := []struct {
		name string
		// between runs after the sleepy announcement, before the next
		// NoWorkFound (which would sleep).
		between     func(s *Sleep, l *Latch, injected *bool)
		wantRounds  uint32
		wantLatch   uint32
		wantSleepy  bool // JEC odd after the aborted sleep
		wantJECMove bool
	}{
		{"internal job posted", func(s *Sleep, _ *Latch, _ *bool) { s.NewInternalJobs(1, true) },
			roundsUntilSleepy, latchUnset, false, true},
		{"injected job posted", func(s *Sleep, _ *Latch, inj *bool) { *inj = true; s.NewInjectedJobs(1, true) },
			roundsUntilSleepy, latchUnset, false, true},
		{"injected job published, not yet announced", func(_ *Sleep, _ *Latch, inj *bool) { *inj = true },
			roundsUntilSleepy, latchUnset, true, false},
		{"latch set", func(_ *Sleep, l *Latch, _ *bool) { assert.False(t, l.Set()) },
			roundsUntilSleeping, latchSet, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(2)
			st := idleUntilSleepy(t, s, 0)
			var l Latch
			injected := false
			jec := st.jec
			tt.between(s, &l, &injected)
			s.NoWorkFound(&st, &l, func() bool { return injected })
			c := s.counters.load()
			assert.Equal(t, 0, c.sleeping(), "sleeping")
			assert.Equal(t, 1, c.inactive(), "inactive")
			assert.Equal(t, tt.wantSleepy, c.sleepy(), "JEC parity")
			assert.Equal(t, tt.wantJECMove, c.jec() != jec, "JEC moved")
			assert.Equal(t, tt.wantRounds, st.rounds, "rounds")
			assert.Equal(t, tt.wantLatch, l.state.Load(), "latch")
			assert.False(t, s.isBlocked(0))
			assert.Equal(t, Stats{}, s.Stats())

			if tt.wantRounds == roundsUntilSleepy && !injected {
				// The next round announces sleepiness afresh.
				s.NoWorkFound(&st, &l, noInjected)
				assert.True(t, s.counters.load().sleepy())
				assert.Equal(t, s.counters.load().jec(), st.jec)
			}
		})
	}
}

// TestSleepAndWake blocks a worker for real and wakes it in the ways the
// engine does.
func TestSleepAndWake(t *testing.T) {
	tests := []struct {
		name string
		wake func(s *Sleep, l *Latch) // must wake worker 0
	}{
		{"WakeWorker", func(s *Sleep, _ *Latch) { assert.True(t, s.WakeWorker(0)) }},
		{"WakeAll", func(s *Sleep, _ *Latch) { s.WakeAll() }},
		{"internal job", func(s *Sleep, _ *Latch) { s.NewInternalJobs(1, true) }},
		{"injected job", func(s *Sleep, _ *Latch) { s.NewInjectedJobs(1, true) }},
		{"latch", func(s *Sleep, l *Latch) {
			if assert.True(t, l.Set(), "Set reports the sleeping waiter") {
				assert.True(t, s.WakeWorker(0))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(2)
			var l Latch
			var st Idle
			asleep := make(chan struct{})
			woke := make(chan struct{})
			withWatchdog(t, func() {
				go func() {
					st = s.StartLooking(0)
					for st.rounds < roundsUntilSleeping {
						s.NoWorkFound(&st, &l, noInjected)
					}
					close(asleep)
					s.NoWorkFound(&st, &l, noInjected) // blocks
					close(woke)
				}()
				<-asleep
				waitBlocked(s, 0)
				assert.Equal(t, pack(1, 1, st.jec), s.counters.load())
				assert.Equal(t, latchSleeping, l.state.Load())
				assert.False(t, s.WakeWorker(1), "worker 1 is not blocked")
				tt.wake(s, &l)
				<-woke
			})
			assert.False(t, s.isBlocked(0))
			assert.Equal(t, 0, s.counters.load().sleeping())
			assert.Equal(t, 1, s.counters.load().inactive())
			assert.Equal(t, uint32(0), st.rounds, "spins again after a wake-up")
			assert.Equal(t, Stats{Sleeps: 1, Wakeups: 1}, s.Stats())
			if l.Probe() {
				assert.Equal(t, latchSet, l.state.Load())
			} else {
				assert.Equal(t, latchUnset, l.state.Load())
			}
			assert.False(t, s.WakeWorker(0), "a second wake finds nobody")
			assert.Equal(t, Stats{Sleeps: 1, Wakeups: 1}, s.Stats())
		})
	}
}

// fakeSleepers marks workers 0..sleeping-1 blocked and sets the counters as
// if they slept, without goroutines: unpark leaves a token that drain takes.
func fakeSleepers(s *Sleep, sleeping, inactive int, jec uint32) {
	for i := 0; i < sleeping; i++ {
		s.workers[i].blocked = true
	}
	s.counters.v.Store(uint64(pack(sleeping, inactive, jec)))
}

// drain takes the token of every worker woken since fakeSleepers and
// returns how many there were.
func drain(s *Sleep, sleeping int) int {
	woken := 0
	for i := 0; i < sleeping; i++ {
		if !s.workers[i].blocked {
			s.workers[i].parker.park() // has a token: returns at once
			woken++
		}
	}
	return woken
}

func TestNewJobsWakesOnlyAsNeeded(t *testing.T) {
	tests := []struct {
		name          string
		sleeping      int
		inactive      int // includes sleeping
		jec           uint32
		n             int
		queueWasEmpty bool
		want          int
	}{
		{"nobody sleeps", 0, 0, 0, 1, true, 0},
		{"nobody sleeps, idle workers", 0, 3, 0, 4, false, 0},
		{"one sleeper, no idle", 1, 1, 0, 1, true, 1},
		{"sleepers, no idle, one job", 3, 3, 0, 1, true, 1},
		{"sleepers, no idle, two jobs", 3, 3, 0, 2, true, 2},
		{"sleepers, no idle, many jobs", 3, 3, 0, 8, true, 3},
		{"an idle worker takes the job", 3, 4, 0, 1, true, 0},
		{"idle workers take both jobs", 2, 4, 0, 2, true, 0},
		{"idle worker takes one of two", 2, 3, 0, 2, true, 1},
		{"idle workers take two of four", 3, 5, 0, 4, true, 2},
		{"queue was not empty: idle not keeping up", 3, 5, 0, 1, false, 1},
		{"queue was not empty, many jobs", 3, 5, 0, 8, false, 3},
		{"sleepy JEC is reset too", 2, 2, 7, 1, true, 1},
	}
	posts := []struct {
		name string
		post func(s *Sleep, n int, empty bool)
	}{
		{"internal", (*Sleep).NewInternalJobs},
		{"injected", (*Sleep).NewInjectedJobs},
	}
	for _, p := range posts {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				s := New(6)
				fakeSleepers(s, tt.sleeping, tt.inactive, tt.jec)
				p.post(s, tt.n, tt.queueWasEmpty)
				c := s.counters.load()
				assert.Equal(t, tt.want, drain(s, tt.sleeping), "woken")
				assert.Equal(t, tt.sleeping-tt.want, c.sleeping(), "sleeping")
				assert.Equal(t, tt.inactive, c.inactive(), "inactive")
				assert.False(t, c.sleepy(), "JEC even after a post")
				assert.Equal(t, uint64(tt.want), s.Stats().Wakeups)
				if tt.jec%2 == 0 {
					assert.Equal(t, tt.jec, c.jec(), "even JEC is not written")
				} else {
					assert.Equal(t, tt.jec+1, c.jec())
				}
			})
		}
	}
}

// TestWorkFoundChainWake: a worker that finds work wakes up to two
// sleepers while work is queued, and none when nothing is.
func TestWorkFoundChainWake(t *testing.T) {
	tests := []struct {
		sleeping int
		queued   bool
		want     int
	}{
		{0, true, 0},
		{1, true, 1},
		{2, true, 2},
		{5, true, 2},
		{0, false, 0},
		{1, false, 0},
		{5, false, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("sleeping=%d/queued=%v", tt.sleeping, tt.queued), func(t *testing.T) {
			s := New(6)
			// The caller is inactive and awake; the sleepers are inactive.
			fakeSleepers(s, tt.sleeping, tt.sleeping+1, 4)
			asked := false
			s.WorkFound(func() bool {
				// Asked after the caller left the idle count (the
				// argument in the package doc needs that order).
				assert.Equal(t, tt.sleeping, s.counters.load().inactive(), "asked before the decrement")
				asked = true
				return tt.queued
			})
			c := s.counters.load()
			assert.Equal(t, tt.want, drain(s, tt.sleeping))
			assert.Equal(t, pack(tt.sleeping-tt.want, tt.sleeping, 4), c)
			assert.Equal(t, tt.sleeping > 0, asked, "asked exactly when someone sleeps")
		})
	}
}

func TestWakeAll(t *testing.T) {
	s := New(5)
	fakeSleepers(s, 4, 5, 2)
	s.WakeAll()
	assert.Equal(t, 4, drain(s, 4))
	assert.Equal(t, pack(0, 5, 2), s.counters.load())
	assert.Equal(t, Stats{Wakeups: 4}, s.Stats())
}

// TestParker checks the parker as a binary semaphore: a token given before
// park is consumed at once, and park blocks until unpark otherwise.
func TestParker(t *testing.T) {
	var p parker
	p.init(new(atomic.Uint32))
	p.unpark()
	p.park() // consumes the token without blocking

	const rounds = 1000
	withWatchdog(t, func() {
		var wg sync.WaitGroup
		var ping, pong parker
		ping.init(new(atomic.Uint32))
		pong.init(new(atomic.Uint32))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				ping.park()
				pong.unpark()
			}
		}()
		for range rounds {
			ping.unpark()
			pong.park()
		}
		wg.Wait()
	})
}
