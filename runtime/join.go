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

// Join runs a and b, b possibly on another worker, and returns when both
// have returned. The caller must be w's goroutine. If either panicked,
// Join re-panics with the first panic (a's when both did) as a
// *PanicError, after both have finished.
func (w *Worker) Join(a, b func()) {
	slot := w.Enter()
	f, ok := (*slot).(*joinFrame)
	if !ok {
		f = new(joinFrame)
		f.job.Init(f, w)
		*slot = f
	}
	f.fn = b
	w.Push(&f.job)

	pa := Catch(a)
	var pb *PanicError
	if w.TakeBack(&f.job) {
		pb = Catch(b)
	} else {
		pb = f.panic
		f.job.Latch.Reset() // only a stolen job's latch was touched
	}
	f.fn, f.panic = nil, nil // drop references for the GC
	w.Leave()
	if pa != nil {
		panic(pa)
	}
	if pb != nil {
		panic(pb)
	}
}

// Join runs a and b on r, possibly in parallel (see Run for where).
func (r *Registry) Join(call string, a, b func()) {
	if w := CurrentWorker(); w != nil && w.reg == r {
		w.Join(a, b)
		return
	}
	r.Run(call, func() { CurrentWorker().Join(a, b) })
}
