package testutil

import (
	"runtime"
	"sync/atomic"
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
