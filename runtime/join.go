package runtime

// joinFrame is the reusable record of one Join(a, b) in progress on a
// worker: b's job, which a thief may take, and b's outcome. It lives in the
// worker's frame stack (Worker.Enter), so a join allocates nothing once the
// worker has reached its depth before.
type joinFrame struct {
	job   Job
	fn    func()
	panic *PanicError
}

// Run is b's execution by a thief: the latch is the last thing it touches.
func (f *joinFrame) Run() {
	f.panic = Catch(f.fn)
	f.job.Latch.Set()
}

// Progress of a Join, for unwindJoin.
const (
	joinRunningA = iota
	joinRunningB
	joinFinished
)

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
// replaces (pool.Join, CurrentWorker, then the join itself) cost about 3%
// of fib(32) with a closure fork at every level on one worker, some 2 ns
// per fork (median of 10 alternated runs of the peers command at
// THREADS=1: 218 against 211 ms).
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
	f, ok := (*slot).(*joinFrame)
	if !ok {
		f = new(joinFrame)
		f.job.Init(f, w)
		*slot = f
	}
	// The fork protocol (package runtime's doc), steps 2 to 6.
	f.fn = b
	if !w.TryPush(&f.job) {
		w.Push(&f.job)
	}

	step := joinRunningA
	defer func() {
		if step != joinFinished {
			w.unwindJoin(f, step, recover())
		}
	}()
	a()
	// TakeBack runs other jobs while it waits; each catches its own panic,
	// so nothing unwinds through here.
	if w.TryTakeBack(&f.job) || w.TakeBack(&f.job) {
		step = joinRunningB
		b()
	} else {
		f.job.Latch.Reset() // only a stolen job's latch was touched
		if pe := f.panic; pe != nil {
			step = joinFinished
			f.fn, f.panic = nil, nil
			w.Leave()
			Raise(pe)
		}
	}
	step = joinFinished
	f.fn = nil // drop the reference for the GC
	w.Leave()
}

// joinFromOutside is JoinCurrent from a goroutine that is no worker. It is
// out of line so that JoinCurrent's frame stays small.
//
//go:noinline
func joinFromOutside(call string, a, b func(), offPool func() *Registry) {
	offPool().JoinOffPool(call, a, b)
}

// unwindJoin finishes a Join whose a or b panicked with v. If a panicked,
// b's job is still pushed or running elsewhere and must finish before the
// frame is released; its own panic, if any, loses to a's.
func (w *Worker) unwindJoin(f *joinFrame, step int, v any) {
	pe := AsPanicError(v)
	if step == joinRunningA {
		if w.TakeBack(&f.job) {
			Catch(f.fn)
		} else {
			f.job.Latch.Reset()
		}
	}
	f.fn, f.panic = nil, nil
	w.Leave()
	Raise(pe)
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
