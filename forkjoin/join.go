package forkjoin

import (
	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// thunkFrame is the reusable record of one Join in progress on a worker:
// the second function, copied in, and its result and panic, copied out. It
// sits in the worker's frame stack (runtime.Worker.Enter) like Call's
// frames, so a Join allocates nothing once the worker has been at this
// depth with the same result type B.
//
// Join has its own record rather than going through Call because Call
// needs one function type for both halves; adapting fa and fb to it would
// need a closure (it carries the type parameters' dictionary) per Join.
type thunkFrame[B any] struct {
	job   runtime.Job
	fb    func() B
	b     B
	panic *runtime.PanicError
}

// Run is fb's execution by a thief; setting the latch is the last thing it
// does with the frame, which its owner may reuse right after.
func (fr *thunkFrame[B]) Run(*runtime.Worker) {
	fr.b, fr.panic = catchThunk(fr.fb)
	fr.job.Latch.Set()
}

// catchThunk returns f(), or its panic as a *PanicError.
func catchThunk[R any](f func() R) (r R, pe *runtime.PanicError) {
	defer recoverPanic(&pe)
	return f(), nil
}

// Join returns fa() and fb(), evaluated possibly in parallel, on the
// current pool (pool.Default() when the caller is not a worker). It is
// pool.Join with results: fb is offered to idle workers while the caller
// runs fa, and the caller runs fb itself unless it was stolen. From a
// worker it allocates nothing itself in steady state (closures the caller
// builds for fa and fb are the caller's).
//
// If either function panics, Join re-panics with the first panic (fa's
// when both do) as a *pool.PanicError, after both have finished.
func Join[A, B any](fa func() A, fb func() B) (A, B) {
	if fa == nil || fb == nil {
		nilFunc("forkjoin.Join")
	}
	w := runtime.WorkerOf(runtime.CurrentG()) // CurrentWorker, inlined
	if w == nil {
		return joinOffPool(fa, fb)
	}
	slot := w.Enter()
	fr, ok := slot.Record.(*thunkFrame[B])
	if !ok {
		fr = new(thunkFrame[B])
		fr.job.Init(fr, w)
		slot.Hold(fr, &fr.job)
	}
	// The fork protocol (package runtime's doc), steps 2 to 6.
	fr.fb = fb
	w.Offer()

	step := runtime.ForkRunningA
	defer func() {
		if step != runtime.ForkDone {
			pe := w.UnwindFork(&fr.job, step, recover())
			fr.clear()
			w.Registry().Raise(pe)
		}
	}()
	a := fa()
	var b B
	var pb *runtime.PanicError
	if w.TryTakeBack(&fr.job) || w.TakeBack(&fr.job) {
		step = runtime.ForkRunningB
		b = fb()
	} else {
		b, pb = fr.b, fr.panic
		fr.job.Latch.Reset()
	}
	step = runtime.ForkDone
	fr.clear()
	if pb != nil {
		w.Registry().Raise(pb)
	}
	return a, b
}

// clear drops the record's references so the GC can have them.
func (fr *thunkFrame[B]) clear() {
	var zero B
	fr.fb, fr.b, fr.panic = nil, zero, nil
}

// joinOffPool runs the Join on pool.Default() for a goroutine that is no
// worker. Out of line so that its closure does not make Join's own
// variables escape.
//
//go:noinline
func joinOffPool[A, B any](fa func() A, fb func() B) (a A, b B) {
	pool.Default().Run(func() { a, b = Join(fa, fb) })
	return a, b
}
