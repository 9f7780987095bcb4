package sleep

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStayAwakeIsTheLastCheck: a worker whose stayAwake check turns true
// while it sleeps, and that its owner then wakes with WakeSleeping, comes
// out of the idle loop's sleep and never blocks again while the check
// holds; the counters end as they began. Without the check the worker
// would sleep on; without the wake-up it would not see the check.
func TestStayAwakeIsTheLastCheck(t *testing.T) {
	s := New(1)
	var surplus atomic.Bool
	stayAwake := func() bool { return surplus.Load() }
	var l Latch
	var blockedAgain atomic.Bool
	withWatchdog(t, func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			st := s.StartLooking(0)
			for !surplus.Load() { // the owner's loop: look until surplus
				s.NoWorkFound(&st, &l, stayAwake)
			}
			for range 4 * roundsUntilSleeping { // no sleep while it holds
				s.NoWorkFound(&st, &l, stayAwake)
				if s.isBlocked(0) {
					blockedAgain.Store(true)
				}
			}
			s.WorkFound(func() bool { return false })
		}()
		waitBlocked(s, 0)
		surplus.Store(true)
		s.WakeSleeping(0)
		<-done
	})
	assert.False(t, blockedAgain.Load(), "slept while stayAwake held")
	c := s.counters.load()
	assert.Zero(t, c.sleeping(), "sleeping after the worker left")
	assert.Zero(t, c.inactive(), "looking after the worker left")
}

// TestWakeSleepingLeavesLatchParks: WakeSleeping wakes a worker asleep in
// the protocol, never one parked on a latch (which waits for its latch's
// setter alone).
func TestWakeSleepingLeavesLatchParks(t *testing.T) {
	s := New(2)
	var l Latch
	withWatchdog(t, func() {
		release := parkOnLatch(s, 0, &l)
		assert.False(t, s.WakeSleeping(0), "woke a latch park")
		assert.True(t, s.isOnLatch(0))
		release()
	})
}
