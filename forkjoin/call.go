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
func (fr *callFrame[A, R]) Run() {
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
	defer runtime.Recover(&pe)
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
	w := runtime.CurrentWorker()
	if w == nil {
		return forkOffPool(f, proc, x, y)
	}
	slot := w.Enter()
	fr, ok := (*slot).(*callFrame[A, R])
	if !ok {
		fr = new(callFrame[A, R])
		fr.job.Init(fr, w)
		*slot = fr
	}
	// The fork protocol (package runtime's doc), steps 2 to 6.
	fr.f, fr.proc, fr.arg = f, proc, y
	if !w.TryPush(&fr.job) {
		w.Push(&fr.job)
	}

	// The fast path runs f(x) and f(y) without catching panics; the
	// deferred function, whose normal-exit cost is one flag test, cleans up
	// when one unwinds. step says how far we got.
	step := runningX
	defer func() {
		if step != finished {
			unwindCall(w, fr, step, recover())
		}
	}()
	// The calls are spelled out rather than made through fr.call: this is
	// the hot path, and the method call costs more than the branch.
	if proc != nil {
		proc(x)
	} else {
		rx = f(x)
	}
	step = takingBack
	if w.TryTakeBack(&fr.job) || w.TakeBack(&fr.job) {
		step = runningY
		if proc != nil {
			proc(y)
		} else {
			ry = f(y)
		}
	} else {
		ry = fr.res
		if pe := fr.panic; pe != nil {
			step = finished
			clearFrame(fr)
			fr.job.Latch.Reset()
			w.Leave()
			runtime.Raise(pe)
		}
		fr.job.Latch.Reset() // only a stolen job's latch was touched
	}
	step = finished
	clearFrame(fr)
	w.Leave()
	return rx, ry
}

// Progress of a Call, for unwindCall.
const (
	runningX = iota
	takingBack
	runningY
	finished
)

// unwindCall finishes a Call whose f(x) or f(y) panicked with v: if f(x)
// panicked, y's job is still pushed or running elsewhere, and must finish
// before the frame is released. Then it re-panics with the first panic.
func unwindCall[A, R any](w *runtime.Worker, fr *callFrame[A, R], step int, v any) {
	pe := runtime.AsPanicError(v)
	switch step {
	case runningX:
		if w.TakeBack(&fr.job) {
			fr.catchCall(fr.arg) // y's panic loses to x's
		} else {
			fr.job.Latch.Reset()
		}
	case takingBack:
		// TakeBack runs jobs and waits; all of them catch their panics.
		panic("forkjoin.Call: internal error: panic while taking back a job")
	}
	clearFrame(fr)
	w.Leave()
	runtime.Raise(pe)
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
