package runtime

import "sync/atomic"

// Counting a scope's tasks.
//
// A scope is finished when its body and every task spawned on it have
// finished. The first version kept one atomic count per scope: two atomic
// read-modify-writes per task (a CAS when spawned, an add when finished)
// on one cache line that every worker running the scope's tasks wrote. With
// a task per tree node on two workers, that line moved between the cores
// twice per task, and a second worker made the tree slower.
//
// Now the count is split in two:
//
//   - local is the owner's share: the tasks the owner (the worker that runs
//     the scope's body and waits for it) spawned minus those it finished.
//     Only the owner's goroutine reads or writes it, with plain memory
//     operations: on one worker, a spawned task costs no atomic operation
//     for the count at all.
//   - shared is everyone else's share (spawns and finishes on other
//     workers, and spawns from goroutines that are no worker), updated
//     with atomic adds, plus what the owner moves there (below). It sits on
//     a cache line of its own, and the owner leaves it alone while it runs
//     tasks.
//
// Workers other than the owner add to shared through credits (below),
// not once per task.
//
// Either part may be negative (a task spawned by the owner and finished by
// a thief adds +1 to local and -1 to shared); their sum is the number of
// tasks counted and not yet finished. A spawn counts its task before the
// task can be seen and a task is uncounted after it has finished, so a sum
// of zero means every task has finished and none is running, and then none
// can be spawned any more (only the body and the scope's own tasks spawn
// on it legitimately, and the goroutines they wait for).
//
// The owner knows local exactly and can load shared: between two jobs it
// runs while waiting, local + shared.Load() is the exact sum at that load
// (no operation of the owner's is half done), so it sees the scope finish
// without anyone telling it.
//
// When the owner runs out of work and starts looking for it (where it may
// sleep), it moves local into shared together with ownerWaiting, a flag far
// above any count, in one atomic add (ownerIdle). While the flag is there,
// local is zero and stays zero (the owner runs nothing while it looks), so
// shared alone is the sum: the worker whose decrement takes shared to
// exactly ownerWaiting has finished the scope's last task, and sets the
// latch the owner waits on (waking it if it sleeps). Before the owner runs
// a job it found, it takes the flag off again (ownerBusy), unless the scope
// has finished meanwhile; from then on nobody but the owner can see the
// scope finish. Without the flag, shared alone proves nothing: it can reach
// zero while the owner's local still counts a task another worker is
// running.
const ownerWaiting = int64(1) << 40

// falseSharingRange is the distance that keeps fields written by
// different threads from slowing each other down: two 64-byte cache lines,
// as x86 processors fetch lines in adjacent pairs (the value Go's runtime
// and crossbeam use on amd64).
const falseSharingRange = 128

// scopeCount is a scope's count of unfinished tasks (see above). Scope
// embeds it after its read-mostly fields, each part falseSharingRange
// bytes from the others.
type scopeCount struct {
	local  int64 // the owner's share; only the owner touches it
	_      [falseSharingRange - 8]byte
	shared atomic.Int64 // everyone else's share, plus ownerWaiting while the owner looks
	_      [falseSharingRange - 8]byte
}

// add counts one more task of s, spawned by worker w (nil if the caller
// is no worker of s's registry), before it is queued. It panics, naming
// call, if the scope has already finished.
func (s *Scope) add(call string, w *Worker) {
	if s.done.Probe() {
		s.finishedPanic(call)
	}
	switch {
	case w == s.owner:
		s.count.local++
	case w != nil:
		w.takeCredit(call, s)
	default:
		s.addShared(call, 1)
	}
}

// addOwn is add's common case, inlined into a spawn: it counts one task
// if w is the scope's owner and the scope has not finished, and reports
// whether it did (if not, the caller calls add).
func (s *Scope) addOwn(w *Worker) bool {
	if w == s.owner && !s.done.Probe() {
		s.count.local++
		return true
	}
	return false
}

// addShared adds n to the shared count, or panics naming call if the
// scope has finished.
func (s *Scope) addShared(call string, n int64) {
	if s.count.shared.Add(n)-n == ownerWaiting {
		// The scope finished (the sum was zero with the owner looking)
		// and its owner may have returned: nobody would run or wait for
		// these tasks. Spawning from a goroutine that the scope does not
		// wait for, racing with the scope's end, is a programming error;
		// this catches it when the count shows it.
		s.count.shared.Add(-n)
		s.finishedPanic(call)
	}
}

func (s *Scope) finishedPanic(call string) {
	if s.group != nil {
		panic(call + ": called while Wait was returning (call Go before Wait, or from the group's tasks)")
	}
	panic(call + ": the scope has already finished")
}

// setDone sets s's latch, for the worker whose decrement finished s while
// its owner looked for work. A group's waiter may be a goroutine that is
// no worker, blocked on the group's wake handoff (group.go); whether it is
// must be read before the latch is set, as the waiter may start another
// round as soon as it sees the latch.
func (s *Scope) setDone() {
	if g := s.group; g != nil && g.offPool {
		s.done.Set()
		CurrentWorker().readied() // the waiter
		g.wake.signal()
		return
	}
	s.done.Set()
}

// finishPanicked finishes a task of s that did not return on w: v is what
// the task's deferred call recovered, nil if the task ended in
// runtime.Goexit. A spawned task finishes with finishOn when it returns
// and defers a call of this that does nothing then: recover, which the
// deferred call of every task would otherwise make, is a call into Go's
// runtime on every spawned task's path.
func (s *Scope) finishPanicked(w *Worker, v any) {
	var pe *PanicError
	if v != nil {
		pe = w.reg.AsPanicError(v)
	}
	s.finishOn(w, pe)
}

// finishOn records that a task of s (or its body) finished on worker w,
// with its panic if it panicked.
func (s *Scope) finishOn(w *Worker, pe *PanicError) {
	if pe != nil {
		s.panic.CompareAndSwap(nil, pe)
	}
	s.finished(w)
}

// finished is finishOn for a task that returned: inlined at the end of
// every spawned task.
func (s *Scope) finished(w *Worker) {
	if w == s.owner {
		s.count.local--
		return
	}
	w.returnCredit(s)
}

// Credits: how workers other than the owner count.
//
// A worker that is not the owner of a scope does not add to shared for
// each task it spawns or finishes either: it holds credits, units it has
// added to shared in advance (creditBatch at a time) and not yet used.
// Spawning uses a credit (a plain decrement); finishing a task returns
// one (a plain increment). shared therefore counts every unfinished task
// plus every credit held, never less than the tasks: a sum of zero still
// proves every task finished, and no worker can see the scope finish early.
// What a held credit can do is delay the moment the sum reaches zero, so a
// worker gives its credits back (flushCredit, one atomic add, which sets
// the latch if it finishes the scope) as soon as it stops working for the
// scope: before it starts a job that is not a task of the scope it holds
// credits for (executeAt), and before it looks for work (look,
// lookIsolated). After the last task of a scope finishes on some worker,
// that worker's next step is one of those, so the owner learns of the end
// at once. A worker holds credits for one scope at a time; a spawn or
// finish for another scope gives back those it holds first. A worker
// blocked inside a task of the scope holds them while the task is
// unfinished, which the scope waits for anyway.
//
// Spawning on a scope from inside its tasks on two workers costs no
// atomic operation per task on either (only every creditBatch spawns on
// a worker that spawns more than it finishes), and on many workers none
// of them writes a shared line per task.
const (
	creditBatch = 64
	maxCredit   = 1 << 16 // give back above this, to keep shared far from ownerWaiting
)

// takeCredit uses one of w's credits for s, adding it and creditBatch
// more to shared first if w holds none.
func (w *Worker) takeCredit(call string, s *Scope) {
	if w.creditScope != s {
		w.flushCredit()
		w.creditScope = s
	}
	if w.credit == 0 {
		s.addShared(call, 1+creditBatch)
		w.credit = 1 + creditBatch
	}
	w.credit--
}

// returnCredit records a task of s finished on w, not s's owner.
func (w *Worker) returnCredit(s *Scope) {
	if w.creditScope != s {
		w.flushCredit()
		w.creditScope = s
	}
	if w.credit++; w.credit > maxCredit {
		w.flushCredit()
	}
}

// flushCredit gives back the credits w holds.
func (w *Worker) flushCredit() {
	s, c := w.creditScope, w.credit
	if s == nil {
		return
	}
	w.creditScope, w.credit = nil, 0
	if c != 0 && s.count.shared.Add(-c) == ownerWaiting {
		s.setDone()
	}
}

// scopeOf returns the scope whose task j runs (a spawned task or a part of
// a bulk spawn), or nil. The caller must have claimed j.
func scopeOf(j *Job) *Scope {
	switch r := j.runner.(type) {
	case *scopeJob:
		return r.scope
	case *batchPart:
		if b, ok := r.b.(*scopeBatch); ok {
			return b.s
		}
	case interface{ taskScope() *Scope }: // a valueJob of any type
		return r.taskScope()
	}
	return nil
}

// finishedNow reports, to the owner between jobs and with the flag off,
// whether every task has finished.
func (s *Scope) finishedNow() bool {
	sum := s.count.local + s.count.shared.Load()
	if debugChecks {
		s.checkScopeSum(sum)
	}
	return sum == 0
}

// ownerIdle moves the owner's share into shared with the flag, before the
// owner looks for work; it reports whether that finished the scope.
func (s *Scope) ownerIdle() bool {
	v := s.count.shared.Add(s.count.local + ownerWaiting)
	s.count.local = 0
	if v == ownerWaiting {
		s.done.Set()
		return true
	}
	return false
}

// ownerBusy takes the flag off before the owner runs a job it found while
// looking. If the scope finished meanwhile the flag stays (the count stays
// at ownerWaiting, which add recognises as finished).
func (s *Scope) ownerBusy() {
	if !s.done.Probe() {
		s.count.shared.Add(-ownerWaiting)
	}
}

// finishCheckEvery is how many jobs the owner of a scope runs between
// two loads of its shared count while waiting (see waitScope).
const finishCheckEvery = 8

// waitScope is how the owner waits for s: it runs other work, its own
// first, until every task of s has finished (see the counting notes
// above). Like waitUntil, it never blocks the thread while work exists.
func (w *Worker) waitScope(s *Scope) {
	if w.privHead < w.depth {
		w.publishAll() // see waitUntil
	}
	for jobs := uint(0); !s.done.Probe(); jobs++ {
		// Loading shared between every two jobs would pull its line away
		// from the workers that write it, once per task. The owner loads
		// it every finishCheckEvery jobs, and always before it looks for
		// work elsewhere (ownerIdle): once the scope has finished, it
		// runs at most finishCheckEvery-1 more jobs of its own (work that
		// is there to be done anyway) before it notices.
		// The analysis worker checks after every job: a job popped after
		// the end would be older than the scope (analyze.go).
		if (jobs%finishCheckEvery == 0 || w.analysing) && s.finishedNow() {
			s.done.Set()
			return
		}
		j := w.takeLocal()
		if j == nil {
			if s.ownerIdle() {
				return
			}
			j = w.look(&s.done)
			s.ownerBusy()
			if j == nil {
				return // the last task finished on another worker
			}
		}
		w.runHelping(j)
	}
}
