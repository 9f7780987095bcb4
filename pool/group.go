package pool

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/internal/firsterr"
	"github.com/spindle-go/spindle/runtime"
)

// Group is a collection of tasks that return errors, running on a pool:
// golang.org/x/sync/errgroup's Group, with tasks instead of goroutines.
// Go queues a task (on the calling worker's deque from inside a task,
// on the pool's injector from anywhere else); Wait waits for all of them
// and returns the first error.
//
// The zero value is usable: it runs on Current() at its first Go (so
// Default() outside a pool), never skips a task and has no context. A
// Group from NewGroup carries a context that is cancelled, with the first
// error as its cause (context.Cause), when a task returns an error or
// panics, and when Wait returns; once that context is done (or its
// parent's), tasks that have not started are never started.
//
// Go and TryGo may be called from any goroutine, any number at once,
// including from the group's own tasks at any depth. So may Wait, as
// errgroup's: Waits that overlap all return once the tasks have finished,
// with the same result. Wait must never be called from one of the group's
// own tasks, which it would wait for: it panics instead when called in the task or
// in a join half it forked at any depth (pool.Join, forkjoin's forks and
// loops), on whichever worker the half runs, stolen or not, and inside a
// scope of the task while the task's worker runs it. A task the group's
// task spawned on a scope that another worker took (or a Wait from
// outside, which runs queued tasks while it waits), or a goroutine it
// started, is not recognised: a Wait there waits forever, as errgroup's
// would. After Wait returns, a Group can be used for a new round of
// tasks, which run as errgroup's do: a Group from NewGroup then runs them
// with its context done (Wait cancelled it), skipping them only if a
// task had failed or the parent context has ended. A Group must
// not be copied after first use. A method called on a nil *Group panics
// naming the call and the type.
//
// The pool's Close waits for every task of a group that is queued or
// running, as for detached tasks; once the pool is closed, Go and TryGo
// panic with an error wrapping ErrClosed. The guide's "Blocking, limits
// and closing" (docs/guide.md) says how limits, Block and Close meet.
//
// The context is cancelled when a failing task returns. A task that waits
// inside Block returns only after the tasks its worker ran meanwhile have
// returned, so a task that detects a failure while in Block and wants the
// group to stop at once cancels a context of its own from inside Block
// (examples/crawl does).
type Group struct {
	once   sync.Once
	p      *Pool
	s      *runtime.Scope
	parent context.Context // nil for the zero value
	sem    *limit          // the slots of running or queued tasks; nil: no limit
	st     groupState
	// wait is the Wait in progress, nil between rounds (under waitMu).
	waitMu sync.Mutex
	wait   *waitRound
}

// waitRound is one Wait in progress and the Waits that overlap it: the
// first waits for the tasks (the engine's wait allows one waiter per
// group), the others for it, and every one returns what it found.
type waitRound struct {
	done chan struct{} // closed once err and panic are set
	over atomic.Bool   // set with done, for waiters that help on a worker
	err  error
	pe   *runtime.PanicError // the first panic of a task, raised by every Wait
}

// groupState is the group's side of its tasks (runtime.GroupHooks): the
// rule that the first error cancels and tasks not started are skipped
// (Skip and Fail), and the limit's slot that a finished task frees.
type groupState struct {
	firsterr.Stopper
	sem **limit
}

func (st *groupState) Done() {
	if l := *st.sem; l != nil {
		l.release()
	}
}

// NewGroup returns a Group running on Current() and a context derived
// from ctx that is cancelled with the first error (or panic) of a task as
// its cause, and when Wait returns. It panics if ctx is nil.
func NewGroup(ctx context.Context) (*Group, context.Context) {
	if ctx == nil {
		panic("pool.NewGroup: nil context")
	}
	return Current().newGroup(ctx)
}

// NewGroup is the package-level NewGroup for a Group running on p.
func (p *Pool) NewGroup(ctx context.Context) (*Group, context.Context) {
	p.mustBeMade("pool.Pool.NewGroup")
	if ctx == nil {
		panic("pool.Pool.NewGroup: nil context")
	}
	return p.newGroup(ctx)
}

func (p *Pool) newGroup(ctx context.Context) (*Group, context.Context) {
	g := &Group{p: p, parent: ctx}
	var onWorker func(func())
	if runtime.InSynctestBubble() {
		onWorker = func(f func()) { p.reg.RunOnWorker(f) } // see Stopper.Start
	}
	gctx := g.st.Start(ctx, onWorker)
	g.init()
	g.s.SetGroupHooks(true, false)
	return g, gctx
}

// init makes the group's engine scope, on Current() unless the group
// already has a pool.
func (g *Group) init() {
	g.once.Do(func() {
		if g.p == nil {
			g.p = Current()
		}
		g.st.sem = &g.sem
		g.s = g.p.reg.NewGroup(&g.st)
	})
}

// Go queues f as a task of the group. If the group has a limit (SetLimit)
// and that many tasks are queued or running, Go first waits for one to
// finish: a worker runs other tasks meanwhile, and so does any other
// goroutine, as a guest of the pool (WithGuests), while tasks are queued
// and short; then it blocks. Called from inside one of the group's own tasks, on the worker
// that runs it (also inside a join or a scope of that task, while that
// worker runs it), Go does not wait: f then runs at once, in place, in the
// slot that task holds, and Go returns after it (a wait there could last
// forever, as the task can free its slot only once Go returns); so does
// a join half the task forked, on whichever worker it runs. A scope's
// task that another worker took waits like any other caller. It panics
// if f is nil, if the limit is 0 (f could never start), or, with an error
// wrapping ErrClosed, if the group's pool is closed (from the pool's own
// tasks it may still queue while Close waits for them).
func (g *Group) Go(f func() error) {
	if g == nil {
		nilPointer("pool.Group.Go", "*pool.Group")
	}
	if f == nil {
		panic("pool.Group.Go: nil function")
	}
	g.init()
	if g.sem != nil {
		if g.sem.max == 0 {
			panic("pool.Group.Go: the group's limit is 0, no task can start")
		}
		if !g.tryAcquire() {
			if g.s.InOwnTask() {
				g.s.RunInline(f)
				return
			}
			g.acquire()
		}
	}
	g.queue("pool.Group.Go", f)
}

// TryGo queues f as a task of the group if that keeps the group within its
// limit, and reports whether it did. Without a limit it always does. It
// panics if f is nil, or as Go does on a closed pool.
func (g *Group) TryGo(f func() error) bool {
	if g == nil {
		nilPointer("pool.Group.TryGo", "*pool.Group")
	}
	if f == nil {
		panic("pool.Group.TryGo: nil function")
	}
	g.init()
	if g.sem != nil && !g.tryAcquire() {
		return false
	}
	g.queue("pool.Group.TryGo", f)
	return true
}

// queue hands f, which holds a slot if the group has a limit, to the
// engine; if the pool refuses it (closed), it frees the slot and panics
// with the engine's error.
func (g *Group) queue(call string, f func() error) {
	if err := g.s.Go(call, f); err != nil {
		if g.sem != nil {
			g.sem.release()
		}
		panic(err)
	}
}

// tryAcquire takes a slot under the limit if one is free.
func (g *Group) tryAcquire() bool { return g.sem.tryAcquire() }

// acquire takes a slot under the limit, helping with work or blocking
// until one is free. A worker runs other work (HelpUntil). A goroutine
// that is no worker first runs the pool's queued tasks itself, as a
// guest, the group's among them: each that finishes frees a slot, and the
// caller takes one without waiting for a worker to run a task and wake
// it (an errgroup program ported unchanged calls Go at its limit for
// every task, and a wake-up costs tens of microseconds, more than a short
// task). Holding its slot, it goes on while the group has more tasks in
// flight than the workers can start next, so that one entry as a guest
// serves several calls of Go. But a task it runs that blocks (a request,
// a sleep) holds it there while the other tasks free their slots, which
// then stand empty: so while the pool's tasks block (the monitor saw one,
// or spares run: runtime.Registry.TasksBlock), a caller only blocks, as
// errgroup's Go does, which costs little beside such tasks
// (BenchmarkGroupLimitSleeps; BenchmarkGroupLimitFromGoroutine and
// BenchmarkGroupFileHasher for short tasks). The first task that blocks
// in a pool whose tasks did not may still hold its caller; in a
// testing/synctest bubble, where a task's computing moves no clock and a
// slot that stands empty moves it by the whole of a sleep, the caller
// never runs tasks: it blocks as errgroup's does.
func (g *Group) acquire() {
	if w := runtime.CurrentWorker(); w != nil {
		w.HelpUntil(g.tryAcquire)
		return
	}
	held := false
	if !g.p.reg.TasksBlock() && !runtime.InSynctestBubble() {
		enough := int64(1 + g.p.Workers()) // the caller's slot and the tasks in flight
		slotAndShortQueue := func() bool {
			if !held {
				held = g.tryAcquire()
			}
			return held && g.sem.inUse() <= enough || g.p.reg.TasksBlock()
		}
		g.p.reg.HelpAsGuest(slotAndShortQueue)
	}
	if !held {
		g.sem.acquire()
	}
}

// SetLimit limits the group to n tasks queued or running at once; a
// negative n removes the limit. As with errgroup, it must not be called
// while tasks of the group are queued or running, nor during Wait: it
// panics then, changing nothing.
func (g *Group) SetLimit(n int) {
	if g == nil {
		nilPointer("pool.Group.SetLimit", "*pool.Group")
	}
	g.init()
	if g.s.Busy() {
		panic("pool.Group.SetLimit: called while tasks of the group are queued or running, or Wait runs")
	}
	if n < 0 {
		g.sem = nil
	} else {
		g.sem = newLimit(n, g.p.reg)
	}
	g.s.SetGroupHooks(g.parent != nil, g.sem != nil)
}

// SetAllErrors makes Wait return every error the group's tasks returned,
// joined by errors.Join in the order they returned them (errors.Is and
// errors.As see each), rather than the first (on) or only the first, as
// errgroup does (off, the default); one error is returned as it is. The
// group's context is still cancelled with the first error as its cause,
// so a group from NewGroup still skips the tasks that had not started by
// then; a zero Group, which has no context, runs them all and so reports
// every failure (conc's ErrorPool). As SetLimit, it must not be called
// while tasks of the group are queued or running, or during Wait: it
// panics then, changing nothing.
func (g *Group) SetAllErrors(on bool) {
	if g == nil {
		nilPointer("pool.Group.SetAllErrors", "*pool.Group")
	}
	g.init()
	if g.s.Busy() {
		panic("pool.Group.SetAllErrors: called while tasks of the group are queued or running, or Wait runs")
	}
	g.st.Collect = on
}

// Wait returns when every task queued so far, and every task those queue,
// has finished (or was skipped). It returns the first error a task
// returned (every error, with SetAllErrors); or, if no task failed but
// the parent context's end made the group skip tasks, context.Cause of
// the parent; else nil. It then cancels
// the group's context. On a worker it runs other tasks while it waits.
// From any other goroutine, the first Wait runs the pool's queued tasks
// (the group's or others') on the calling goroutine, as a guest of the
// pool, while the group has tasks in flight, and blocks once nothing is
// queued; a second Wait at once blocks. If a task panicked, Wait re-panics with the first
// panic as a *PanicError, after every task has finished. Called from one
// of the group's own tasks, or from a join half such a task forked (on
// any worker, stolen or not), Wait panics instead of waiting for itself
// (see Group for what is not recognised).
func (g *Group) Wait() error {
	if g == nil {
		nilPointer("pool.Group.Wait", "*pool.Group")
	}
	g.init()
	if g.s.InOwnTask() {
		panic("pool.Group.Wait: called from one of the group's own tasks, which it would wait for")
	}
	round, first := g.joinWait()
	if first {
		g.waitTasks(round)
	} else if w := runtime.CurrentWorker(); w != nil {
		// A worker keeps running tasks. The first Wait may be below this
		// one on the same stack, where it cannot return before this one
		// does: once every task is done, this Wait reads the round's
		// result itself (endWait).
		w.HelpUntil(func() bool { return round.over.Load() || g.s.GroupTasksDone() })
		g.endWait(round, false)
		g.st.Cancel()
	} else {
		<-round.done
	}
	if round.pe != nil {
		g.p.reg.Raise(round.pe)
	}
	return round.err
}

// joinWait returns the round of the Wait in progress, or starts one and
// reports that the caller waits for the tasks (first).
func (g *Group) joinWait() (round *waitRound, first bool) {
	g.waitMu.Lock()
	defer g.waitMu.Unlock()
	if g.wait != nil {
		return g.wait, false
	}
	g.wait = &waitRound{done: make(chan struct{})}
	return g.wait, true
}

// waitTasks is the first Wait of a round: it waits for the tasks, records
// the result, cancels the group's context and ends the round, so that a
// Wait after it starts the next one.
func (g *Group) waitTasks(round *waitRound) {
	defer close(round.done)
	defer g.st.Cancel()
	defer g.endWait(round, true)
	g.s.WaitGroup()
}

// endWait records the round's result, once every task of the round has
// finished, unless another Wait of the round did: the first error (or the
// parent's cause) and the first panic, read under waitMu, where the first
// Wait (first) takes the panic off for the next round and ends the round.
func (g *Group) endWait(round *waitRound, first bool) {
	g.waitMu.Lock()
	defer g.waitMu.Unlock()
	if !round.over.Load() {
		round.err = g.st.Result(g.parent)
		round.pe = g.s.GroupPanic(false)
		round.over.Store(true)
	}
	if first {
		g.s.GroupPanic(true)
		g.wait = nil
	}
}
