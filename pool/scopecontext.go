package pool

import (
	"context"

	"github.com/spindle-go/spindle/internal/firsterr"
)

// contextGate is the cancellation of one RunContext or ScopeContext call:
// the rule of Group and forkjoin.ForErr (firsterr.Stopper), that once ctx
// is done nothing that has not started is started, for tasks that cannot
// fail; and ctx itself, which Scope.Context returns. It is the scope's
// runtime.Skipper: the engine asks it before the body and every task.
type contextGate struct {
	firsterr.Stopper
	ctx context.Context
}

func newContextGate(call string, ctx context.Context) *contextGate {
	if ctx == nil {
		panic(call + ": nil context")
	}
	g := &contextGate{ctx: ctx}
	g.Watch(ctx)
	return g
}

// RunContext is Run with a context: if ctx is done before f starts (a
// call from outside the pool may wait for a worker), f never runs and
// RunContext returns context.Cause(ctx). Otherwise it runs f as Run does
// and returns nil, whatever ctx does while f runs: f reads ctx itself to
// stop early. A panic in f is re-raised as a *PanicError, and on a closed
// pool it panics with an error wrapping ErrClosed, as Run does. A nil ctx
// or f panics.
func (p *Pool) RunContext(ctx context.Context, f func()) error {
	p.mustBeMade("pool.Pool.RunContext")
	g := newContextGate("pool.Pool.RunContext", ctx)
	if f == nil {
		nilFunc("pool.Pool.RunContext")
	}
	p.reg.Run("pool.Pool.RunContext", func() {
		if !g.Skip() {
			f()
		}
	})
	return g.Result(ctx)
}

// ScopeContext is Scope with a context: it runs f with a Scope as Scope
// does, and once ctx is done no task of the scope starts. Tasks queued by
// then are skipped (each finishes without running its function), spawns
// afterwards queue nothing, tasks already running are not interrupted,
// and ScopeContext returns only after every task that started has
// finished. It returns context.Cause(ctx) if ctx ended before every task
// had started (so that some were skipped), else nil, whatever ctx does
// afterwards.
//
// The body f counts as the scope's first task: if ctx is done before it
// starts, f does not run and ScopeContext returns the cause at once, as
// RunContext and forkjoin.SortContext do with a context already done
// (a body whose every spawn would be skipped has nothing left to do).
//
// Tasks read the context with s.Context(), to pass it to the calls they
// make (I/O, a nested ScopeContext, forkjoin.ForErr) or to stop a long
// task early. A body or task that spawns in a loop may check it to stop
// the loop; without that its spawns after the end each cost a check and
// queue nothing. A panic is re-raised as Scope re-raises it, as a *PanicError
// after every task that started has finished. A nil ctx or f panics.
//
// A plain Scope pays for none of this: each spawn and task start tests
// that the scope has no context, one load of a field they read anyway.
func (p *Pool) ScopeContext(ctx context.Context, f func(s *Scope)) error {
	p.mustBeMade("pool.Pool.ScopeContext")
	g := newContextGate("pool.Pool.ScopeContext", ctx)
	if f == nil {
		nilFunc("pool.Pool.ScopeContext")
	}
	p.reg.ScopeSkipping("pool.Pool.ScopeContext", g, engineTask(f))
	return g.Result(ctx)
}

// Context returns the scope's context: the ctx given to ScopeContext,
// whose end stops the scope's tasks from starting, for tasks to pass to
// the calls they make and to read to stop early; context.Background() for
// a scope from Scope, which nothing cancels. The scope carries it, rather
// than each task taking it as an argument, so that a task's function has
// one type whether or not its scope has a context. A nested scope has its
// own: a Scope inside a task of a ScopeContext has none unless it is a
// ScopeContext itself (pass it s.Context()).
func (s *Scope) Context() context.Context {
	if s == nil {
		nilPointer("pool.Scope.Context", "*pool.Scope")
	}
	if g, ok := s.s.Skipper().(*contextGate); ok {
		return g.ctx
	}
	return context.Background()
}
