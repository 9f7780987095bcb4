package pool

// Broadcast runs f once on each of p's workers and returns when every
// call has returned: f(i) runs on the worker whose WorkerIndex is i, for
// each worker that Workers counts when Broadcast is called (spares and
// guests are no workers; size per-worker state by MaxWorkers). It is
// Rayon's broadcast: for work each worker's thread must do itself, such
// as flushing or reading per-worker state (NewPerWorker) at a moment the
// caller chooses; to set a thread up when it starts, WithWorkerHooks.
//
// A worker runs its call the next time it looks for work: at once if it
// is idle, asleep or parked, else once its current task returns or waits
// (in a join, a scope, a group), so a task that runs long or blocks
// delays Broadcast by that long. The calls take the caller's profiler
// labels. If calls panic, the first panic is re-raised once all have
// returned, as a *PanicError.
//
// Broadcast is a call from outside the pool: from one of p's own tasks
// (its workers, or a goroutine running a call as its guest) it panics,
// since that task's own wait could hold back a worker the broadcast waits
// for; from a worker of another pool it serves that pool while it waits,
// as Run does. On a closed pool it panics with an error wrapping
// ErrClosed; a nil f panics.
func (p *Pool) Broadcast(f func(worker int)) {
	p.mustBeMade("pool.Pool.Broadcast")
	if f == nil {
		nilFunc("pool.Pool.Broadcast")
	}
	p.reg.Broadcast("pool.Pool.Broadcast", f)
}
