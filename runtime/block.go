package runtime

// Block runs f, which is about to block (on a channel, a lock, I/O, a
// sleep), without taking this worker's thread out of the pool: f runs on a
// goroutine of its own while the worker keeps running other jobs (its own,
// stolen, injected) until f returns, as it does while waiting for a stolen
// join. A pool whose tasks all wait for something that a queued task would
// release therefore keeps running that task instead of deadlocking. f's
// panic is re-raised here as a *PanicError once f has returned.
//
// This is spindle's counterpart of Java's ForkJoinPool.managedBlock. Java
// keeps the blocker on its thread and adds a spare thread; here the worker
// thread itself stays in the pool and the blocker gets an ordinary
// goroutine, which costs nothing while it is blocked. The difference users
// can see: f does not run on a worker (pool.WorkerIndex() is -1 in f, and
// f's own fork-join calls go to the default pool).
func (w *Worker) Block(f func()) {
	rec := &blockRecord{reg: w.reg}
	rec.done.owner = w
	go rec.run(f)
	w.waitUntil(&rec.done, false)
	if rec.panic != nil {
		w.reg.Raise(rec.panic)
	}
}

type blockRecord struct {
	done  Latch
	reg   *Registry // whose PanicValue f's panic is caught with
	panic *PanicError
}

func (b *blockRecord) run(f func()) {
	b.panic = b.reg.Catch(f)
	b.done.Set()
}
