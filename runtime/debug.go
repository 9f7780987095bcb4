package runtime

import "fmt"

// Invariant checks for -tags spindle_debug (debugChecks) and the race
// perturbation (raceEnabled: fork fast paths that fail at random, random
// split points of bulk spawns). Each call site is guarded by the constant,
// so a default build contains none of this.

// perturb reports, under the race detector, whether a fork fast path
// should fail on purpose this time (one in four): the caller then takes
// the slow path, which must give the same result.
func (w *Worker) perturb() bool { return w.random()%4 == 0 }

// checkPrivate panics if w's frame stack is inconsistent: 0 <= privHead
// <= depth <= len(slots).
func (w *Worker) checkPrivate() {
	if w.privHead < 0 || w.privHead > w.depth || w.depth > len(w.slots) {
		panic(fmt.Sprintf("runtime: worker %d: frame stack bounds: private from %d, depth %d, %d slots", w.index, w.privHead, w.depth, len(w.slots)))
	}
}

// checkScopeSum panics if a scope's count, seen by its owner between
// jobs, is negative: the sum counts unfinished tasks plus credits held,
// never less than zero.
func (s *Scope) checkScopeSum(sum int64) {
	if sum < 0 {
		panic(fmt.Sprintf("runtime: scope count %d is negative (a task finished twice or was never counted)", sum))
	}
}

// checkQueued panics if a priority count went negative.
func (p *prioState) checkQueued(l int) {
	for i := range l {
		if v := p.above[i].Load(); v < 0 {
			panic(fmt.Sprintf("runtime: %d tasks queued above level %d (uncounted more than counted)", v, i))
		}
	}
}

// checkGuestLeft panics if guest slot w leaves a call with state of it
// still in the slot: a join frame, an isolated region, a task level, or a
// lineage entry (guest.go).
func checkGuestLeft(w *Worker) {
	if w.depth != 0 || w.privHead != 0 || w.iso != 0 || len(w.isoStack) != 0 || w.curLevel != 0 || w.lineageDepth != 0 || w.helping != 0 {
		panic(fmt.Sprintf("runtime: guest slot %d left a call with state in it: depth %d, private from %d, isolation %d (%d entered), level %d, lineage %d, helping %d",
			w.index, w.depth, w.privHead, w.iso, len(w.isoStack), w.curLevel, w.lineageDepth, w.helping))
	}
}
