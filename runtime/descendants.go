package runtime

// Running descendants in place.
//
// A spawned task's Run (valueJob's for SpawnValue, scopeJob's for
// Scope.Spawn's closures) pops the next job itself when it is what the
// wait loop would run next anyway, a task of the same scope and kind, and
// runs it in its own loop under the one deferred call (why:
// docs/design.md, "Running descendants in place"; profiles:
// docs/performance/task-per-node.md).
//
// It takes only the task's descendants: jobs pushed on the deque since
// Run started (the deque is longer than it was then; thieves only shorten
// it from the other end, so a longer deque has its newest job above
// where it started). The jobs below belong to the wait that called Run,
// which checks its latch between jobs: running its older jobs here would
// keep it from returning when the latch is set. Running a descendant here
// instead of there changes nothing else the wait loop would have done
// for it: it is a level-0 task, run only from a task of level 0, of the
// scope of the task that spawned it, so the tag, level and credit state
// of the running task are its own; while a task above level 0 is queued
// the loop stops (takeLocal would look for it first); a worker that holds
// credits of another scope gives them back first (as executeAt would);
// the job is counted as executed; a caller the tasks readied gets the P
// when Run returns to the wait (handOffP), as it would when the worker
// runs out of work anyway. A job of another kind goes back on top
// of the deque, where the wait loop pops it next. A panic ends the loop:
// the deferred call finishes the task that panicked, and the rest are
// left to the wait loop. Workers with a deque variant (and the analysis
// worker, which has one) run one task per call, as do those of a registry
// made with Research.OneTaskPerRun, the baseline of the benchmarks that
// measure this.

// descendantsAbove returns the length of w's deque at the start of a
// task, for popDescendant, or -1 (run one task per call) if w has a deque
// variant or was configured so (Research.OneTaskPerRun), or the task runs
// above level 0.
func (w *Worker) descendantsAbove() int {
	if w.oneTaskPerRun || w.curLevel != 0 {
		return -1
	}
	return w.deque.Len()
}

// endTask ends a spawned task of s that returned on w (its spawned
// siblings reordered, the task counted as finished) and pops the next
// job if it is a descendant of the running Run (popDescendant), for the
// Run's type check. It is one call for what every task does at its end:
// a generic record's Run is compiled in the package that spawns, and the
// Go compiler (1.26) inlines the runtime's unexported helpers into it only
// if that package imports the runtime itself, which programs do not
// (they use forkjoin and pool); out of line, each would be a call per
// task.
func (w *Worker) endTask(s *Scope, below int) *Job {
	w.orderSiblings()
	s.finished(w)
	return w.popDescendant(below)
}

// popDescendant pops the newest job of w's deque if the deque is longer
// than below, its length when the running task started (so the job was
// pushed since), and no task above level 0 is queued; nil otherwise.
func (w *Worker) popDescendant(below int) *Job {
	if below < 0 || w.deque.Len() <= below || w.reg.prio.anyQueued() {
		return nil
	}
	// publicPop's path for the default deque (below is -1 with a
	// variant), written out: a call less per task.
	w.siblings = 0
	j := w.deque.Pop() // nil if a thief took it
	if j != nil && w.privHead < w.depth {
		w.requestOffer() // the exposed job may be gone (see Offer)
	}
	return j
}

// startDescendant does for a task of s that a Run takes from the deque
// what executeAt does for a job it starts (inlined: the uncommon steps
// are in startDescendantSlow).
func (w *Worker) startDescendant(s *Scope) {
	w.executedUnpublished++
	if w.executedUnpublished == executedBatch || w.creditScope != nil && w.creditScope != s {
		w.startDescendantSlow(s)
	}
}

func (w *Worker) startDescendantSlow(s *Scope) {
	if w.executedUnpublished == executedBatch {
		w.publishExecuted()
	}
	if w.creditScope != nil && w.creditScope != s {
		w.flushCredit() // see Credits in scopecount.go
	}
}

// unpop puts back j, which w popped from its default deque, on top,
// announcing it again: a worker about to sleep may have looked while it
// was off the deque.
func (w *Worker) unpop(j *Job) {
	wasEmpty := w.deque.Empty()
	w.deque.Push(j)
	w.sleep.NewInternalJobs(1, wasEmpty)
}
