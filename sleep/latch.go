package sleep

import "sync/atomic"

// Latch is the core of every latch a worker can wait on: a one-shot flag
// that also records whether its waiter is asleep, so that whoever sets it
// knows whether a wake-up is owed.
//
// States and transitions (only the waiter moves between the first three):
//
//	unset --getSleepy--> sleepy --fallAsleep--> sleeping --wakeUp--> unset
//	any   --Set--> set (final until Reset)
//
// The setter swaps the state to set and learns the previous state. If it
// was sleeping, the waiter is (or is about to be) blocked in the sleep
// protocol and the setter must wake it (Sleep.WakeWorker). The waiter only
// moves to sleeping while holding its worker's sleep mutex and checks the
// latch again under that mutex before blocking, so a setter that saw any
// other state can rely on the waiter seeing set.
type Latch struct{ state atomic.Uint32 }

const (
	latchUnset uint32 = iota
	latchSleepy
	latchSleeping
	latchSet
)

// Probe reports whether the latch is set.
func (l *Latch) Probe() bool { return l.state.Load() == latchSet }

// Set sets the latch and reports whether its waiter was asleep (in which
// case the caller must wake it). After Set the latch's memory may be reused
// by its waiter at once, so the caller must have read everything it needs
// from the structure holding the latch before calling Set.
func (l *Latch) Set() (wasSleeping bool) { return l.state.Swap(latchSet) == latchSleeping }

// Reset returns a latch to unset so that its record can be reused. Only the
// waiter calls it, when nobody else can reach the latch.
func (l *Latch) Reset() { l.state.Store(latchUnset) }

func (l *Latch) getSleepy() bool  { return l.state.CompareAndSwap(latchUnset, latchSleepy) }
func (l *Latch) fallAsleep() bool { return l.state.CompareAndSwap(latchSleepy, latchSleeping) }

// wakeUp undoes getSleepy/fallAsleep when the waiter resumes searching,
// unless the latch was set meanwhile.
func (l *Latch) wakeUp() {
	if !l.Probe() {
		l.state.CompareAndSwap(latchSleeping, latchUnset)
		l.state.CompareAndSwap(latchSleepy, latchUnset)
	}
}
