package runtime

import "fmt"

// runJob carries a call from outside the registry (Registry.Run) to a
// worker. Its waiter is either an ordinary goroutine, blocked on done (a
// handoff), or a worker of another registry, the latch's owner, helping
// its own pool until job.Latch is set.
type runJob struct {
	job   Job
	fn    func()
	reg   *Registry
	panic *PanicError
	done  handoff
}

func (j *runJob) Run(w *Worker) {
	j.panic = j.reg.Catch(j.fn)
	if j.job.Latch.owner == nil {
		w.readied() // the caller, an ordinary goroutine
		j.done.signal()
		return
	}
	j.job.Latch.Set()
}

// Run runs f on a worker of r and returns when f has returned. A panic in f
// is re-raised in the caller as a *PanicError. call names the public
// function for the ErrClosed panic.
//
//   - From a worker of r, f runs right there.
//   - From a worker of another registry, f is injected into r and the
//     caller keeps serving its own registry until f is done.
//   - From any other goroutine, f runs on the caller, a guest of r for
//     the call (guest.go); when every guest slot is taken, f is injected
//     and the caller blocks.
func (r *Registry) Run(call string, f func()) {
	w := CurrentWorker()
	if w != nil && (w.reg == r || w.analysing) {
		r.Raise(r.Catch(f))
		return
	}
	r.enter(call)
	defer r.leave()
	if w == nil {
		if g := r.acquireGuest(); g != nil {
			r.Raise(r.runAsGuest(g, f))
			return
		}
	}
	r.runInjected(w, f)
}

// runInjected runs f on a worker of r, for a call admitted from outside
// r: from worker w of another registry, which helps its own meanwhile,
// or, w being nil, from a goroutine that is no worker, which blocks. A
// panic in f is re-raised in the caller.
func (r *Registry) runInjected(w *Worker, f func()) {
	j := &runJob{fn: f, reg: r}
	if w == nil {
		j.done.arm(r)
	}
	j.job.Init(j, w)
	j.job.takeLabels()
	r.inject(&j.job, 1)
	if w == nil {
		j.done.wait(r)
	} else {
		w.waitUntil(&j.job.Latch, false)
	}
	r.Raise(j.panic)
}

// RunOnWorker runs f on one of r's own workers, never on the caller as a
// guest, and returns when f has returned; from a worker of r, f runs
// right there. It is for what must happen outside a testing/synctest
// bubble the caller is in (bubble.go): a channel f makes belongs to no
// bubble when r was made outside one. A guest (of any registry) waits as
// a goroutine that is no worker does, so that f reaches a worker rather
// than its own helping. It reports false, having run nothing, if r is
// closed. A panic in f is re-raised in the caller.
func (r *Registry) RunOnWorker(f func()) bool {
	w := CurrentWorker()
	if w != nil && w.guest {
		w = nil // its goroutine may be the bubble's
	}
	if w != nil && w.reg == r {
		r.Raise(r.Catch(f))
		return true
	}
	if !r.admit() {
		return false
	}
	defer r.leave()
	r.runInjected(w, f)
	return true
}

// spawnJob is a detached task (Registry.Spawn). Its records are recycled
// as a scope's task records are (records.go).
type spawnJob struct {
	job     Job
	fn      func()
	reg     *Registry
	outside bool // made for a caller that is no worker (see scopeJob)
}

// Run must not panic (no job's Run may: a worker runs jobs while it waits
// inside other tasks' joins, and a panic escaping here would unwind those),
// so a panicking handler crashes the program instead. The record goes back
// to a free list first, as a scope task's does.
func (j *spawnJob) Run(w *Worker) {
	f, r := j.fn, j.reg
	j.fn, j.reg = nil, nil
	freeRecord(&w.spawnJobs, j, j.outside, &outsideSpawnJobs)
	defer r.leave()
	if r.Dropping() { // CloseNow
		return
	}
	if pe := r.Catch(f); pe != nil {
		if hp := r.Catch(func() { r.handlePanic(pe) }); hp != nil {
			go panic(hp)
		}
	}
}

// newSpawnJob is newScopeJob for detached tasks.
func (w *Worker) newSpawnJob() *spawnJob {
	if w != nil {
		if j := takeRecord(&w.spawnJobs); j != nil {
			return j
		}
	} else if j, _ := outsideSpawnJobs.Get().(*spawnJob); j != nil {
		return j
	}
	j := &spawnJob{outside: w == nil}
	j.job.Init(j, nil)
	return j
}

func (r *Registry) handlePanic(pe *PanicError) {
	if h := r.panicHandler; h != nil {
		h(r.UserValue(pe))
		return
	}
	// As an unrecovered goroutine panic would: crash the program, printing
	// the value and the stack where it panicked (Error is one line, so the
	// crash carries the whole report).
	go panic(crashReport{pe})
}

// crashReport is the value of the crash for a detached task's panic with
// no handler: what the runtime prints is its Error, the panic's value and
// the stack where it happened.
type crashReport struct{ pe *PanicError }

func (c crashReport) Error() string { return fmt.Sprintf("%+v", c.pe) }

// Spawn runs f on r without waiting for it. Close waits for it. From a
// worker of r outside any isolated region it goes on that worker's deque,
// otherwise to the injector: a detached task belongs to no region, whose
// waits would otherwise run it (isolate.go).
// Spawning from r's own tasks is allowed while Close drains (the task
// spawning is itself waited for); from anywhere else a closed registry
// panics with ErrClosed.
func (r *Registry) Spawn(call string, f func()) {
	r, w := r.admitTask(call)
	j := w.newSpawnJob()
	j.fn, j.reg = f, r
	r.queueIn(w, &j.job, 0, 1) // nobody waits for it: no region's (isolate.go)
}

// admitTask counts a detached task or a future of r in active, and
// returns the registry it runs on (the analysis worker's, on that worker:
// analyze.go) and the worker running the caller if it belongs to that
// registry. From such a worker it counts without the closed check (the
// caller runs inside something Close waits for); from anywhere else it
// admits a call from outside, which panics once r is closed.
func (r *Registry) admitTask(call string) (*Registry, *Worker) {
	w := CurrentWorker()
	if w != nil && w.analysing {
		r = w.reg
	}
	if w != nil && w.reg == r {
		r.active.Add(1)
		return r, w
	}
	r.enter(call)
	return r, nil
}
