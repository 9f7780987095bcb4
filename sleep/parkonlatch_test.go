package sleep

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// isOnLatch reports whether worker i is parked on a latch and not woken.
func (s *Sleep) isOnLatch(i int) bool {
	ws := &s.workers[i]
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.onLatch
}

func TestParkOnLatchEndsWhenTheLatchIsSet(t *testing.T) {
	for _, timeout := range []time.Duration{0, time.Hour} {
		t.Run(timeout.String(), func(t *testing.T) {
			s := New(2)
			var l Latch
			var returned atomic.Bool
			withWatchdog(t, func() {
				done := make(chan struct{})
				go func() {
					for !l.Probe() {
						s.ParkOnLatch(1, &l, timeout)
					}
					returned.Store(true)
					close(done)
				}()
				waitFor(func() bool { return s.isOnLatch(1) })
				if l.Set() {
					s.WakeWorker(1)
				}
				<-done
			})
			assert.True(t, returned.Load())
			assert.False(t, s.isOnLatch(1))
			assert.Equal(t, counters(0), s.counters.load(), "a latch park is not in the counters")
		})
	}
}

// parkOnLatch parks worker i on l in a goroutine of its own, until l is
// set, and returns once it is parked; release sets l, wakes the worker and
// waits for its goroutine to end.
func parkOnLatch(s *Sleep, i int, l *Latch) (release func()) {
	done := make(chan struct{})
	go func() {
		for !l.Probe() {
			s.ParkOnLatch(i, l, 0)
		}
		close(done)
	}()
	waitFor(func() bool { return s.isOnLatch(i) })
	return func() {
		if l.Set() {
			s.WakeWorker(i)
		}
		<-done
	}
}

// A post of work must not spend its wake-up on a worker parked on a latch:
// that worker may refuse the job, which would then wait with every worker
// that could take it asleep.
func TestPostsDoNotWakeAWorkerParkedOnALatch(t *testing.T) {
	s := New(2)
	var l Latch
	withWatchdog(t, func() {
		release := parkOnLatch(s, 0, &l)
		s.wakeAny(2)
		s.WorkFound(func() bool { return true })
		s.NewInternalJobs(4, false)
		assert.True(t, s.isOnLatch(0), "a post woke the latch waiter")
		assert.Zero(t, s.Stats().Wakeups)
		release()
	})
	assert.Zero(t, s.Stats().Wakeups, "a latch park's wake-up counted as the protocol's")
}

// A timed park returns by itself, and a wake-up that races with the
// timeout leaves no token behind for the next park.
func TestParkOnLatchTimesOutWithoutLeavingAToken(t *testing.T) {
	s := New(1)
	var l Latch
	withWatchdog(t, func() {
		var stop atomic.Bool
		wakerDone := make(chan struct{})
		go func() {
			for !stop.Load() {
				s.WakeWorker(0)
			}
			close(wakerDone)
		}()
		leftover := 0
		for range 2000 {
			s.ParkOnLatch(0, &l, time.Microsecond)
			if s.workers[0].parker.tokenPending() && !s.isOnLatch(0) {
				leftover++
			}
		}
		stop.Store(true)
		<-wakerDone
		assert.False(t, l.Probe())
		assert.Zero(t, leftover, "parks left a wake-up's token behind")
		assert.False(t, s.workers[0].parker.tokenPending())
	})
}
