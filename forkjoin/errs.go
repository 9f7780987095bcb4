package forkjoin

import (
	"context"
	"sync/atomic"

	"github.com/spindle-go/spindle/internal/firsterr"
	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// stopper is the shared state of one ForErr, MapErr or FoldErr call
// (ReduceContext is a FoldErr): the rule (the first failure cancels,
// chunks and elements not started are skipped) and the context handed to
// the bodies.
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

// FoldErr is Fold for bodies that can fail or be cancelled, under ForErr's
// rule: it folds [lo, hi) as Fold does, init making the accumulators,
// body(ctx', acc, l, h) folding the indexes [l, h) into acc and merge
// combining consecutive runs, where ctx' is derived from ctx and cancelled,
// with the error as its cause, at the first error a body returns. Once a
// body has returned a non-nil error (the first to do so, in time), or ctx
// is done, no body starts, nor init for one; once a body has failed or
// been skipped, no merge starts either (the result is dropped). FoldErr
// returns after every body that started has returned: the zero S and the
// first error; the zero S and context.Cause(ctx) if ctx ended before some
// body started and no body failed; else Fold's result and nil, every index
// folded, whatever ctx does meanwhile (the merges of a fold whose bodies
// all ran are not stopped). A ctx already done returns its cause without
// calling anything; an empty range returns init() and nil, as ForErr
// returns nil, whatever ctx.
//
// The check is made before every call of body, never per index, so the
// calls are kept short: body gets pieces of at least grain indexes (one,
// when the range holds fewer), as Fold's, but Fold's own minimum (8
// pieces per worker, each of which may run for milliseconds) is capped at
// 16Ki indexes, as in ForErr, so that with grain <= 16Ki a piece holds
// fewer than 32Ki. Consecutive pieces run in order on one worker fold
// into one accumulator, as in Fold, and as in Fold a body must not wait
// for another body of the same call. A panic in init, body or merge stops
// the call and cancels ctx' as an error does, and is re-raised, as by
// Fold, as a *pool.PanicError once every body that started has returned.
// A nil ctx or function panics.
func FoldErr[S any](ctx context.Context, lo, hi, grain int, init func() S, body func(ctx context.Context, acc S, lo, hi int) (S, error), merge func(a, b S) S) (S, error) {
	if init == nil || body == nil || merge == nil {
		nilFunc("forkjoin.FoldErr")
	}
	return foldErr("forkjoin.FoldErr", ctx, lo, hi, grain, init, body, merge)
}

// foldErr is FoldErr for the call named call: Fold, with init, body and
// merge wrapped in the stopper's checks, and Fold's pieces cut into
// bodies of at most step indexes (the last of a piece up to 2*step-1).
// Fold merges only once every piece has finished, so stopped, set when a
// body failed or was skipped, is final by the first merge.
func foldErr[S any](call string, ctx context.Context, lo, hi, grain int, init func() S, body func(ctx context.Context, acc S, lo, hi int) (S, error), merge func(a, b S) S) (S, error) {
	st := newStopper(call, ctx)
	var zero S
	if lo >= hi {
		st.Cancel()
		return topCall(callInit[S], nil, init, false), nil
	}
	if st.Skip() {
		return zero, st.result(ctx)
	}
	step := uint(max(grain, searchChunks(hi-lo)))
	var stopped atomic.Bool
	fold := func(acc S, lo, hi int) S {
		defer st.catch()
		next, err := body(st.ctx, acc, lo, hi)
		if err != nil {
			stopped.Store(true)
			st.Fail(err)
		}
		return next
	}
	acc := Fold(lo, hi, grain,
		func() S {
			if st.Skip() {
				return zero // its piece is skipped too
			}
			defer st.catch()
			return init()
		},
		func(acc S, lo, hi int) S {
			for lo < hi {
				if st.Skip() {
					stopped.Store(true)
					break
				}
				end := hi
				if uint(hi)-uint(lo) >= 2*step {
					end = lo + int(step)
				}
				acc = fold(acc, lo, end)
				lo = end
			}
			return acc
		},
		func(a, b S) S {
			if stopped.Load() {
				return a
			}
			defer st.catch()
			return merge(a, b)
		})
	if err := st.result(ctx); err != nil {
		return zero, err
	}
	return acc, nil
}

// ReduceContext is Reduce that stops once ctx is done: it combines the
// elements of in with op, in order, up to the placement of parentheses,
// as Reduce does (op associative, not necessarily commutative; identity
// returned for an empty in and never combined), in the pieces of FoldErr
// with grain 0: once ctx is done no piece starts, and once a piece was
// skipped no two pieces' results are combined. It then returns the zero T
// and context.Cause(ctx); if every piece started, Reduce's result and
// nil, whatever ctx does meanwhile. The check is made where a piece
// starts, never per element. A ctx already done returns its cause without
// calling op, unless in is empty. A panic in op is re-raised as a
// *pool.PanicError once every piece that started has finished. A nil ctx
// or op panics.
func ReduceContext[T any](ctx context.Context, in []T, identity T, op func(a, b T) T) (T, error) {
	if op == nil {
		nilFunc("forkjoin.ReduceContext")
	}
	// A run's accumulator: the fold of its elements, none before its
	// first piece (identity is not combined). Merges see only runs that
	// folded a piece: foldErr merges none once a piece was skipped.
	type partial struct {
		v  T
		ok bool
	}
	acc, err := foldErr("forkjoin.ReduceContext", ctx, 0, len(in), 0,
		func() partial { return partial{} },
		func(_ context.Context, acc partial, lo, hi int) (partial, error) {
			if !acc.ok {
				acc = partial{in[lo], true}
				lo++
			}
			for _, x := range in[lo:hi] {
				acc.v = op(acc.v, x)
			}
			return acc, nil
		},
		func(a, b partial) partial { return partial{op(a.v, b.v), true} })
	switch {
	case err != nil:
		var zero T
		return zero, err
	case !acc.ok:
		return identity, nil
	}
	return acc.v, nil
}
