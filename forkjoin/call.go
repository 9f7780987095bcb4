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
	f     func(A) R
	arg   A
	res   R
	panic *runtime.PanicError
}

// Run is the second call's execution by a thief; setting the latch is the
// last thing it does with the frame.
func (fr *callFrame[A, R]) Run() {
	fr.res, fr.panic = catchCall(fr.f, fr.arg)
	fr.job.Latch.Set()
}

// catchCall returns f(x), or f's panic as a *PanicError.
func catchCall[A, R any](f func(A) R, x A) (r R, pe *runtime.PanicError) {
	defer runtime.Recover(&pe)
	return f(x), nil
}

// Call returns f(x) and f(y), evaluated possibly in parallel. From a
// worker it allocates nothing in steady state: f and y are copied into the
// worker's reused frame for this depth, which an idle worker may steal.
// Off-pool, it runs on pool.Default().
//
// If either call panics, Call re-panics with the first panic (f(x)'s when
// both do) as a *pool.PanicError, after both calls have finished.
func Call[A, R any](f func(A) R, x, y A) (R, R) {
	w := runtime.CurrentWorker()
	if w == nil {
		return callOffPool(f, x, y)
	}
	slot := w.Enter()
	fr, ok := (*slot).(*callFrame[A, R])
	if !ok {
		fr = new(callFrame[A, R])
		fr.job.Init(fr, w)
		*slot = fr
	}
	fr.f, fr.arg = f, y
	w.Push(&fr.job)

	rx, px := catchCall(f, x)
	var ry R
	var py *runtime.PanicError
	if w.TakeBack(&fr.job) {
		ry, py = catchCall(f, y)
	} else {
		ry, py = fr.res, fr.panic
		fr.job.Latch.Reset() // only a stolen job's latch was touched
	}
	var zeroA A
	var zeroR R
	fr.f, fr.arg, fr.res, fr.panic = nil, zeroA, zeroR, nil // let the GC have them
	w.Leave()
	if px != nil {
		panic(px)
	}
	if py != nil {
		panic(py)
	}
	return rx, ry
}

//go:noinline
func callOffPool[A, R any](f func(A) R, x, y A) (rx, ry R) {
	pool.Default().Run(func() { rx, ry = Call(f, x, y) })
	return rx, ry
}

// Do calls f(x) and f(y), possibly in parallel, like Call without results.
// It allocates nothing per call in steady state.
func Do[A any](f func(A), x, y A) {
	Call(doAdapter[A]{f}.call, x, y)
}

type doAdapter[A any] struct{ f func(A) }

func (d doAdapter[A]) call(x A) struct{} { d.f(x); return struct{}{} }
