package runtime

import (
	"time"

	"github.com/spindle-go/spindle/sleep"
)

// Groups: scopes with no owner, for error-returning tasks (pool.Group).
//
// A group is a Scope whose tasks are queued from anywhere, at any time,
// and whose waiter is whoever calls Wait, on a worker or outside the pool.
// Nobody owns its count, and it is exact: shared is the number of the
// group's tasks queued or running (plus ownerWaiting while a waiter
// waits), one atomic add when a task is queued and one when it finishes.
// Exactness is what the group's lifecycle relies on:
//
//   - A group holds its registry open while it is busy: the Go that takes
//     the count from 0 adds one to the registry's active count, the finish
//     that takes it back to 0 removes it (addGroupTask, finishGroupTask),
//     so Close waits for every queued and running task. A Go from outside
//     the pool is admitted like any call from outside (refused once the
//     registry is closed, counted in active until the task is queued); a
//     Go on a worker runs inside something Close already waits for. Either
//     way the registry cannot finish closing between the count and the
//     unit, nor before the task is queued.
//   - SetLimit's check that no task is queued or running is one load
//     (Busy).
//
// The waiter first adds ownerWaiting to shared: from then on the worker
// that takes shared to exactly ownerWaiting, by finishing the last task,
// sets the latch (setDone). A waiter on a worker runs other work
// meanwhile and may sleep on the latch as a scope's owner does. A waiter
// that is no worker blocks on the group's wake handoff, which setDone
// signals after the latch: it is never injected as a job, because a
// worker could pick that job up while it helps inside one of the group's
// own tasks (in a join or pool.Block), and the waiter would then sit on
// the stack above a task it waits for. When the wait ends, shared is
// exactly ownerWaiting and the waiter takes the flag off, so the group can
// be used for another round.
//
// Tasks run through GroupHooks: Skip, checked just before a task would
// start, lets a group that has been cancelled drop the tasks nobody has
// started; Fail receives each task's error or panic. A worker records the
// groups whose tasks are on its stack, and the forker's for a join half it
// stole (its lineage, lineage.go), so that a wait for the group from
// inside one of them, which would wait for itself, is recognised
// (InOwnTask).

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
	wake    handoff // setDone's signal to an off-pool waiter
}

// noOwner is the owner of every group: no worker is it, so no worker
// takes the owner's paths of scopecount.go for a group.
var noOwner Worker

// NewGroup returns an empty group of r whose tasks follow h: Fail for
// every failure, Skip and Done only as SetGroupHooks says.
func (r *Registry) NewGroup(h GroupHooks) *Scope {
	w := CurrentWorker()
	if w != nil && w.analysing {
		r = w.reg // analysed in place (analyze.go)
	}
	var tag uint64 // the context the group belongs to (see Scope.tag)
	if w != nil && w.reg == r {
		tag = w.iso
	}
	g := &groupHead{hooks: h}
	return &Scope{scopeHead: scopeHead{reg: r, owner: &noOwner, group: g, tag: tag}}
}

// SetGroupHooks says whether the tasks of group s call Skip (the group
// can be cancelled) and Done (the group counts running tasks). It must be
// called while no task of s is queued or running, like everything that
// changes a group's settings.
func (s *Scope) SetGroupHooks(skips, done bool) {
	s.group.skips, s.group.limited = skips, done
}

// Go queues f as a task of group s. From a worker of s's registry it goes
// on that worker's deque, otherwise to the injector; there a closed
// registry refuses it: Go then queues nothing and returns an error
// wrapping ErrClosed (call names the public function).
func (s *Scope) Go(call string, f func() error) error {
	if f == nil {
		panic(call + ": nil function")
	}
	r := s.reg
	w := r.currentWorker()
	if w == nil {
		// Admitted until the task is queued (see the notes above).
		if !r.admit() {
			return r.closedError(call)
		}
		defer r.leave()
	}
	s.addGroupTask(call)
	j := w.newScopeJob()
	j.efn, j.scope = f, s
	s.queue(w, &j.job, 0, 1)
	return nil
}

// addGroupTask counts one more task of group s, or panics, naming call,
// if the group's Wait is returning. The Go that turns the group busy takes
// the group's unit of the registry's active count (see the notes above).
func (s *Scope) addGroupTask(call string) {
	prior := s.count.shared.Add(1) - 1
	if prior == ownerWaiting {
		// Every task finished and the waiter may have returned: nobody
		// would wait for this one.
		s.count.shared.Add(-1)
		s.finishedPanic(call)
	}
	if prior == 0 {
		s.reg.active.Add(1)
	}
}

// finishGroupTask records that a task of group s finished (or was
// skipped), with its panic if it panicked. The last task of a busy
// period gives back the group's unit of the registry's active count, after
// it set the waiter's latch if a waiter waits.
func (s *Scope) finishGroupTask(pe *PanicError) {
	if pe != nil {
		s.panic.CompareAndSwap(nil, pe)
	}
	switch s.count.shared.Add(-1) {
	case ownerWaiting:
		s.setDone()
		fallthrough
	case 0:
		s.reg.leave()
	}
}

// Busy reports whether a task of group s is queued or running, or a Wait
// is in progress. While it is false and nobody calls Go, it stays false:
// the group's settings may then change (SetGroupHooks).
func (s *Scope) Busy() bool { return s.count.shared.Load() != 0 }

// InOwnTask reports whether the caller is a worker of s's registry with a
// task of group s on its stack (a task the caller runs, or one below a
// join or a wait in which the caller took other work), or running a join
// half forked, at any depth, inside such a task on another worker. Such a task cannot
// finish before the caller returns, so the caller must not wait for the
// group, nor for a slot under its limit that only that task would free.
func (s *Scope) InOwnTask() bool {
	w := s.reg.currentWorker()
	return w != nil && w.lineageWalk.contains(w.lineage, s)
}

// RunInline runs f at once on the caller, as a task of group s that was
// never queued: the hooks' Skip and Fail apply to it and its panic is the
// group's, re-raised by WaitGroup; it is not counted and Done is not
// called. It is for a task of s (InOwnTask) that queues another while the
// group's limit is reached: the new task runs in the slot the caller
// holds.
func (s *Scope) RunInline(f func() error) {
	w := s.reg.currentWorker()
	if w != nil {
		w.enterLineage(s, nil)
	}
	pe := s.runGroupBody(f)
	if w != nil {
		w.leaveLineage()
	}
	if pe != nil {
		s.panic.CompareAndSwap(nil, pe)
	}
}

// runGroupTask runs f, a queued task of group s, on w unless the hooks
// skip it, then counts it finished.
func (s *Scope) runGroupTask(w *Worker, f func() error) {
	w.enterLineage(s, nil)
	pe := s.runGroupBody(f)
	w.leaveLineage()
	if s.group.limited {
		// Before the count: SetLimit, which may follow as soon as the
		// count is zero, finds the slot free.
		s.group.hooks.Done()
	}
	s.finishGroupTask(pe)
}

// runGroupBody calls f unless the hooks skip it, and hands its error or
// panic to Fail.
func (s *Scope) runGroupBody(f func() error) *PanicError {
	g := s.group
	h := g.hooks
	if g.skips && h.Skip() {
		return nil
	}
	pe := s.reg.Catch(func() {
		if err := f(); err != nil {
			h.Fail(err)
		}
	})
	if pe != nil {
		h.Fail(s.reg.UserValue(pe))
	}
	return pe
}

// WaitGroup returns when every task of group s queued so far (and every
// task those queue) has finished, running other work meanwhile if the
// caller is a worker of s's registry; elsewhere it blocks. The first
// panic of a task stays for GroupPanic. Only one WaitGroup may run at a
// time per group: pool.Group elects one among concurrent Waits, and the
// others wait for GroupTasksDone or for it.
func (s *Scope) WaitGroup() {
	if w := s.reg.currentWorker(); w != nil {
		w.waitGroup(s)
	} else {
		s.waitGroupOffPool()
	}
}

// GroupTasksDone reports whether the WaitGroup in progress has seen every
// task of group s finish (and not yet returned): the condition of a
// second waiter that may sit on the same worker's stack above the first,
// which cannot return before it.
func (s *Scope) GroupTasksDone() bool { return s.done.Probe() }

// GroupPanic returns the first panic of a task of group s since the last
// take, nil for none; with take it also clears it, for the next round.
func (s *Scope) GroupPanic(take bool) *PanicError {
	if take {
		return s.panic.Swap(nil)
	}
	return s.panic.Load()
}

// waitGroup is a group's Wait on worker w: the wait of every latch
// (waitUntil) on the group's done latch, which the last task sets.
func (w *Worker) waitGroup(s *Scope) {
	s.group.offPool = false
	s.done.owner = w // read by whoever sets the latch, after the add below
	if s.count.shared.Add(ownerWaiting) != ownerWaiting {
		w.waitUntil(&s.done, false)
	}
	s.endWait()
}

// waitGroupOffPool is a group's Wait from a goroutine that is no worker.
// Once it has marked itself waiting, it runs the registry's queued tasks
// as a guest while the group's tasks are in flight, as Go at the limit
// does (HelpAsGuest), and blocks only once nothing is queued: the group's
// tail then costs no wake-up per task (docs/runs/server-history.md has
// the measurement). Marked first, so that a second Wait that a task run
// here makes, above this one on the same stack, sees the group's tasks
// done (GroupTasksDone) and returns before this one must.
func (s *Scope) waitGroupOffPool() {
	s.group.offPool = true
	s.group.wake.arm(s.reg)
	if s.count.shared.Add(ownerWaiting) != ownerWaiting {
		s.reg.HelpAsGuest(s.done.Probe)
		s.group.wake.wait(s.reg)
	} else {
		s.group.wake.disarm(s.reg) // no task: nothing will signal
	}
	s.endWait()
}

// endWait takes the waiter's flag off once every task has finished:
// shared is exactly ownerWaiting, and nothing else touches the count
// until the next Go.
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
	w.waits.Add(1) // for the monitor (noteStall)
	defer w.waits.Add(-1)
	for round := 0; !cond(); {
		j := w.takeLocal()
		if j == nil {
			w.flushCredit()
			if w.iso != 0 {
				j = w.findIsolated()
			} else {
				j = w.findWork(true)
			}
		}
		if j != nil {
			w.runHelping(j)
			round = 0
			continue
		}
		if round < helpBackoffRounds {
			sleep.Backoff(round)
		} else {
			// The engine's wait, not the task's (monitor.go).
			w.sleep.ParkMarked(w.index, func() { time.Sleep(helpSleep) })
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
