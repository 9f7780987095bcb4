package runtime

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Scope lets a task spawn any number of tasks that may outlive the spawning
// function but not the scope: Registry.Scope returns only when the scope's
// body and every task spawned on it (transitively) have finished.
//
// Its fields are laid out by who writes them: first the read-mostly ones
// (set up once, the latch set once), then the owner's count and the shared
// count, falseSharingRange bytes apart (scopecount.go).
type Scope struct {
	scopeHead
	_     [falseSharingRange - unsafe.Sizeof(scopeHead{})%falseSharingRange]byte
	count scopeCount
}

// scopeHead is the read-mostly part of a Scope.
type scopeHead struct {
	reg *Registry
	// owner is the worker that runs the body and waits for the scope.
	owner *Worker
	done  Latch                      // set when every task has finished
	panic atomic.Pointer[PanicError] // the first panic
	group *groupHead                 // a group's own part (group.go); nil for a scope
	// skip, if not nil, drops the body and the tasks that have not
	// started once it says so (scopeskip.go); nil for a plain scope.
	skip Skipper
	// tag is the context the scope belongs to (isolate.go): that of the
	// worker that made it, 0 off the pool or outside any region. Its tasks
	// carry it wherever they are spawned from, so that a region's waits
	// run the tasks of the region's scopes and groups, and never those of
	// a scope or group made outside the region.
	tag uint64
}

// scopeJob is one task spawned on a scope. The records are recycled
// through the workers' free lists (newScopeJob), so that a spawn allocates
// nothing but the caller's closure.
type scopeJob struct {
	job   Job
	fn    func(*Scope)
	efn   func() error // instead of fn, for a group's task (group.go)
	scope *Scope
	// outside is set on records made for callers that are no worker:
	// when a worker's free list is full, they go back to those callers
	// (records.go).
	outside bool
}

// Run runs the task on the current worker, then its descendants that are
// closure tasks of the same scope, as valueJob's Run does (descendants.go),
// freeing each record first (records.go).
func (j *scopeJob) Run(w *Worker) {
	f, ef, s := j.fn, j.efn, j.scope
	j.fn, j.efn, j.scope = nil, nil, nil
	freeRecord(&w.scopeJobs, j, j.outside, &outsideScopeJobs)
	if ef != nil {
		s.runGroupTask(w, ef)
		return
	}
	below := w.descendantsAbove()
	finished := false
	defer func() {
		if !finished {
			s.finishPanicked(w, recover())
		}
	}()
	for {
		w.siblings = 0
		if s.skip == nil || !s.skip.Skip() {
			f(s)
		}
		finished = true
		if j = nextClosureDescendant(w, s, w.endTask(s, below)); j == nil {
			return
		}
		f = j.fn
		j.fn, j.scope = nil, nil
		freeRecord(&w.scopeJobs, j, j.outside, &outsideScopeJobs)
		finished = false
	}
}

// nextClosureDescendant is nextDescendant for Scope.Spawn's tasks: j,
// popped by endTask, if it is a closure task of s at level 0 (not a
// group's task, which runs its own way, nor one of SpawnPriority's more
// urgent ones), started; nil otherwise.
func nextClosureDescendant(w *Worker, s *Scope, j *Job) *scopeJob {
	if j == nil {
		return nil
	}
	if v, ok := j.runner.(*scopeJob); ok && v.scope == s && v.efn == nil && j.level() == 0 {
		w.startDescendant(s)
		return v
	}
	w.unpop(j)
	return nil
}

// newScopeJob returns a task record from w's free list, or for a caller
// that is no worker (w nil) from the records such callers handed over
// before, or a new one.
func (w *Worker) newScopeJob() *scopeJob {
	if w != nil {
		if j := takeRecord(&w.scopeJobs); j != nil {
			return j
		}
	} else if j, _ := outsideScopeJobs.Get().(*scopeJob); j != nil {
		return j
	}
	j := &scopeJob{outside: w == nil}
	j.job.Init(j, nil)
	return j
}

// Spawn runs f(s) as a task of the scope, possibly in parallel with the
// caller. It is SpawnPriority at level 0, the level of joins.
//
// Spawn must be called while the scope is running: from its body, from a
// task spawned on it, or from a goroutine they wait for. A call after the
// scope finished is a programming error and panics.
func (s *Scope) Spawn(f func(s *Scope)) { s.spawn("pool.Scope.Spawn", 0, f) }

// SpawnPriority is Spawn for a task of the given priority level, from 0
// (Spawn's) to MaxPriority (most urgent). Workers start queued tasks of
// higher levels before lower ones, as the registry's PriorityPolicy says.
func (s *Scope) SpawnPriority(level int, f func(s *Scope)) {
	s.spawn("pool.Scope.SpawnPriority", level, f)
}

func (s *Scope) spawn(call string, level int, f func(s *Scope)) {
	checkLevel(call, level)
	if f == nil {
		panic(call + ": nil function")
	}
	if s.skip != nil && s.skipSpawn(call) { // scopeskip.go
		return
	}
	w := s.spawner(call)
	j := w.newScopeJob()
	j.fn, j.scope = f, s
	if level == 0 {
		s.queueTask(w, &j.job, false)
		return
	}
	s.queue(w, &j.job, level, 1)
}

// SpawnMany spawns n tasks of the scope, f(s, 0) to f(s, n-1), as one
// bulk spawn: a single job is queued for all of them, and workers that
// find it take about half of the tasks left at a time (see batch.go). Each
// task runs exactly once, even if others panic; the scope re-panics with
// the first panic. n == 0 spawns nothing; n < 0 panics.
func (s *Scope) SpawnMany(n int, f func(s *Scope, i int)) {
	s.spawnMany("pool.Scope.SpawnMany", 0, n, f)
}

// SpawnManyPriority is SpawnMany for tasks of the given priority level
// (see SpawnPriority).
func (s *Scope) SpawnManyPriority(level, n int, f func(s *Scope, i int)) {
	s.spawnMany("pool.Scope.SpawnManyPriority", level, n, f)
}

func (s *Scope) spawnMany(call string, level, n int, f func(s *Scope, i int)) {
	checkLevel(call, level)
	if f == nil {
		panic(call + ": nil function")
	}
	if n < 0 {
		panic(fmt.Sprintf("%s: negative number of tasks %d", call, n))
	}
	if s.skip != nil && n > 0 && s.skipSpawn(call) { // scopeskip.go
		return
	}
	w := s.reg.currentWorker()
	if n == 0 {
		if s.done.Probe() {
			s.finishedPanic(call)
		}
		return
	}
	s.add(call, w)
	p := w.newPart(0, n, level)
	p.scope = scopeBatch{s: s, fn: f}
	p.b = &p.scope
	s.queue(w, &p.job, level, n)
}

// queue counts the n tasks of j at level and queues j in the scope's
// context: on w, the current worker, if it belongs to the scope's registry
// and runs in that context, else on the registry's injectors (a task
// spawned from a goroutine the body started still belongs to the scope:
// the scope waits for it).
func (s *Scope) queue(w *Worker, j *Job, level, n int) {
	if s.tag != 0 {
		level = 0 // so that the region's waits can run it (isolate.go)
	}
	j.setLevel(level)
	s.reg.prio.count(level, n)
	s.reg.queueIn(w, j, s.tag, n)
}

// queueTask is queue for one task of level 0, SpawnValue's (typed) or a
// closure's. Its common case, a task spawned on a worker of the scope's
// registry in the scope's context, with the default deque, is queue's
// path through queueIn, pushLevel and pushPublic written out in one
// function: it is on every spawn's path. The task is then the newest on
// w's public deque, and it extends the run of typed tasks that the
// spawning task's end reorders, or, a closure, ends it (siblings.go).
func (s *Scope) queueTask(w *Worker, j *Job, typed bool) {
	if w != nil && w.iso == s.tag && w.variant == nil {
		j.setLevel(0)
		j.setTag(s.tag)
		j.takeLabels()
		wasEmpty := w.deque.Empty()
		w.deque.Push(j)
		w.sleep.NewInternalJobs(1, wasEmpty)
		if typed {
			w.siblings++
		} else {
			w.siblings = 0
		}
		return
	}
	s.queue(w, j, 0, 1)
}

// spawner counts one more task of s, spawned by the caller (see add), and
// returns the worker running the caller if it belongs to s's registry,
// else nil. It looks the worker up as Registry.currentWorker does, trying
// the scope's owner first, which a task per tree node's spawns usually
// run on (one load and a compare instead of the table's hash and load). A
// finished scope's owner may have exited and its goroutine's identity
// been reused; then the caller spawns on a finished scope, which the
// count refuses either way. It is one call for the lookup and the count:
// SpawnValue's instantiations, compiled in the packages that spawn, call
// the runtime's unexported helpers out of line (descendants.go says
// when), so SpawnValue calls as few of them as it can.
func (s *Scope) spawner(call string) *Worker {
	g := currentG()
	w := s.owner
	if w.g.Load() != g {
		w = s.reg.workerOf(g)
	}
	if !s.addOwn(w) {
		s.add(call, w)
	}
	return w
}

// currentWorker returns the worker running the caller if it belongs to r,
// else nil.
func (r *Registry) currentWorker() *Worker { return r.workerOf(currentG()) }

// workerOf returns the worker that goroutine g runs if it belongs to r,
// else nil.
func (r *Registry) workerOf(g uintptr) *Worker {
	if w := lookupWorker(g); w != nil && w.reg == r {
		return w
	}
	return nil
}

// Scope runs body on a worker of r and returns when body and everything
// spawned on its scope have finished; then it re-panics with the first
// panic of any of them as a *PanicError.
func (r *Registry) Scope(call string, body func(*Scope)) { r.ScopeSkipping(call, nil, body) }

// scope runs body on w in a new scope whose Skipper is skip (nil for
// none), which may drop the body as it drops a task (scopeskip.go).
func (w *Worker) scope(body func(*Scope), skip Skipper) {
	s := &Scope{scopeHead: scopeHead{reg: w.reg, owner: w, tag: w.iso, skip: skip}}
	s.done.owner = w
	s.count.local = 1 // the body
	w.siblings = 0
	var pe *PanicError
	if skip == nil || !skip.Skip() {
		pe = w.reg.Catch(func() { body(s) })
	}
	w.orderSiblings()
	s.finishOn(w, pe)
	w.waitScope(s)
	w.reg.Raise(s.panic.Load())
}
