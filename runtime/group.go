package runtime

import (
	"time"

	"github.com/spindle-go/spindle/sleep"
)

// Groups: scopes with no owner, for error-returning tasks (pool.Group).
//
// A group is a Scope whose tasks are queued from anywhere, at any time,
// and whose waiter is whoever calls Wait, on a worker or outside the pool.
// Nobody owns its count: every worker counts its tasks with credits
// (scopecount.go) and goroutines that are no worker add to shared. The
// waiter first adds ownerWaiting to shared: from then on the worker that
// takes shared to exactly ownerWaiting, by giving back credits after the
// last task, has seen every task finish and sets the latch (setDone). A
// waiter on a worker runs other work meanwhile and may sleep on the latch
// as a scope's owner does. A waiter that is no worker blocks on the
// group's wake channel, which setDone signals after the latch: it is never
// injected as a job, because a worker could pick that job up while it
// helps inside one of the group's own tasks (in a join or pool.Block), and
// the waiter would then sit on the stack above a task it waits for. When
// the wait ends, shared is exactly ownerWaiting (every credit was given
// back) and the waiter takes the flag off, so the group can be used for
// another round.
//
// Tasks run through GroupHooks: Skip, checked just before a task would
// start, lets a group that has been cancelled drop the tasks nobody has
// started; Fail receives each task's error or panic.

// GroupHooks is what a group's owner (pool.Group) decides for its tasks.
type GroupHooks interface {
	// Skip reports whether a task about to start must be dropped (asked
	// only if SetGroupHooks says so).
	Skip() bool
	// Fail receives a task's non-nil error, or its panic as a
	// *PanicError, on the worker that ran it.
	Fail(err error)
	// Done is called after every task, run or skipped, before the task
	// counts as finished (if SetGroupHooks asked for it).
	Done()
}

// groupHead is the part of a Scope that only groups have.
type groupHead struct {
	hooks GroupHooks
	// skips and limited say whether tasks call hooks.Skip and hooks.Done
	// (SetGroupHooks): a group without a context or a limit pays for
	// neither call.
	skips, limited bool
	// offPool is true while the waiter is a goroutine that is no worker;
	// written by the waiter before it adds ownerWaiting, read by setDone
	// before it sets the latch.
	offPool bool
	wake    chan struct{} // capacity 1: setDone's signal to an off-pool waiter
}

// noOwner is the owner of every group: no worker is it, so all of them
// count with credits.
var noOwner Worker

// NewGroup returns an empty group of r whose tasks follow h: Fail for
// every failure, Skip and Done only as SetGroupHooks says.
func (r *Registry) NewGroup(h GroupHooks) *Scope {
	if w := CurrentWorker(); w != nil && w.analysing {
		r = w.reg // analysed in place (analyze.go)
	}
	g := &groupHead{hooks: h, wake: make(chan struct{}, 1)}
	return &Scope{scopeHead: scopeHead{reg: r, owner: &noOwner, group: g}}
}

// SetGroupHooks says whether the tasks of group s call Skip (the group
// can be cancelled) and Done (the group counts running tasks). It must be
// called while no task of s is queued or running, like everything that
// changes a group's settings.
func (s *Scope) SetGroupHooks(skips, done bool) {
	s.group.skips, s.group.limited = skips, done
}

// Go queues f as a task of group s (see GroupHooks). From a worker of s's
// registry it goes on that worker's deque, otherwise to the injector.
func (s *Scope) Go(call string, f func() error) {
	if f == nil {
		panic(call + ": nil function")
	}
	w := s.reg.currentWorker()
	if w != nil {
		w.takeCredit(call, s, 1)
	} else {
		s.addShared(call, 1)
	}
	j := w.newScopeJob()
	j.efn, j.scope = f, s
	s.queue(w, &j.job, 0, 1)
}

// runGroupTask runs f, a task of group s, unless the hooks skip it.
func (s *Scope) runGroupTask(f func() error) *PanicError {
	g := s.group
	h := g.hooks
	if g.limited {
		defer h.Done()
	}
	if g.skips && h.Skip() {
		return nil
	}
	pe := Catch(func() {
		if err := f(); err != nil {
			h.Fail(err)
		}
	})
	if pe != nil {
		h.Fail(UserValue(pe))
	}
	return pe
}

// WaitGroup returns when every task of group s queued so far (and every
// task those queue) has finished, running other work meanwhile if the
// caller is a worker of s's registry; elsewhere it blocks. Then it
// re-panics with the first panic of a task, if any, as a *PanicError.
// Only one WaitGroup may run at a time per group.
func (s *Scope) WaitGroup() {
	if w := s.reg.currentWorker(); w != nil {
		w.waitGroup(s)
	} else {
		s.waitGroupOffPool()
	}
	if pe := s.panic.Swap(nil); pe != nil {
		Raise(pe)
	}
}

func (w *Worker) waitGroup(s *Scope) {
	s.group.offPool = false
	s.done.owner = w // read by whoever sets the latch, after the add below
	if s.count.shared.Add(ownerWaiting) != ownerWaiting {
		w.flushCredit() // the waiter's own credits may be what is left
		for !s.done.Probe() {
			if w.analysing {
				// See the end after every job: a job popped after it
				// would be older than the group's tasks (analyze.go).
				if w.flushCredit(); s.done.Probe() {
					break
				}
			}
			j := w.takeLocal()
			if j == nil {
				if j = w.look(&s.done); j == nil {
					break
				}
			}
			w.runHelping(j)
		}
	}
	s.endWait()
}

func (s *Scope) waitGroupOffPool() {
	s.group.offPool = true
	if s.count.shared.Add(ownerWaiting) != ownerWaiting {
		<-s.group.wake
	}
	s.endWait()
}

// endWait takes the waiter's flag off once every task has finished and
// every credit is back: shared is exactly ownerWaiting, and nothing else
// touches the count until the next Go.
func (s *Scope) endWait() {
	s.count.shared.Add(-ownerWaiting)
	s.done.Reset()
}

// HelpUntil runs other work on w until cond returns true, checking it
// before each job; with nothing to run it backs off (pause, yield, then
// short sleeps). It is for waits that no latch signals, such as a group
// waiting for a free slot under its limit: a worker that must wait keeps
// running tasks rather than block its thread.
func (w *Worker) HelpUntil(cond func() bool) {
	for round := 0; !cond(); {
		j := w.takeLocal()
		if j == nil {
			w.flushCredit()
			j = w.findWork(true)
		}
		if j != nil {
			w.runHelping(j)
			round = 0
			continue
		}
		if round < helpBackoffRounds {
			sleep.Backoff(round)
		} else {
			time.Sleep(helpSleep)
		}
		round++
	}
}

// How HelpUntil waits when it finds no work: sleep.Backoff's spinning and
// yielding, then sleeps of helpSleep (the condition has no latch to wake
// it).
const (
	helpBackoffRounds = 48
	helpSleep         = 20 * time.Microsecond
)
