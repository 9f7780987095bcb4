package forkjoin

import (
	"github.com/spindle-go/spindle/internal/defaultreg"
	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// This file holds what every entry point of the package shares: where its
// work starts and how its panics come out.
//
// Invariant: an entry point either forks, and then all of its work runs on
// pool.Current() (off-pool the whole call moves to pool.Default() once,
// rather than at every fork), or it does not fork, and then its single
// piece of work runs on the calling goroutine, which saves a round trip to
// the pool for inputs too small to split. A Fold or Reduce called off-pool
// while the default pool's callers fill its Ps does not fork either (its
// serial form, see enterSerialCall), until it is overdue. In every case a
// panic leaves the entry point as a *pool.PanicError, so the panic's type
// does not depend on the input's size or the pool's load.

// nilFunc panics for a nil function argument, a programming error, naming
// the call that received it.
func nilFunc(call string) { panic(call + ": nil function") }

// topCall returns f(x) for an entry point; split says whether f forks.
// serial, if not nil, is f's serial form, which a call from a goroutine
// that is no worker runs instead while the default pool's callers fill
// its Ps (see enterSerialCall).
func topCall[A, R any](f func(A) R, serial func(runtime.SerialCall, A) R, x A, split bool) R {
	if split && runtime.CurrentWorker() == nil {
		return topCallOffPool(f, serial, x)
	}
	defer rethrow()
	return f(x)
}

// topDo is topCall for a function without a result.
func topDo[A any](f func(A), serial func(runtime.SerialCall, A), x A, split bool) {
	if split && runtime.CurrentWorker() == nil {
		topDoOffPool(f, serial, x)
		return
	}
	defer rethrow()
	f(x)
}

// rethrow, deferred, turns a panic going through it into a *PanicError:
// the value and the stack where it happened (this runs before the stack
// unwinds). A panic that already is one, re-raised by a fork below, goes
// on unchanged.
func rethrow() {
	if v := recover(); v != nil {
		raise(asPanicError(v))
	}
}

// The four below convert panics as the registry of the calling worker
// does (runtime.Registry.Raise), and off the pool as pool's registries do:
// a panic leaves every call as a *pool.PanicError.

// raise panics with pe as the caller's pool shows panics.
func raise(pe *runtime.PanicError) {
	if w := runtime.CurrentWorker(); w != nil {
		w.Registry().Raise(pe)
	}
	panic((*pool.PanicError)(pe))
}

// asPanicError is the record of a recovered panic value, or the one it
// already is the user value of. Call it from the deferred function that
// recovered (the stack is taken there).
func asPanicError(v any) *runtime.PanicError {
	if w := runtime.CurrentWorker(); w != nil {
		return w.Registry().AsPanicError(v)
	}
	if pe, ok := v.(*pool.PanicError); ok {
		return (*runtime.PanicError)(pe)
	}
	return runtime.AsPanicError(v)
}

// userValue is pe as the caller's pool hands panics over (a context's
// cause, an error).
func userValue(pe *runtime.PanicError) error {
	if w := runtime.CurrentWorker(); w != nil {
		return w.Registry().UserValue(pe)
	}
	return (*pool.PanicError)(pe)
}

// recoverPanic, deferred directly, stores the panic's record in dst.
func recoverPanic(dst **runtime.PanicError) {
	if v := recover(); v != nil {
		*dst = asPanicError(v)
	}
}

// topCallOffPool runs f(x) on pool.Default(), whose Run re-raises panics
// as *PanicError, or serial(x) on the caller (see enterSerialCall). Out of
// line so that its closure's captures do not make topCall's variables
// escape on the worker path.
//
//go:noinline
func topCallOffPool[A, R any](f func(A) R, serial func(runtime.SerialCall, A) R, x A) (r R) {
	if serial != nil {
		if c, ok := enterSerialCall(); ok {
			defer rethrow()
			return serial(c, x)
		}
	}
	pool.Default().Run(func() { r = f(x) })
	return r
}

// topDoOffPool is topCallOffPool for a function without a result.
//
//go:noinline
func topDoOffPool[A any](f func(A), serial func(runtime.SerialCall, A), x A) {
	if serial != nil {
		if c, ok := enterSerialCall(); ok {
			defer rethrow()
			serial(c, x)
			return
		}
	}
	pool.Default().Run(func() { f(x) })
}

// enterSerialCall admits a call from a goroutine that is no worker to run
// serially on the caller while the default pool is saturated: its callers
// in a call (request handlers, say) fill its Ps
// (runtime.Registry.EnterSerialCall), so no worker could help without
// taking a P from one of them. The reduction (Fold, Reduce: each piece
// folds a range of its own and waits for no other) then runs its pieces
// one after the other on the caller, as a range too small to split does,
// without the guest slot and the pieces' bookkeeping that a call from a
// goroutine otherwise costs (runtime/guest.go). Its serial form leaves
// the call (serialLeave) once done, or once the call is overdue: it then
// hands the pieces left to the pool, as any call from a goroutine, where a
// piece that blocks gets the workers its siblings need. Otherwise it
// reports false, and the call runs on the pool (as a guest). For keeps
// the guest path: its chunks may wait for one another (a barrier), which
// only a guest's queued chunks, visible to the pool, let progress.
func enterSerialCall() (runtime.SerialCall, bool) {
	return defaultreg.Registry().EnterSerialCall()
}

// serialLeave, deferred by a serial form, ends its call c unless the form
// already has (left), to hand its rest to the pool.
func serialLeave(c runtime.SerialCall, left *bool) {
	if !*left {
		c.Leave()
	}
}

// chunksPerWorker is how many pieces For, Map and Reduce aim for per
// worker when they choose the grain: more than one, so that a worker that
// finishes early can steal a piece from one that is slow (uneven element
// costs, a descheduled thread), but few enough that each piece is large
// next to the tens of nanoseconds a fork costs.
const chunksPerWorker = 8

// autoGrain returns the grain that splits n >= 1 items into about
// chunksPerWorker pieces per worker of the current pool: ceil(n/pieces),
// at least 1.
func autoGrain(n uint) int {
	pieces := uint(chunksPerWorker * pool.Current().Workers())
	g := n / pieces
	if n%pieces != 0 {
		g++
	}
	return int(g)
}
