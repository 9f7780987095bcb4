package runtime

import "sync/atomic"

// Future is the untyped record of a task submitted with Registry.Submit:
// the task's job, its completion state, its panic and whoever waits for
// it. package pool's Future[T] embeds one beside the function and the
// typed result, and is the job's Runner, so a submission allocates one
// record. The zero value is ready for Submit; a Future is submitted once.
//
// # Completion and waiters
//
// waiters is the whole state, one word: nil while the task is pending and
// nobody waits, futureDoneMark once it has finished, and otherwise a
// lock-free stack of the waiters to wake. A waiter pushes itself with a
// CAS that fails if the word became futureDoneMark, and the completing
// worker swaps futureDoneMark in and wakes every waiter of the list it got
// back: each waiter is either in that list or saw the mark, never neither.
// Completion with nobody waiting costs that one swap. Cancel makes the same
// swap, from any goroutine, for a task that will not run.
//
//   - A worker (of this registry or another) pushes a futureWaiter with a
//     Latch it owns, and runs other work in waitUntil until the
//     latch is set. Several workers may wait on one future: each has its
//     own latch, as a Latch wakes only its owner.
//   - Any other goroutine, and Done for select, use one channel per
//     future, in a waiter of its own that the first of them pushes and the
//     completer closes.
//
// The result and panic are written before the swap and read after seeing
// the mark, a latch set or the channel closed, each ordered after it.
type Future struct {
	job     Job
	waiters atomic.Pointer[futureWaiter]
	panic   *PanicError // the task's panic; written before done
	reg     *Registry   // the registry it was submitted to, which raises panic
}

// futureWaiter is one waiter on a future: a worker's latch, or the
// future's channel (ch non-nil). Waiters are never reused and never change
// once pushed, so anyone may walk a list it loaded.
type futureWaiter struct {
	latch Latch
	ch    chan struct{}
	// relay, with ch, is set when ch was made inside a testing/synctest
	// bubble for a future of a registry made outside it (bubble.go): the
	// completer may not close ch, so it signals relay, and a goroutine of
	// the bubble, blocked on relay meanwhile, closes ch (relayClose).
	relay *handoff
	next  *futureWaiter
}

// futureDoneMark is the waiters word of a finished future.
var futureDoneMark = new(futureWaiter)

// closedChan is what Chan returns for a future already done.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Submit runs task on r, its completion to be recorded in f: task is the
// record that embeds f, and its Run must do the work, catching any panic,
// and end with f.Complete (or, for a task that Cancel completed before it
// started, do no work and release Close's count as Cancel says). The
// task is detached like Spawn's (Close waits for it), but its panic
// belongs to f, not to the panic handler. From a worker of r it is
// published on that worker's deque (always on the public end, see
// pushPublic: the submitter may block on f's channel); from anywhere else
// it goes to the injector, and a closed registry panics with ErrClosed
// (call names the public function). Like Spawn, r's own tasks may submit
// while Close drains.
func (r *Registry) Submit(call string, f *Future, task Runner) {
	r, w := r.admitTask(call)
	f.reg = r
	f.job.Init(task, nil)
	if w != nil {
		w.pushPublic(&f.job, 1)
		return
	}
	f.job.takeLabels()
	r.inject(&f.job, 1)
}

// Complete ends the task's Run, on the worker that ran it: it records pe,
// the task's panic or nil, marks f done, wakes its waiters, and lets Close
// go on. The task's result must be stored before; f may not be touched by
// the task after.
func (f *Future) Complete(pe *PanicError) {
	f.panic = pe
	w := CurrentWorker() // Run runs on a worker of the registry of Submit
	f.complete(w)
	// After complete: an off-pool waiter that returns after Close has
	// returned must find the result, and Close waits for this leave.
	w.reg.leave()
}

// Cancel marks f done, as Complete does, for a task that will not run
// (package pool's SubmitContext, whose context ended first, and a task
// that CloseNow drops): its waiters
// wake, and Wait has no panic to raise. Any goroutine may call it, once,
// instead of the task's Complete, before or after Submit; the caller
// decides, on a state of its own, that the task is not to start. It does
// not release Close's count: the task's job is still queued, and when a
// worker reaches it its Run must not touch the task, only see that it was
// cancelled; Drop then releases the count, called by whichever of that
// Run and the canceller comes second, so that Close returns only after
// Cancel has.
func (f *Future) Cancel() { f.complete(nil) }

// Drop releases the task's place in Close's count for a future that
// Cancel completed (see there): once, after Submit, instead of the leave
// that Complete does.
func (f *Future) Drop() { f.reg.leave() }

// complete marks f done and wakes its waiters; w, nil for Cancel, runs it.
func (f *Future) complete(w *Worker) {
	for n := f.waiters.Swap(futureDoneMark); n != nil; n = n.next {
		if n.ch != nil {
			w.readied() // a goroutine blocked on ch (or relay)
			if n.relay != nil {
				n.relay.signal()
			} else {
				close(n.ch)
			}
			continue
		}
		n.latch.Set()
	}
}

// push adds n to f's waiters and reports true, or reports false if f is
// done.
func (f *Future) push(n *futureWaiter) bool {
	for {
		head := f.waiters.Load()
		if head == futureDoneMark {
			return false
		}
		n.next = head
		if f.waiters.CompareAndSwap(head, n) {
			return true
		}
	}
}

// Ready reports whether the task has finished (returned or panicked), or
// was cancelled.
func (f *Future) Ready() bool { return f.waiters.Load() == futureDoneMark }

// Chan returns a channel that is closed when the task has finished. The
// first call on a future not yet done makes the channel (two allocations
// per future: the channel and its waiter), which every later call returns.
// Inside a testing/synctest bubble, for a registry made outside it, the
// channel is the bubble's, closed by a goroutine of the bubble that the
// completer signals (see futureWaiter.relay): the bubble does not take
// the wait for a durable block, as the task runs outside it.
func (f *Future) Chan() <-chan struct{} {
	var mine *futureWaiter
	for {
		head := f.waiters.Load()
		if head == futureDoneMark {
			mine.drop(f)
			return closedChan
		}
		for n := head; n != nil; n = n.next {
			if n.ch != nil {
				mine.drop(f)
				return n.ch
			}
		}
		if mine == nil {
			mine = &futureWaiter{ch: make(chan struct{})}
			if InSynctestBubble() && !f.reg.inBubble {
				mine.relay = new(handoff)
				mine.relay.arm(f.reg)
			}
		}
		mine.next = head
		if f.waiters.CompareAndSwap(head, mine) {
			if mine.relay != nil {
				go mine.relayClose(f.reg)
			}
			return mine.ch
		}
	}
}

// relayClose closes n's channel once the completer signals its relay; it
// runs on a goroutine of the bubble that made the channel.
func (n *futureWaiter) relayClose(r *Registry) {
	n.relay.wait(r)
	close(n.ch)
}

// drop gives back the relay of a channel waiter Chan made for f but did
// not push (nil: nothing made). It reads f.reg only for a relay: a
// runtime future may be waited for before Submit sets it, but never in a
// bubble (pool's futures exist only once submitted).
func (n *futureWaiter) drop(f *Future) {
	if n != nil && n.relay != nil {
		n.relay.disarm(f.reg)
	}
}

// Wait returns when the task has finished, and re-panics with its
// *PanicError if it panicked (every call does). A worker of any registry
// does not block its thread: it runs its own jobs, then other work
// (waitUntil), until the task is done. Any other goroutine blocks on the
// future's channel.
func (f *Future) Wait() {
	f.Await()
	f.reg.Raise(f.panic)
}

// Await is Wait without the panic: it returns when the task has finished
// (returned, panicked or been cancelled), waiting as Wait does.
func (f *Future) Await() {
	if !f.Ready() {
		if w := CurrentWorker(); w != nil {
			w.waitFuture(f)
		} else {
			<-f.Chan()
		}
	}
}

// waitFuture is Wait on worker w. Like TakeBack's slow path it first runs
// its own jobs, newest first: a task that submits and then waits usually
// finds the submitted job on top of its deque and runs it right there,
// with no waiter, allocation or sleep-protocol traffic. Otherwise it
// pushes a waiter with a latch it owns and helps in waitUntil until the
// completer sets it.
func (w *Worker) waitFuture(f *Future) {
	if w.privHead < w.depth {
		w.publishAll() // see waitUntil
	}
	if w.runOwn(nil, f.Ready); f.Ready() {
		return
	}
	n := &futureWaiter{latch: Latch{owner: w}}
	if f.push(n) {
		w.waitUntil(&n.latch, false)
	}
}
