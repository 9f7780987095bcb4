package pool

import (
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/runtime"
)

// limit is a Group's slots under SetLimit: one per task queued or
// running. It is no channel of the group's: a task's slot is freed on the
// worker that ran it, and a group made inside a testing/synctest bubble
// may run on a pool made outside it, whose workers may touch neither a
// channel the bubble made nor wake a goroutine of the bubble through a
// sync.Cond (the runtime kills the program either way). A caller that
// must wait for a slot waits on a runtime.Waiter of the pool's instead,
// made of the pool's channels: waiting on them is what the bubble counts
// as durably blocked exactly when the pool is the bubble's.
type limit struct {
	reg     *runtime.Registry
	max     int64
	used    atomic.Int64
	waiters atomic.Int32
	mu      sync.Mutex        // guards queue
	queue   []*runtime.Waiter // the callers waiting for a slot, oldest first
}

func newLimit(n int, reg *runtime.Registry) *limit {
	return &limit{reg: reg, max: int64(n)}
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

// acquire takes a slot, waiting until one is free. No wake-up is lost: a
// caller counts itself waiting before its last try, and a release frees
// the slot before it looks for waiters (both sequentially consistent),
// so either the try sees the slot or the release sees the waiter, which
// is queued, under mu, before the release can take it off.
func (l *limit) acquire() {
	var w runtime.Waiter
	for {
		l.mu.Lock()
		l.waiters.Add(1)
		if l.tryAcquire() {
			l.waiters.Add(-1)
			l.mu.Unlock()
			return
		}
		l.reg.Arm(&w)
		l.queue = append(l.queue, &w)
		l.mu.Unlock()
		w.Wait() // the release took it off the queue and the count
	}
}

// release frees a slot, and wakes the oldest waiting caller, if any, to
// try for it.
func (l *limit) release() {
	l.used.Add(-1)
	if l.waiters.Load() == 0 {
		return
	}
	l.mu.Lock()
	var w *runtime.Waiter
	if len(l.queue) > 0 {
		w = l.queue[0]
		l.queue[0] = nil
		l.queue = l.queue[1:]
		l.waiters.Add(-1)
	}
	l.mu.Unlock()
	if w != nil {
		w.Signal()
	}
}

// inUse is how many slots are taken.
func (l *limit) inUse() int64 { return l.used.Load() }
