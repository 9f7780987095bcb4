package pool

import (
	"sync"
	"sync/atomic"
)

// limit is a Group's slots under SetLimit: one per task queued or
// running. It is no channel: a task's slot is freed on the worker that
// ran it, and a group made inside a testing/synctest bubble may run on a
// pool made outside it, whose workers may not touch a channel the bubble
// made (the runtime kills the program). A caller that waits for a slot
// waits on a sync.Cond, which a bubble counts as durably blocked and
// anyone may signal.
type limit struct {
	max     int64
	used    atomic.Int64
	waiters atomic.Int32
	mu      sync.Mutex
	freed   sync.Cond // signalled, under mu, when a slot is freed while waiters wait
}

func newLimit(n int) *limit {
	l := &limit{max: int64(n)}
	l.freed.L = &l.mu
	return l
}

// tryAcquire takes a slot if one is free.
func (l *limit) tryAcquire() bool {
	for {
		n := l.used.Load()
		if n >= l.max {
			return false
		}
		if l.used.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// acquire takes a slot, blocking until one is free. A release that comes
// after the waiter counted itself signals it (the waiter tries again after
// counting itself, and under mu, which the releaser takes to signal).
func (l *limit) acquire() {
	l.mu.Lock()
	l.waiters.Add(1)
	for !l.tryAcquire() {
		l.freed.Wait()
	}
	l.waiters.Add(-1)
	l.mu.Unlock()
}

// release frees a slot.
func (l *limit) release() {
	l.used.Add(-1)
	if l.waiters.Load() > 0 {
		l.mu.Lock()
		l.freed.Signal()
		l.mu.Unlock()
	}
}

// inUse is how many slots are taken.
func (l *limit) inUse() int64 { return l.used.Load() }
