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
// only when a worker starts it (choose, or betweenTasks for the tasks of
// a bulk spawn), after it has claimed it. So "nothing above level l is
// queued" is one load, above[l] == 0, and it is exact at that load: every
// task of a level above l whose spawn has returned and which has not yet
// started is counted there (its count was complete before its spawn
// returned; its uncount starts only after it was chosen). A spawn's
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
// Inversions. After claiming a task of level L a worker loads the counts;
// if a level above L is queued, starting the task would be a priority
// inversion (a lower level started while a higher one was queued), so the
// worker puts it back, still counted, and looks for the more urgent work
// (choose). If that is nowhere to be seen (counted but not yet pushed, or
// on a worker a sampling search did not try), the default policies start
// the task anyway and count the inversion (WorkerStats.Inversions); the strict
// policy waits for the work to become visible and be claimed. Inversions
// are counted where a worker can see them, at that check: tasks that start
// on other paths (taken back from the private stack) are not counted.
//
// Sampling and sleep. A search that samples victims may miss work that
// only a worker about to sleep could take; the protocol (package sleep)
// relies on a worker's last search before blocking seeing every job posted
// before it. So that search is thorough (sleep.Idle.Sleepy).
//
// Nesting. A job a worker starts instead of the one it claimed runs on top
// of the claimed job's caller, which may be a task waiting for something;
// such jobs count in the worker's help depth, and from maxHelpDepth on a
// worker starts what it claimed (counting an inversion if need be) rather
// than nest further. The strict guarantee has that one exception.
//
// The level of a running task. A task's own forks (joins, forkjoin) and
// the chunks of a forkjoin.For are level-0 jobs. A worker running a task
// of level L (Worker.curLevel) judges the chunks of a loop it runs and
// the jobs it pops from its own deques while it waits at level L: only
// work above L goes first. A join half or chunk another worker steals
// runs there at level 0.

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
		p.victims = min(workers-1, max(1, int(math.Ceil(math.Sqrt(float64(workers-1))))))
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

// uncount removes n started (or dropped) tasks of level l from the queued
// counts.
func (p *prioState) uncount(l, n int) {
	for i := range l {
		p.above[i].Add(int64(-n))
	}
	if debugChecks {
		p.checkQueued(l)
	}
}

// queuedAbove reports whether a task of a level above l is queued.
func (p *prioState) queuedAbove(l int) bool {
	return l < MaxPriority && p.above[l].Load() != 0
}

// queuedAt reports whether tasks of level l >= 1 seem to be queued: from
// two loads, not one instant, which is good enough to skip a search.
func (p *prioState) queuedAt(l int) bool {
	n := p.above[l-1].Load()
	if l < MaxPriority {
		n -= p.above[l].Load()
	}
	return n > 0
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
// level's deque. j must already be counted (prioState.count). tasks is
// how many tasks j holds, for the sleepers (see pushPublic).
func (w *Worker) pushLevel(j *Job, tasks int) {
	l := j.level()
	if l == 0 || w.reg.prio.policy == PriorityOblivious {
		w.pushPublic(j, tasks)
		return
	}
	d := w.levels[l-1]
	j.setTag(w.iso)
	j.takeLabels()
	wasEmpty := d.Empty()
	d.Push(j)
	w.sleep.NewInternalJobs(tasks, wasEmpty)
}

// choose decides what this worker starts, given j, a job it has just
// claimed from a deque or an injector (not from its private stack): j
// itself, a more urgent job it finds instead, or nothing (nil).
//
//   - If nothing above j's level is queued, j. While nothing above level 0
//     is queued at all, that is all choose costs: one atomic load.
//   - Otherwise the worker looks for that more urgent work (findAbove). If
//     it finds some, j goes back on this worker's deques, still counted,
//     and choose decides on the job found in turn.
//   - If it finds none (the work is counted but not visible yet, or, with
//     PrioritySample, on a worker it did not try), the strict policy puts
//     j back and returns nil, and the caller backs off and tries again;
//     the other policies start j and count an inversion.
//
// The oblivious policy, and a worker already maxHelpDepth jobs deep, start
// j at once, counting an inversion if a higher level is queued (see
// "Nesting" above). thorough makes the search try every other worker
// whatever the policy (see findAbove).
// floor raises the level j is judged at: a worker popping its own jobs
// while it waits inside a task of level L passes L, as those jobs are
// that task's own work (see "The level of a running task").
//
// The job returned has been taken off the queued counts: it is started.
// The caller runs it; if it is not j it nests like helping (runNested).
func (w *Worker) choose(j *Job, thorough bool, floor int) *Job {
	p := &w.reg.prio
	if !p.anyQueued() || w.iso != 0 && j.level() == 0 {
		// In a region only its level-0 jobs may start (isolate.go).
		return j
	}
	for {
		// Read before j is back where another thread can take it.
		l := max(j.level(), floor)
		if !p.queuedAbove(l) {
			break
		}
		if p.policy == PriorityOblivious || w.helping >= maxHelpDepth {
			w.inversions.Add(1)
			break
		}
		h := w.findAbove(l, thorough || p.policy == PriorityStrict)
		// j goes back in its own context: it may be a region's job taken
		// from the injector by this worker, outside the region.
		if h == nil {
			if p.policy == PriorityStrict {
				w.reg.queueIn(w, j, j.tag.Load(), 1)
				return nil
			}
			w.inversions.Add(1)
			break
		}
		w.reg.queueIn(w, j, j.tag.Load(), 1)
		j = h
	}
	p.uncount(j.level(), 1)
	return j
}

// startOwn is how a worker that pops its own public or level deques while
// waiting (runOwn: TakeBack, ForChunks, waitFuture) starts the job j it popped:
// through choose, backing off when the strict policy refuses. round counts
// the caller's consecutive refusals; startOwn returns the next value.
//
// A job of its own runs at the level of the task that waits, if that is
// higher than the job's: it is that task's work (see "The level of a
// running task").
func (w *Worker) startOwn(j *Job, round int) int {
	c := w.choose(j, false, w.curLevel)
	if c == nil {
		sleep.Backoff(round)
		return round + 1
	}
	if c == j {
		w.executeAt(j, max(w.curLevel, j.level()))
		return 0
	}
	w.runNested(c)
	return 0
}

// findAbove looks for a job of a level above l, from the top level down,
// skipping levels with nothing queued: its own deque of
// the level, other workers' (all of them if thorough, else prio.victims of
// them), then the level's injector. The job is claimed but not started
// (see choose).
func (w *Worker) findAbove(l int, thorough bool) *Job {
	p := &w.reg.prio
	if p.policy == PriorityOblivious {
		return nil
	}
	for lv := MaxPriority; lv > l; lv-- {
		// A thorough search may skip a level only on the one-load test
		// (nothing queued at or above it): queuedAt's two loads can miss
		// a task whose count changed in between, which the last search
		// before sleeping must not (see Sampling and sleep).
		if thorough && !p.queuedAbove(lv-1) || !thorough && !p.queuedAt(lv) {
			continue
		}
		if j := w.levels[lv-1].Pop(); j != nil {
			return j
		}
		if j := w.stealLevel(lv, thorough); j != nil {
			return j
		}
		if j := w.reg.prio.injectors[lv-1].pop(); j != nil {
			return j
		}
	}
	return nil
}

// stealLevel tries the level-lv deques of prio.victims other workers (all
// of them if thorough), starting at a random one, and starts over while a
// steal lost a race.
func (w *Worker) stealLevel(lv int, thorough bool) *Job {
	tries := w.reg.prio.victims
	if thorough {
		tries = int(w.reg.live.Load()) - 1
	}
	return w.stealRound(tries, lv, func(v *Worker) (*Job, int, deque.StealResult) {
		j, res := v.levels[lv-1].Steal()
		return j, 1, res
	})
}
