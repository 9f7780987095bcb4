package runtime

import "sync/atomic"

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
// caller.
//
// Spawn must be called while the scope is running: from its body, from a
// task spawned on it, or from a goroutine they wait for. A call after the
// scope finished is a programming error and panics.
func (s *Scope) Spawn(f func(s *Scope)) {
	for {
		n := s.pending.Load()
		if n == 0 {
			// Nobody waits for the scope any more: the task would run
			// unobserved, or never (the pool may be closed).
			panic("pool.Scope.Spawn: the scope has already finished")
		}
		if s.pending.CompareAndSwap(n, n+1) {
			break
		}
	}
	j := &scopeJob{fn: f, scope: s}
	j.job.Init(j, nil)
	if w := CurrentWorker(); w != nil && w.reg == s.reg {
		w.pushPublic(&j.job)
		return
	}
	// A task spawned from outside the scope's registry (a goroutine the body
	// started, say) still belongs to the scope: the scope waits for it.
	s.reg.inject(&j.job)
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
