package runtime

import (
	"fmt"
	"sync/atomic"
)

// Scope lets a task spawn any number of tasks that may outlive the spawning
// function but not the scope: Registry.Scope returns only when the scope's
// body and every task spawned on it (transitively) have finished.
type Scope struct {
	reg *Registry
	// pending counts the body (one) and spawned tasks not yet finished.
	// Whoever takes it to zero sets done, which the owner waits on.
	pending atomic.Int64
	done    Latch
	panic   atomic.Pointer[PanicError] // the first panic
}

// scopeJob is one task spawned on a scope.
type scopeJob struct {
	job   Job
	fn    func(*Scope)
	scope *Scope
}

func (j *scopeJob) Run() {
	s := j.scope
	s.finish(Catch(func() { j.fn(s) }))
}

// finish records one finished part of the scope and its panic, if any.
func (s *Scope) finish(pe *PanicError) {
	if pe != nil {
		s.panic.CompareAndSwap(nil, pe)
	}
	if s.pending.Add(-1) == 0 {
		s.done.Set()
	}
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
	s.reserve(call)
	j := &scopeJob{fn: f, scope: s}
	j.job.Init(j, nil)
	s.queue(&j.job, level, 1)
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
	if n == 0 {
		if s.pending.Load() == 0 {
			panic(call + ": the scope has already finished")
		}
		return
	}
	s.reserve(call)
	p := newPart(&scopeBatch{s: s, fn: f}, 0, n, level)
	s.queue(&p.job, level, n)
}

// reserve counts one more pending task (or part) of the scope, or panics
// if the scope has finished.
func (s *Scope) reserve(call string) {
	for {
		n := s.pending.Load()
		if n == 0 {
			// Nobody waits for the scope any more: the task would run
			// unobserved, or never (the pool may be closed).
			panic(call + ": the scope has already finished")
		}
		if s.pending.CompareAndSwap(n, n+1) {
			return
		}
	}
}

// queue counts the n tasks of j at level and queues j: on the current worker if it
// belongs to the scope's registry, else on the registry's injectors (a
// task spawned from a goroutine the body started still belongs to the
// scope: the scope waits for it).
func (s *Scope) queue(j *Job, level, n int) {
	j.setLevel(level)
	s.reg.prio.count(level, n)
	if w := CurrentWorker(); w != nil && w.reg == s.reg {
		w.pushLevel(j)
		return
	}
	s.reg.injectLevel(j)
}

// Scope runs body on a worker of r and returns when body and everything
// spawned on its scope have finished; then it re-panics with the first
// panic of any of them as a *PanicError.
func (r *Registry) Scope(call string, body func(*Scope)) {
	if w := CurrentWorker(); w != nil && w.reg == r {
		w.scope(body)
		return
	}
	r.Run(call, func() { CurrentWorker().scope(body) })
}

func (w *Worker) scope(body func(*Scope)) {
	s := &Scope{reg: w.reg}
	s.done.owner = w
	s.pending.Store(1)
	s.finish(Catch(func() { body(s) }))
	w.WaitUntil(&s.done)
	if pe := s.panic.Load(); pe != nil {
		panic(pe)
	}
}
