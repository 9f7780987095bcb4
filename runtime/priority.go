package runtime

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/spindle-go/spindle/deque"
	"github.com/spindle-go/spindle/sleep"
)

// Priorities (after Imam and Sarkar's priority-aware work stealing, as
// measured by Joshi and Hegde).
//
// A spawned task may carry a level from 0 to MaxPriority; higher is more
// urgent. Level 0 is where joins, plain spawns, Run and futures live: the
// worker's join deque (private stack plus public Chase-Lev) and the
// registry's injector, untouched by this file, so joins keep their fast
// path. Each level above 0 has, per worker, its own Chase-Lev deque (spawns
// are published at once) and, per registry, its own injector.
//
// Where a worker looks. A worker out of its own current work takes the
// most urgent work it can find: for each level from MaxPriority down to 1
// that has queued tasks, its own deque of that level, then the deques of
// that level on other workers (all of them, or a random sample: see
// PriorityPolicy), then that level's injector; only then its level-0 work
// as before. A task a worker runs is never preempted: priorities decide
// what a worker starts next, not what it interrupts.
//
// Queued counts. prioState.above[l] counts the queued tasks of levels
// above l (l from 0 to MaxPriority-1). A task of level L is counted in
// above[0..L-1] before it becomes visible (before the push) and uncounted
// only when a worker starts it (admit, or the part loop for the tasks of
// a bulk spawn), after it has claimed it. So "nothing above level l is
// queued" is one load, above[l] == 0, and it is exact at that load: every
// task of a level above l whose spawn has returned and which has not yet
// started is counted there (its count was complete before its spawn
// returned; its uncount starts only after it was admitted). A spawn's
// increments of several counters are not one atomic step, but none of
// them matters before the task is pushed, and a late decrement only makes
// others wait or count an inversion that was not one, never the reverse.
// The tasks of a bulk spawn are counted one by one, including those a
// runner holds in its part: they are queued until each starts.

// What "start" means. Priorities order the tasks a worker starts while
// looking for work: spawned tasks, published join halves it claims from a
// deque (stolen or its own, popped while waiting), the chunks of a bulk
// spawn. Taking back its own fork from its private stack is the
// continuation of the task it is running and is not a start.
//
// Inversions. After claiming a task of level L a worker loads queued; if
// a level above L is queued, starting the task would be a priority
// inversion (a lower level started while a higher one was queued). The
// default policies start it anyway and count it (Stats.Inversions); the
// strict policy puts the task back, still counted as queued, and looks
// for the more urgent work instead. Inversions are counted where a worker
// can see them, at that check: tasks that start on other paths (taken back
// from the private stack) are not counted.

// MaxPriority is the most urgent level. Levels run from 0 (joins and plain
// spawns) to MaxPriority.
const MaxPriority = 3

// PriorityPolicy says how strictly workers follow priority levels.
type PriorityPolicy uint8

const (
	// PriorityScanAll: a worker looks for a level on every other worker
	// before it looks at a lower level. Inversions can still happen in the
	// race between a task being counted and being seen.
	PriorityScanAll PriorityPolicy = iota
	// PrioritySample: a worker looks for a level on a random sample of
	// about the square root of the number of workers before it goes down
	// a level: fewer steal attempts, more inversions.
	PrioritySample
	// PriorityStrict: no task starts while a task of a higher level is
	// queued (see the package notes above for the exact statement). A
	// worker that claimed a task and finds higher work queued puts the
	// task back and waits, spinning, until that work is claimed.
	PriorityStrict
	// PriorityOblivious ignores levels: every task goes where a level-0
	// task goes. Inversions are still counted. For comparison.
	PriorityOblivious
)

func (p PriorityPolicy) String() string {
	switch p {
	case PriorityScanAll:
		return "scan-all"
	case PrioritySample:
		return "sample"
	case PriorityStrict:
		return "strict"
	case PriorityOblivious:
		return "oblivious"
	}
	return fmt.Sprintf("PriorityPolicy(%d)", uint8(p))
}

// prioState is a registry's priority machinery.
type prioState struct {
	policy PriorityPolicy
	// victims is how many other workers a search at one level tries.
	victims int
	// above[l] counts the queued tasks of levels above l.
	above [MaxPriority]atomic.Int64
	// injectors[l-1] holds level-l tasks submitted from outside the pool.
	injectors [MaxPriority]injector
}

func (p *prioState) init(policy PriorityPolicy, workers int) error {
	if policy > PriorityOblivious {
		return fmt.Errorf("spindle: unknown priority policy %d", uint8(policy))
	}
	p.policy = policy
	p.victims = workers - 1
	if policy == PrioritySample {
		p.victims = max(1, int(math.Ceil(math.Sqrt(float64(workers-1)))))
	}
	return nil
}

// count adds n tasks of level l to the queued counts, before they are
// pushed anywhere.
func (p *prioState) count(l, n int) {
	for i := range l {
		p.above[i].Add(int64(n))
	}
}

// uncount removes a started task of level l from the queued counts.
func (p *prioState) uncount(l int) {
	for i := range l {
		p.above[i].Add(-1)
	}
}

// queuedAbove reports whether a task of a level above l is queued.
func (p *prioState) queuedAbove(l int) bool {
	return l < MaxPriority && p.above[l].Load() != 0
}

// anyQueued reports whether a task of any level above 0 is queued.
func (p *prioState) anyQueued() bool { return p.above[0].Load() != 0 }

// hasInjected reports whether any injector of a level above 0 holds a job.
func (p *prioState) hasInjected() bool {
	for i := range p.injectors {
		if p.injectors[i].nonEmpty() {
			return true
		}
	}
	return false
}

// checkLevel panics unless l is a valid priority level.
func checkLevel(call string, l int) {
	if l < 0 || l > MaxPriority {
		panic(fmt.Sprintf("%s: priority %d out of range [0, %d]", call, l, MaxPriority))
	}
}

// pushLevel queues j (of level j.level()) on this worker: level 0 and
// the oblivious policy use the join deque's public end, the others their
// level's deque. j must already be counted (prioState.count).
func (w *Worker) pushLevel(j *Job) {
	l := j.level()
	if l == 0 || w.reg.prio.policy == PriorityOblivious {
		w.pushPublic(j)
		return
	}
	d := w.levels[l-1]
	wasEmpty := d.Empty()
	d.Push(j)
	w.sleep.NewInternalJobs(1, wasEmpty)
}

// injectLevel queues j (counted) from outside the registry.
func (r *Registry) injectLevel(j *Job) {
	l := j.level()
	if l == 0 || r.prio.policy == PriorityOblivious {
		r.inject(j)
		return
	}
	r.injected.Add(1)
	wasEmpty := r.prio.injectors[l-1].push(j)
	r.sleep.NewInjectedJobs(1, wasEmpty)
}

// admit decides whether this worker may start j, a job it has just claimed
// from a deque or an injector (not from its private stack). It returns
// true, and takes j off the queued counts, unless the policy is strict and
// a higher level is queued: then j goes back on this worker's deques,
// still counted, and the caller must look for that higher work (the
// worker's search starts at the top level).
//
// While nothing above level 0 is queued this is one atomic load.
func (w *Worker) admit(j *Job) bool {
	p := &w.reg.prio
	if !p.anyQueued() {
		return true
	}
	l := j.level()
	if p.queuedAbove(l) {
		if p.policy == PriorityStrict {
			w.pushLevel(j)
			return false
		}
		w.inversions.Add(1)
	}
	if l > 0 {
		p.uncount(l)
	}
	return true
}

// findAbove looks for a job of a level above l, from the top level down,
// skipping levels with nothing queued at or above them. The job is claimed
// but not admitted.
func (w *Worker) findAbove(l int) *Job {
	p := &w.reg.prio
	if p.policy == PriorityOblivious {
		return nil
	}
	for lv := MaxPriority; lv > l; lv-- {
		if !p.queuedAbove(lv - 1) {
			continue
		}
		if j := w.levels[lv-1].Pop(); j != nil {
			return j
		}
		if j := w.stealLevel(lv); j != nil {
			return j
		}
		if j := w.reg.prio.injectors[lv-1].pop(); j != nil {
			return j
		}
	}
	return nil
}

// stealLevel tries the level-lv deques of prio.victims other workers,
// starting at a random one, and starts over while a steal lost a race.
func (w *Worker) stealLevel(lv int) *Job {
	workers := w.reg.workers
	n := len(workers)
	tries := w.reg.prio.victims
	if tries == 0 {
		return nil
	}
	for {
		retry := false
		v := int(w.random() % uint64(n))
		for tried := 0; tried < tries; v++ {
			if v >= n {
				v -= n
			}
			if v == w.index {
				continue
			}
			tried++
			j, res := workers[v].levels[lv-1].Steal()
			switch res {
			case deque.Success:
				w.steals.Add(1)
				w.levelSteals[lv].Add(1)
				w.traceSteal(v)
				return j
			case deque.Retry:
				retry = true
			}
		}
		if !retry {
			return nil
		}
	}
}

// runAbove makes progress on work above level l after admit refused a
// level-l job in the strict mode: it runs one admitted job of a higher
// level if it finds one, or backs off (round counts the caller's fruitless
// attempts). It returns the next round.
func (w *Worker) runAbove(l int, round int) int {
	if j := w.findAbove(l); j != nil && w.admit(j) {
		w.execute(j)
		return 0
	}
	sleep.Backoff(round)
	return round + 1
}
