package forkjoin

import (
	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// callFrame is the reusable record of one Call in progress on a worker: the
// function and the second argument, copied in, and the second result,
// copied out. A worker keeps one per join depth (runtime.Worker.Enter), so
// in steady state a fork allocates nothing.
type callFrame[A, R any] struct {
	job   runtime.Job
	f     func(A) R // exactly one of f and proc is set
	proc  func(A)
	arg   A
	res   R
	panic *runtime.PanicError
}

// Run is the second call's execution by a thief; setting the latch is the
// last thing it does with the frame.
func (fr *callFrame[A, R]) Run(*runtime.Worker) {
	fr.res, fr.panic = fr.catchCall(fr.arg)
	fr.job.Latch.Set()
}

// call runs the frame's function on x.
func (fr *callFrame[A, R]) call(x A) (r R) {
	if fr.proc != nil {
		fr.proc(x)
		return r
	}
	return fr.f(x)
}

// catchCall returns the frame's function of x, or its panic as a
// *PanicError.
func (fr *callFrame[A, R]) catchCall(x A) (r R, pe *runtime.PanicError) {
	defer recoverPanic(&pe)
	return fr.call(x), nil
}

// Call returns f(x) and f(y), evaluated possibly in parallel. From a
// worker it allocates nothing in steady state: f and y are copied into the
// worker's reused frame for this depth, which an idle worker may steal.
// Off-pool, it runs on pool.Default().
//
// If either call panics, Call re-panics with the first panic (f(x)'s when
// both do) as a *pool.PanicError, after both calls have finished.
func Call[A, R any](f func(A) R, x, y A) (rx, ry R) {
	return fork(f, nil, x, y) // small enough to inline: fork checks f
}

// Do calls f(x) and f(y), possibly in parallel, like Call without results.
// It allocates nothing per call in steady state.
func Do[A any](f func(A), x, y A) {
	if f == nil {
		panic("forkjoin.Do: nil function")
	}
	fork[A, struct{}](nil, f, x, y)
}

// fork is Call and Do: exactly one of f and proc is set.
func fork[A, R any](f func(A) R, proc func(A), x, y A) (rx, ry R) {
	if f == nil && proc == nil {
		panic("forkjoin.Call: nil function") // Do checks its own
	}
	w := runtime.WorkerOf(runtime.CurrentG()) // CurrentWorker, inlined
	if w == nil {
		return forkOffPool(f, proc, x, y)
	}
	slot := w.Enter()
	fr, ok := slot.Record.(*callFrame[A, R])
	if !ok {
		fr = new(callFrame[A, R])
		fr.job.Init(fr, w)
		slot.Hold(fr, &fr.job)
	}
	// The fork protocol (package runtime's doc), steps 2 to 6.
	fr.f, fr.proc, fr.arg = f, proc, y
	w.Offer()

	step := runtime.ForkRunningA
	defer func() {
		if step != runtime.ForkDone {
			pe := w.UnwindFork(&fr.job, step, recover())
			clearFrame(fr)
			w.Registry().Raise(pe)
		}
	}()
	// The calls are spelled out rather than made through fr.call: this is
	// the hot path, and the method call costs more than the branch.
	if proc != nil {
		proc(x)
	} else {
		rx = f(x)
	}
	var py *runtime.PanicError
	if w.TryTakeBack(&fr.job) || w.TakeBack(&fr.job) {
		step = runtime.ForkRunningB
		if proc != nil {
			proc(y)
		} else {
			ry = f(y)
		}
	} else {
		ry, py = fr.res, fr.panic
		fr.job.Latch.Reset()
	}
	step = runtime.ForkDone
	clearFrame(fr)
	if py != nil {
		w.Registry().Raise(py)
	}
	return rx, ry
}

// clearFrame drops the frame's references so the GC can have them.
func clearFrame[A, R any](fr *callFrame[A, R]) {
	var zeroA A
	var zeroR R
	fr.f, fr.proc, fr.arg, fr.res, fr.panic = nil, nil, zeroA, zeroR, nil
}

// forkOffPool runs the fork on pool.Default(), from a goroutine that is no
// worker. Kept out of line so that its closure's captures do not make
// fork's own variables escape.
//
//go:noinline
func forkOffPool[A, R any](f func(A) R, proc func(A), x, y A) (rx, ry R) {
	pool.Default().Run(func() { rx, ry = fork(f, proc, x, y) })
	return rx, ry
}
