package pool

import (
	"context"
	"sync/atomic"

	"github.com/spindle-go/spindle/runtime"
)

// SubmitContext is Submit with a context: if ctx is done before f starts,
// f never runs and the future completes as cancelled, at once, not when a
// worker reaches the queued task: Done is closed, Wait and TryGet return
// the zero value, and Err returns context.Cause(ctx). Otherwise f runs as
// Submit runs it, whatever ctx does meanwhile (f reads ctx itself to stop
// early), and Err returns nil. Exactly one of the two happens.
//
// The task counts as detached work until a worker reaches it, cancelled
// or not: Close waits for that, which a cancelled task makes quick (the
// worker only drops it). A future submitted before Close returned is done
// by then, either way.
//
// It costs a registration with ctx (context.AfterFunc), withdrawn when the
// task starts; for the standard library's contexts nothing runs until ctx
// ends, while a context of another type costs a goroutine for each future
// that waits (see context.AfterFunc). A nil ctx or f panics, and so does a
// closed pool, with an error wrapping ErrClosed, as for Submit, even when
// ctx is done.
//
// Inside a testing/synctest bubble, the workers of a pool made outside it
// may not read a context of the bubble, so there a cancellation counts
// from the moment the context.AfterFunc callback has run, a goroutine of
// the bubble (by the time synctest.Wait returns), rather than from the
// moment ctx ends: a task may start in between.
func SubmitContext[T any](ctx context.Context, p *Pool, f func() T) *Future[T] {
	p.mustBeMade("pool.SubmitContext")
	if ctx == nil {
		panic("pool.SubmitContext: nil context")
	}
	if f == nil {
		nilFunc("pool.SubmitContext")
	}
	c := &ctxFuture[T]{ctx: ctx, bubbled: runtime.InSynctestBubble()}
	c.t.fn = f
	queued := false
	if ctx.Err() != nil {
		c.cancel() // before the task is queued: the worker only drops it
	} else if ctx.Done() != nil {
		c.stop = context.AfterFunc(ctx, c.cancel)
		defer func() {
			if !queued {
				c.stop() // Submit panicked: the pool is closed
			}
		}()
	}
	p.reg.Submit("pool.SubmitContext", &c.t.rec, c)
	queued = true
	return &c.Future
}

// ctxFuture is the record of a future from SubmitContext: the Future that
// the caller gets, and the state that decides, once, between the task's
// start and its cancellation. It is the job's Runner instead of the
// Future's futureTask, so that Submit's futures carry none of it; Err
// finds it through the runtime's record (runtime.Future.Runner).
//
// The state goes from ctxPending to ctxStarted when a worker starts the
// task, or to ctxCancelling when the context ends first; whoever moves it
// from ctxPending owns the outcome. The canceller completes the future
// (runtime.Future.Cancel) and then moves it on to ctxCancelled, unless the
// worker reached the job meanwhile and moved it to ctxReached: the second
// of the two releases Close's count (runtime.Future.Drop), so that Close
// returns only once the future is done.
type ctxFuture[T any] struct {
	Future[T]
	state atomic.Uint32
	// bubbled is set when SubmitContext ran inside a testing/synctest
	// bubble: a worker of a pool made outside it may not receive from a
	// channel the bubble made, as ctx's done channel may be (a fatal
	// error), and ctx.Err and context.Cause receive from it once ctx has
	// ended. So Run does not read ctx there (ctxDone): only the
	// context.AfterFunc callback, a goroutine of the bubble, cancels.
	bubbled bool
	ctx     context.Context
	// stop withdraws the context.AfterFunc registration: called when the
	// task starts, or if Submit refused it; nil when ctx was done already
	// or cannot end.
	stop func() bool
}

const (
	ctxPending    = iota // neither started nor cancelled
	ctxStarted           // a worker started the task
	ctxCancelling        // the context ended first; the future is being completed
	ctxCancelled         // ... and is complete: the worker releases Close's count
	ctxReached           // the worker reached the job during ctxCancelling: the canceller releases it
)

// Run starts f, unless the context ended first. The context is read here
// too: context.AfterFunc's callback runs on a goroutine of its own, which
// may not have run yet, and a task whose context is done does not start.
func (c *ctxFuture[T]) Run(w *runtime.Worker) {
	if w.Registry().Dropping() { // CloseNow
		c.cancelWith(errDropped)
	} else if c.ctxDone() {
		c.cancel()
	}
	if c.state.CompareAndSwap(ctxPending, ctxStarted) {
		if c.stop != nil {
			c.stop()
		}
		c.t.rec.Complete(c.t.compute())
		return
	}
	if !c.state.CompareAndSwap(ctxCancelling, ctxReached) {
		c.t.rec.Drop() // ctxCancelled: the canceller is done with the future
	}
}

// ctxDone reports whether the context has ended: one load of its done
// channel; in a bubble false, see bubbled.
func (c *ctxFuture[T]) ctxDone() bool {
	if c.bubbled {
		return false
	}
	select {
	case <-c.ctx.Done():
		return true
	default:
		return false
	}
}

// cancel completes the future as cancelled if the task has not started:
// the context.AfterFunc callback, and Run or SubmitContext when they find
// the context done.
func (c *ctxFuture[T]) cancel() { c.cancelWith(nil) }

// cancelWith is cancel with the cause Err reports: cause, or
// context.Cause(ctx) if cause is nil.
func (c *ctxFuture[T]) cancelWith(cause error) {
	if !c.state.CompareAndSwap(ctxPending, ctxCancelling) {
		return // started, or cancelled already
	}
	if cause == nil {
		cause = context.Cause(c.ctx)
	}
	c.t.cause = cause
	c.t.fn = nil // f never runs: let its closure go
	c.t.rec.Cancel()
	if !c.state.CompareAndSwap(ctxCancelling, ctxCancelled) {
		c.t.rec.Drop() // ctxReached: the worker has dropped the job
	}
}
