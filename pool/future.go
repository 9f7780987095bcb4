package pool

import "github.com/spindle-go/spindle/runtime"

// Future is the result of a task started with Submit or SubmitContext:
// Wait for it, select on Done, or poll with TryGet; Err tells a task
// cancelled before it started (SubmitContext, CloseNow) from one that ran. Any
// number of goroutines and workers may wait on one future, at the same
// time or later; each gets the same result. Futures come from Submit and
// SubmitContext only; the zero value is not usable, and a method called
// on a nil *Future panics naming the call.
type Future[T any] struct{ t futureTask[T] }

// futureTask is Future's content: the runtime's untyped record (job,
// completion state, waiters), the function, and its result. It is the
// job's Runner; its Run method lives on this unexported type so that it is
// not part of Future's API.
type futureTask[T any] struct {
	rec runtime.Future
	fn  func() T // nil once run
	val T
	// cause is why the task never started (Err): the context's cause
	// (SubmitContext) or errDropped (CloseNow), written before the future
	// completes as cancelled, read after it is done.
	cause error
}

// Run runs the task, or drops it if CloseNow was called first: the future
// completes as cancelled and Close's count is released.
func (t *futureTask[T]) Run(w *runtime.Worker) {
	if w.Registry().Dropping() {
		t.fn, t.cause = nil, errDropped
		t.rec.Cancel()
		t.rec.Drop()
		return
	}
	t.rec.Complete(t.compute())
}

// compute runs fn and stores its result, or returns its panic.
func (t *futureTask[T]) compute() (pe *runtime.PanicError) {
	defer recoverPanic(&pe)
	fn := t.fn
	t.fn = nil // the future may outlive the closure's use
	t.val = fn()
	return nil
}

// Submit starts f on p and returns its future at once. The task is
// detached, like Spawn's: Close waits for it, so a future submitted before
// Close returned is done by then and Wait returns its result.
//
// From one of p's workers the task is pushed on that worker's deque (and
// is always visible to thieves); from anywhere else, a worker of another
// pool included, it goes to p's injector. A panic in f is kept in the
// future and re-raised by Wait as a *PanicError; it never reaches the
// pool's panic handler.
//
// It costs one allocation besides f's closure: the Future, which holds
// the runtime's record, f and the result. On a closed pool Submit panics
// with an error wrapping ErrClosed, unless it is called from one of p's
// own tasks while Close waits for them (as with Spawn); a nil f panics.
func Submit[T any](p *Pool, f func() T) *Future[T] {
	p.mustBeMade("pool.Submit")
	if f == nil {
		nilFunc("pool.Submit")
	}
	fut := new(Future[T])
	fut.t.fn = f
	p.reg.Submit("pool.Submit", &fut.t.rec, &fut.t)
	return fut
}

// Wait returns the task's result once it has finished, or re-panics with
// its *PanicError if it panicked (on every call). For a task that
// SubmitContext cancelled before it started, Wait returns the zero value
// at once and does not panic: a cancellation is an outcome the caller
// asked for, not a failure of the task, so it is reported as an error,
// by Err, as errgroup and the Context calls of this package report it. A
// caller that cancels checks Err.
//
// Called from a worker (of this pool or any other), Wait does not block
// the thread, like Join: it runs the worker's own jobs first, newest
// first, which is usually the awaited task itself when the caller
// submitted it just before, then steals and takes injected work, sleeping
// only when there is none, until the task is done. Called from any other
// goroutine it blocks, without spinning, until the task is done.
//
// The rule for waiting inside tasks is Join's: a task may wait for the
// futures it submitted itself, or that tasks it waited for submitted (a
// tree of waits, as with fork-join). Waiting inside a task for a future
// submitted elsewhere, a sibling's or one made outside the pool, can
// deadlock: while it waits, the worker may take up, on the same stack, a
// task that waits for the first one, and neither can then return. Off
// the pool, any future may be waited for in any order.
func (f *Future[T]) Wait() T {
	if f == nil {
		nilPointer("pool.Future.Wait", "*pool.Future")
	}
	f.t.rec.Wait()
	return f.t.val
}

// Done returns a channel that is closed when the task has finished
// (returned or panicked), or was cancelled (SubmitContext), for select.
// The first call on an unfinished future allocates the channel. Blocking
// on it inside a task blocks the worker's thread: inside tasks, prefer
// Wait, or select inside Block, which keeps the worker running other
// tasks meanwhile.
func (f *Future[T]) Done() <-chan struct{} {
	if f == nil {
		nilPointer("pool.Future.Done", "*pool.Future")
	}
	return f.t.rec.Chan()
}

// TryGet returns the result and true if the task has finished, or the
// zero value and false without waiting if it has not. If the task
// panicked, TryGet re-panics with its *PanicError, as Wait would; if it
// was cancelled before it started (SubmitContext), TryGet returns the
// zero value and true, as Wait would.
func (f *Future[T]) TryGet() (T, bool) {
	if f == nil {
		nilPointer("pool.Future.TryGet", "*pool.Future")
	}
	if !f.t.rec.Ready() {
		var zero T
		return zero, false
	}
	return f.Wait(), true
}

// Err waits for the future as Wait does, inside tasks as outside, and
// returns why the task never started, if it did not (its function never
// ran): context.Cause(ctx) if SubmitContext's context ended first, an
// error wrapping ErrClosed if CloseNow dropped it. It returns nil if the
// task ran, returned or panicked: a panic is Wait's to re-raise, not
// Err's. A future from Submit runs unless CloseNow drops it.
func (f *Future[T]) Err() error {
	if f == nil {
		nilPointer("pool.Future.Err", "*pool.Future")
	}
	f.t.rec.Await()
	return f.t.cause
}
