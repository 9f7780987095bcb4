package runtime

import "sync"

// handoff is how a worker tells a goroutine that is no worker that its
// wait is over (a call from outside returned, a group's tasks finished).
//
// Its channel comes from the registry (wakeChans), made when the registry
// was, never by the waiter, for testing/synctest: a channel made by a
// goroutine inside a bubble belongs to the bubble, and a worker of a pool
// made outside it may not use it (the program dies: "close of synctest
// channel from outside bubble"), while a goroutine blocked on such a
// channel counts as durably blocked, so the bubble reports a deadlock
// although a worker outside is about to wake it. A channel of a registry
// made outside the bubble belongs to none: the caller waits for real work
// done outside, as it should. When every registry channel is in use, the
// handoff falls back to a mutex, which belongs to no bubble either: the
// waiter locks it to arm, the signaller unlocks it, the wait locks it
// again. (The mutex alone would do, but a waiter's Lock spins before it
// parks, which made an awake Run round trip measurably slower: see
// docs/runs/synctest-2026-11-28/run-round-trip-ab.txt.)
type handoff struct {
	c  chan struct{} // the registry's, while armed; nil: the mutex
	mu sync.Mutex
}

// wakeChans is how many handoff channels a registry makes, the off-pool
// waits that use one at once; more wait on their handoff's mutex.
const wakeChans = 64

// newWakes makes a registry's handoff channels.
func newWakes() chan chan struct{} {
	wakes := make(chan chan struct{}, wakeChans)
	for range wakeChans {
		wakes <- make(chan struct{}, 1)
	}
	return wakes
}

// arm prepares a wait on r's behalf; the waiter calls it before the
// signaller can run.
func (h *handoff) arm(r *Registry) {
	select {
	case h.c = <-r.wakes:
	default:
		h.c = nil
		h.mu.Lock()
	}
}

// signal ends the armed wait; called once per arm, by another goroutine.
func (h *handoff) signal() {
	if c := h.c; c != nil {
		c <- struct{}{} // room for one: never blocks
		return
	}
	h.mu.Unlock()
}

// wait blocks until signal, then gives the channel back to r.
func (h *handoff) wait(r *Registry) {
	if c := h.c; c != nil {
		<-c
		h.release(r)
		return
	}
	h.mu.Lock()
	h.mu.Unlock() //lint:ignore SA2001 the lock is the signal: acquiring it is the whole wait
}

// disarm cancels an armed wait that nothing will signal.
func (h *handoff) disarm(r *Registry) {
	if h.c != nil {
		h.release(r)
		return
	}
	h.mu.Unlock()
}

func (h *handoff) release(r *Registry) {
	r.wakes <- h.c // room for every channel made: never blocks
	h.c = nil
}

// Waiter is a handoff for a wait that no latch or call of the registry
// covers (package pool's group limit): a goroutine that is no worker arms
// it, then waits, once; another goroutine, a worker, signals it. Made of
// the registry's channels, it is right inside a testing/synctest bubble
// on either side of it (see handoff).
type Waiter struct {
	h handoff
	r *Registry
}

// Arm prepares w for one wait, before anything may signal it.
func (r *Registry) Arm(w *Waiter) { w.r = r; w.h.arm(r) }

// Signal ends w's armed wait; call it once per Arm, from another goroutine.
func (w *Waiter) Signal() { w.h.signal() }

// Wait blocks until Signal.
func (w *Waiter) Wait() { w.h.wait(w.r) }
