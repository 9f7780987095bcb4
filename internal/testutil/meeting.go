package testutil

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Meeting is a rendezvous of n pieces of parallel work that only a pool
// running all of them at once can complete: each piece announces its
// start (Arrive) and then spins, yielding its P with runtime.Gosched,
// until all n have started or the deadline passes. A piece that gives up
// is counted (Missed), so a test fails instead of hanging when the pool
// leaves some piece queued behind a running one. The spin never blocks
// the worker in a way the pool could see: to the pool each piece is a
// task that keeps running until its siblings start.
type Meeting struct {
	n        int64
	deadline time.Time
	arrived  atomic.Int64
	missed   atomic.Int64
}

// NewMeeting returns a meeting of n pieces whose pieces give up waiting
// after wait from now.
func NewMeeting(n int, wait time.Duration) *Meeting {
	return &Meeting{n: int64(n), deadline: time.Now().Add(wait)}
}

// Arrive records the start of one piece and waits for the others.
func (m *Meeting) Arrive() {
	m.arrived.Add(1)
	for m.arrived.Load() < m.n {
		if time.Now().After(m.deadline) {
			m.missed.Add(1)
			return
		}
		runtime.Gosched()
	}
}

// Arrived returns how many pieces have started.
func (m *Meeting) Arrived() int { return int(m.arrived.Load()) }

// Missed returns how many pieces gave up waiting for the others.
func (m *Meeting) Missed() int { return int(m.missed.Load()) }

// MeetingWait is how long a piece of a meeting test waits for the
// others: seconds, far more than a pool that runs them all at once
// needs even when its workers are threads time-sliced on two cores under
// the race detector.
const MeetingWait = 3 * time.Second

// WithProcs sets GOMAXPROCS to n for the rest of t and restores it when
// t ends.
func WithProcs(t interface{ Cleanup(func()) }, n int) {
	prev := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

// MeetingRepeats is how many rounds each meeting test runs: a piece
// stranded by chance in one round shows up in another.
const MeetingRepeats = 3

// MeetingRounds runs rounds meetings of n pieces, each after the pool's
// workers have had time to fall asleep: start hands arrive to the code
// under test, which calls it once at the start of each of its n pieces
// and returns when all have finished. It fails t, and stops, at the first
// round in which a piece gave up waiting for the others.
func MeetingRounds(t testing.TB, rounds, n int, start func(arrive func())) {
	t.Helper()
	for round := range rounds {
		time.Sleep(20 * time.Millisecond) // the workers go to sleep
		m := NewMeeting(n, MeetingWait)
		start(m.Arrive)
		if missed := m.Missed(); missed != 0 {
			t.Errorf("round %d: %d of %d pieces gave up waiting for all to start", round, missed, n)
			return
		}
	}
}
