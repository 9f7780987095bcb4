package sleep

import "sync/atomic"

// counters packs the sleep state of a pool into one 64-bit word so that a
// poster of new work can read all of it with a single atomic load:
//
//	bits  0..15  sleeping: workers blocked in park, waiting for a wake-up
//	bits 16..31  inactive: workers looking for work (idle, sleepy or sleeping)
//	bits 32..63  jec: the jobs event counter
//
// sleeping <= inactive always holds: a worker becomes inactive before it can
// sleep and stays inactive until it finds work.
//
// The jobs event counter (JEC) is a clock whose parity carries one bit of
// state. It is odd ("sleepy") when some worker announced, since the last
// post of work, that it is about to sleep; it is even ("active") otherwise.
// A worker announcing sleepiness makes it odd; a poster finding it odd makes
// it even again. A sleepy worker remembers the (odd) value it saw and only
// sleeps if the JEC still has that value: any post since then moved it.
// A poster that finds the JEC even does not write it: no worker became
// sleepy since the last post, so no worker holds a snapshot that this post
// needs to invalidate. That is what makes posting cheap (one load) while
// every worker is busy.
type counters uint64

const (
	threadBits  = 16
	maxThreads  = 1<<threadBits - 1 // the most workers one Sleep can track
	sleepingOne = counters(1)
	inactiveOne = counters(1) << threadBits
	jecShift    = 2 * threadBits
	jecOne      = counters(1) << jecShift
	threadMask  = counters(maxThreads)
)

func (c counters) sleeping() int { return int(c & threadMask) }
func (c counters) inactive() int { return int(c >> threadBits & threadMask) }

// jec returns the jobs event counter. It wraps around after 2^32 events; a
// worker only compares it for equality with the snapshot it took a few
// microseconds earlier, so a wrap could only confuse a worker that slept
// through exactly 2^32 announcements between its snapshot and its check.
func (c counters) jec() uint32 { return uint32(c >> jecShift) }

// sleepy reports whether some worker announced sleepiness since the last
// post of work (the JEC is odd).
func (c counters) sleepy() bool { return c.jec()&1 != 0 }

// awakeButIdle is the number of inactive workers that are still looking for
// work (not blocked): they will find a new job without being woken.
func (c counters) awakeButIdle() int { return c.inactive() - c.sleeping() }

// withJECIncremented returns c with the JEC advanced by one (wrapping).
// The addition overflows out of the top of the word exactly when the JEC
// wraps, which is what we want.
func (c counters) withJECIncremented() counters { return c + jecOne }

// atomicCounters is the shared word with the transitions the protocol uses.
type atomicCounters struct{ v atomic.Uint64 }

func (a *atomicCounters) load() counters { return counters(a.v.Load()) }

// loadFenced returns the counters through a read-modify-write that
// changes nothing (an atomic add of 0): a full barrier on every platform,
// which orders the caller's earlier stores before this read.
func (a *atomicCounters) loadFenced() counters { return counters(a.v.Add(0)) }

func (a *atomicCounters) cas(old, new counters) bool {
	return a.v.CompareAndSwap(uint64(old), uint64(new))
}

// addInactive records that a worker started looking for work.
func (a *atomicCounters) addInactive() { a.v.Add(uint64(inactiveOne)) }

// subInactive records that a looking worker found work. It returns the
// counters as they were before.
func (a *atomicCounters) subInactive() counters {
	return counters(a.v.Add(^uint64(inactiveOne-1))) + inactiveOne
}

// subSleeping records that a sleeping worker was woken (by its waker) or
// gave up sleeping after registering (by itself).
func (a *atomicCounters) subSleeping() { a.v.Add(^uint64(sleepingOne - 1)) }

// markSleepy makes the JEC odd if it is even and returns the JEC as it is
// after the call (always odd). A worker about to sleep calls it and keeps
// the result as its snapshot.
func (a *atomicCounters) markSleepy() uint32 {
	for {
		old := a.load()
		if old.sleepy() {
			return old.jec()
		}
		if a.cas(old, old.withJECIncremented()) {
			return old.jec() + 1
		}
	}
}

// markActive makes the JEC even if it is odd, and returns the counters as
// they are after the call. When no worker became sleepy since the last post
// (the JEC is even) this is a single atomic load: the join hot path.
func (a *atomicCounters) markActive() counters {
	for {
		old := a.load()
		if !old.sleepy() {
			return old
		}
		if next := old.withJECIncremented(); a.cas(old, next) {
			return next
		}
	}
}

// tryAddSleeping registers one sleeping worker, but only while the JEC still
// equals snapshot. It fails (false) once the JEC has moved: new work was
// posted after the worker announced itself sleepy, and it must look again.
func (a *atomicCounters) tryAddSleeping(snapshot uint32) bool {
	for {
		old := a.load()
		if old.jec() != snapshot {
			return false
		}
		if a.cas(old, old+sleepingOne) {
			return true
		}
	}
}
