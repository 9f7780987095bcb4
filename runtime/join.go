package runtime

// closureFrame is the reusable record of one JoinCurrent(a, b) in progress
// on a worker: b, whose job a thief may take, and b's panic. It lives in the
// worker's frame stack (Worker.Enter), so a join allocates nothing once the
// worker has reached its depth before.
type closureFrame struct {
	job   Job
	fn    func()
	panic *PanicError
}

// Run is b's execution by a thief: the latch is the last thing it touches.
func (f *closureFrame) Run(*Worker) {
	f.panic = f.job.Latch.owner.reg.Catch(f.fn) // the thief's registry, its owner's
	f.job.Latch.Set()
}

// Progress of a fork, for the deferred function that finishes it when a
// half panics (the fork protocol, doc.go, step 4).
const (
	ForkRunningA = iota // a runs in place; b's job is pushed, or stolen
	ForkRunningB        // b was taken back and runs in place
	ForkDone            // both halves returned, or the fork is raising
)

// UnwindFork is the fork protocol's step 4 when a half panicked: the fork's
// deferred function calls it with the progress and the recovered value v,
// then clears its record and raises the *PanicError it returns.
// If a panicked (ForkRunningA), b must finish before the record is
// reused: UnwindFork takes b's job back and runs it (its Run catches b's
// panic, which loses to a's), or waits for the thief that took it; either
// way the frame is ended and the latch unset again when it returns.
func (w *Worker) UnwindFork(j *Job, step int, v any) *PanicError {
	pe := w.reg.AsPanicError(v)
	if step == ForkRunningA {
		if w.TakeBack(j) {
			j.run(w)
		}
		j.Latch.Reset()
	}
	return pe
}

// JoinCurrent runs a and b, b possibly on another worker, on the worker
// that calls it, and returns when both have returned. If either panicked,
// it re-panics with the first panic (a's when both did) as a *PanicError,
// after both have finished. From a goroutine that is no worker it runs
// offPool().JoinOffPool instead. It panics, naming call, if a or b is nil.
//
// a does not escape: the worker calls it in place. Only b is stored where
// a thief can reach it.
//
// This is pool.Join's whole fork path in one function. pool.Join is a
// single call to it, small enough to inline into the task, and the worker
// lookup is inlined here (lookupWorker): the three nested calls it
// replaces (pool.Join, CurrentWorker, then the join itself) were a
// measurable part of a closure fork's cost (docs/performance/fork-cost.md,
// "Closure forks at two workers", has the figures).
//
// The fast path calls a and b directly rather than through Catch: one
// deferred function, whose normal exit costs a flag test, handles a
// panic in either. That saves a defer and a recover per fork.
func JoinCurrent(call string, a, b func(), offPool func() *Registry) {
	if a == nil || b == nil {
		panic(call + ": nil function")
	}
	w := lookupWorker(currentG())
	if w == nil {
		joinFromOutside(call, a, b, offPool)
		return
	}
	slot := w.Enter()
	f, ok := slot.Record.(*closureFrame)
	if !ok {
		f = new(closureFrame)
		f.job.Init(f, w)
		slot.Hold(f, &f.job)
	}
	// The fork protocol (package runtime's doc), steps 2 to 6.
	f.fn = b
	w.Offer()

	step := ForkRunningA
	defer func() {
		if step != ForkDone {
			pe := w.UnwindFork(&f.job, step, recover())
			f.fn, f.panic = nil, nil
			w.reg.Raise(pe)
		}
	}()
	a()
	var pb *PanicError
	if w.TryTakeBack(&f.job) || w.TakeBack(&f.job) {
		step = ForkRunningB
		b()
	} else {
		pb = f.panic
		f.job.Latch.Reset()
	}
	step = ForkDone
	f.fn, f.panic = nil, nil
	w.reg.Raise(pb)
}

// joinFromOutside is JoinCurrent from a goroutine that is no worker. It is
// out of line so that JoinCurrent's frame stays small.
//
//go:noinline
func joinFromOutside(call string, a, b func(), offPool func() *Registry) {
	offPool().JoinOffPool(call, a, b)
}

// Join runs a and b on r, possibly in parallel (see Run for where). From
// anywhere but a worker of r it hands a to r's workers, so a escapes to
// the heap; JoinOffPool is the alternative that keeps a on the caller.
func (r *Registry) Join(call string, a, b func()) {
	if w := CurrentWorker(); w != nil && (w.reg == r || w.analysing) {
		JoinCurrent(call, a, b, nil) // on a worker: offPool is not called
		return
	}
	r.Run(call, func() { JoinCurrent(call, a, b, nil) })
}
