package forkjoin

import (
	"context"

	"github.com/spindle-go/spindle/internal/firsterr"
	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// stopper is the shared state of one ForErr or MapErr call: the rule
// (the first failure cancels, chunks and elements not started are skipped)
// and the context handed to the bodies.
type stopper struct {
	firsterr.Stopper
	ctx context.Context
}

func newStopper(call string, ctx context.Context) *stopper {
	if ctx == nil {
		panic(call + ": nil context")
	}
	st := new(stopper)
	var onWorker func(func())
	if runtime.InSynctestBubble() {
		onWorker = runOnWorker // see firsterr.Stopper.Start
	}
	st.ctx = st.Start(ctx, onWorker)
	return st
}

// runOnWorker runs f on a worker of the current pool, never on the
// caller as a guest, and returns when it has returned: inside a call to a
// pool, on that pool (runtime.Registry.RunOnWorker); outside any, f is
// submitted to the current pool, which injects it.
func runOnWorker(f func()) {
	if w := runtime.CurrentWorker(); w != nil {
		w.Registry().RunOnWorker(f)
		return
	}
	pool.Submit(pool.Current(), func() struct{} { f(); return struct{}{} }).Wait()
}

// catch, deferred in a chunk, stops the call when the chunk panics and
// lets the panic go on to For, which re-raises it after every chunk has
// finished.
func (st *stopper) catch() {
	if v := recover(); v != nil {
		pe := asPanicError(v)
		st.Fail(userValue(pe))
		raise(pe)
	}
}

// result is the call's error once every chunk has finished (see
// firsterr.Stopper.Result). It releases the context.
func (st *stopper) result(parent context.Context) error {
	st.Cancel()
	return st.Result(parent)
}

// ForErr is For for bodies that can fail or be cancelled: it calls body
// on disjoint chunks [l, h) covering [lo, hi), possibly in parallel on the
// current pool, with the chunks and grain of For, except that with grain
// <= 0 a chunk holds at most 16Ki indexes (For's automatic grain makes 8
// chunks per worker, each of which may run for milliseconds): chunks not
// yet started are what a stop saves, and a stop waits for the chunks
// running, so they are kept short. Once a body returns a
// non-nil error (the first to do so, in time), or ctx is done, chunks that
// have not started are never started; the context passed to body is
// derived from ctx and cancelled, with that error as its cause, at the
// first error, so that long-running bodies can stop early. ForErr returns
// after every chunk that started has finished, with the first error; with
// context.Cause(ctx) if ctx ended before some chunk started and no body
// failed; else nil. A panic in body also stops the call and is re-raised,
// as by For, as a *pool.PanicError once every started chunk has finished.
// A nil ctx or body panics.
//
// On one worker the chunks run in order, so a failure in the first chunk
// of [lo, hi) with grain g runs one body of the (hi-lo)/g.
func ForErr(ctx context.Context, lo, hi, grain int, body func(ctx context.Context, lo, hi int) error) error {
	if body == nil {
		nilFunc("forkjoin.ForErr")
	}
	st := newStopper("forkjoin.ForErr", ctx)
	if grain <= 0 && hi > lo {
		grain = searchChunks(hi - lo) // see the doc: a stop is seen within a chunk
	}
	For(lo, hi, grain, func(lo, hi int) {
		if st.Skip() {
			return
		}
		defer st.catch()
		if err := body(st.ctx, lo, hi); err != nil {
			st.Fail(err)
		}
	})
	return st.result(ctx)
}

// MapErr is Map for functions that can fail or be cancelled: it returns
// out with out[i] = f(ctx', in[i]), computed possibly in parallel on the
// current pool, where ctx' is derived from ctx and cancelled, with the
// error as its cause, at the first error f returns. From then on (or once
// ctx is done) no further element is started: the check is made before
// every element, so at most one element per running chunk starts after
// the failure. MapErr returns after every call that started has returned:
// nil and the first error (in time), or nil and context.Cause(ctx) if ctx
// ended before some element was started, or out and nil. A panic in f is
// re-raised as a *pool.PanicError in the same way. A nil ctx or f panics.
func MapErr[T, U any](ctx context.Context, in []T, f func(ctx context.Context, v T) (U, error)) ([]U, error) {
	if f == nil {
		nilFunc("forkjoin.MapErr")
	}
	st := newStopper("forkjoin.MapErr", ctx)
	out := make([]U, len(in))
	if len(in) > 0 {
		For(0, len(in), 0, func(lo, hi int) {
			defer st.catch()
			dst := out[lo:hi]
			for i, x := range in[lo:hi] {
				if st.Skip() {
					return
				}
				v, err := f(st.ctx, x)
				if err != nil {
					st.Fail(err)
					return
				}
				dst[i] = v
			}
		})
	}
	if err := st.result(ctx); err != nil {
		return nil, err
	}
	return out, nil
}
