package runtime

import "sync/atomic"

// Joins from goroutines that are no worker.
//
// JoinCurrent(a, b) calls a in place, so a and what it captures can live
// on the caller's stack: in fib, the closure for a and the variable it
// writes cost no allocation. A goroutine that is no worker keeps that
// property by running a itself: JoinOffPool injects b into the registry,
// calls a on the calling goroutine, and then takes b back and runs it too
// if no worker has started it yet, or waits for the worker that did. a
// never reaches another thread, so the compiler keeps it on the stack.
//
// An earlier version instead handed a's address to a worker while the
// caller waited in a futex system call, on the argument that the Go
// runtime never moves a goroutine's stack during a system call. It was
// unsound: with GOMAXPROCS changing while joins ran (stop-the-world
// events), TestStressGOMAXPROCSChangesWhileRunning crashed with faults and
// "found pointer to free object" in 7 of 8 runs of -count 5, and passed
// every time once the address was no longer handed over. Do not bring it
// back.

// States of offPoolB.state: whoever moves it from offQueued runs b.
const (
	offQueued    int32 = iota
	offStarted         // a worker took the job and runs b
	offTakenBack       // the caller runs b itself
)

// offPoolB carries b of an off-pool join to the workers.
type offPoolB struct {
	job   Job
	fn    func()
	state atomic.Int32
	reg   *Registry
	panic *PanicError
	done  handoff // signalled when a worker has run fn
}

// Run runs b unless the caller took it back first (then the job, still in
// the injector, is an empty shell).
func (j *offPoolB) Run(w *Worker) {
	if !j.state.CompareAndSwap(offQueued, offStarted) {
		return
	}
	j.panic = j.reg.Catch(j.fn)
	j.fn = nil
	w.readied() // the caller
	j.done.signal()
}

// JoinOffPool runs a and b, possibly in parallel, for a goroutine that is
// no worker of any registry: a on the calling goroutine, b on a worker of
// r or, if none has started it by the time a returns, on the caller too.
// It returns when both have returned (b runs even if a panicked, as in
// JoinCurrent); a panic in a wins over one in b. Nested joins inside a run the same
// way (the caller is still no worker); those inside b run on r.
//
// When a guest slot is free (guest.go) the caller takes it and joins as a
// worker of r does: b goes on the slot's deque for r's workers to steal,
// a runs in place, and the caller helps while a thief runs b.
func (r *Registry) JoinOffPool(call string, a, b func()) {
	r.enter(call)
	defer r.leave()
	if g := r.acquireGuest(); g != nil {
		r.Raise(r.runAsGuest(g, func() { JoinCurrent(call, a, b, nil) }))
		return
	}
	j := &offPoolB{fn: b, reg: r}
	j.done.arm(r)
	j.job.Init(j, nil)
	j.job.takeLabels()
	r.inject(&j.job, 1)
	pa := r.Catch(a)
	if j.state.CompareAndSwap(offQueued, offTakenBack) {
		j.fn = nil
		j.done.disarm(r)
		j.panic = r.Catch(b) // no worker touches j from here on
	} else {
		j.done.wait(r)
	}
	r.Raise(pa)
	r.Raise(j.panic)
}
