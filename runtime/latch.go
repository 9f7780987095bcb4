package runtime

import "github.com/spindle-go/spindle/sleep"

// Latch is a one-shot completion flag that a worker waits on (helping with
// other work meanwhile, see waitUntil). The worker that waits is its
// owner; if the owner fell asleep waiting, Set wakes it.
type Latch struct {
	core sleep.Latch
	// level is the priority level of the Job this latch is part of (see
	// Job.level). It lives here because it fits in the padding after core.
	level uint8
	owner *Worker
}

// Probe reports whether the latch is set.
func (l *Latch) Probe() bool { return l.core.Probe() }

// Reset makes the latch unset again; only its owner calls it, while no
// other thread can reach it.
func (l *Latch) Reset() { l.core.Reset() }

// Set sets the latch and wakes its owner if it sleeps. The owner may reuse
// or drop the record holding the latch as soon as it sees the latch set, so
// Set reads the owner before setting and touches nothing of the record
// after.
func (l *Latch) Set() {
	w := l.owner
	if l.core.Set() {
		w.sleep.WakeWorker(w.index)
	}
}
