package runtime

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/deque"
	"github.com/spindle-go/spindle/sleep"
)

// The registry's size: how many workers it has, and how many of them run,
// as GOMAXPROCS moves.
//
// Why more workers looking for work than Ps only take turns on them:
// docs/design.md, "Size"; Go changes GOMAXPROCS under a running program
// (go test -cpu, runtime.GOMAXPROCS, a container's CPU limit since 1.25).
//
// Two counts follow GOMAXPROCS (procs, read by CheckProcs):
//
//   - size is the registry's number of workers, what Workers reports. It
//     is Config.Workers, fixed, unless Config.FollowProcs: then it is
//     procs, up to Config.MaxFollowed, and workers are made as it grows
//     (never unmade: a worker past size parks, as below).
//   - running is how many workers may look for work: min(size, procs).
//     Workers are ranked in the order they were made (rank); a worker
//     whose rank is at or past workersRunning parks when it is back in its
//     main loop with nothing to do (parkSurplus), outside the sleep
//     protocol, until running grows past its rank or Close. It never
//     parks inside a task, and its deques are empty when it parks (what it
//     had went to the injector), so no job waits on a parked worker.
//   - workersRunning is running, but no more than procs less one for
//     each guest in a call (guest.go), and at least one: a guest computes
//     on a P of its own, so once workers and guests fill the Ps it takes
//     a worker's place instead of adding a thread. A guest's
//     arrival parks a worker only when that worker is next out of work,
//     and a surplus worker steals from no guest (a guest's forks never
//     need a thief: its joins and waits take them back). A guest's leaving
//     wakes nobody: the monitor's next round (monitor.go) or the next
//     call handed to the workers (injected) wakes the workers back within
//     the count, so a server whose requests come back to back keeps its
//     workers parked instead of waking one per request.
//
// Who reads procs: a call from outside the pool that finds it idle
// (admit), a worker of the pool in its main loop before it sleeps, and
// the monitor's rounds while the pool is busy (monitor.go), so a change
// reaches the registry by its next call once idle, its next idle worker,
// or a monitor tick while it is busy.
//
// Workers past running that are still inside a task (procs fell while
// they computed) crowd the Ps until they park; meanwhile the idle loop
// hands its P over instead of holding it (sleep.Crowded).
type sizing struct {
	// procs is GOMAXPROCS as last read; size and running are as above;
	// all three are written under mu and read anywhere.
	procs, size, running atomic.Int32
	// parked counts the workers parked by parkSurplus (written under mu,
	// read anywhere); the others in ranked are awake.
	parked atomic.Int32
	// follow is Config.FollowProcs; max bounds size while following.
	follow bool
	max    int
	// ranked holds the workers made, by rank (under mu, appended only).
	ranked []*Worker
	// stopped is set by Close before it stops the workers: no worker is
	// made after it (under mu).
	stopped bool
	// How to start a worker made later: locked, and pinned to cpus.
	locked bool
	cpus   []int
	mu     sync.Mutex
}

// CheckProcs reads GOMAXPROCS and, if it moved, resizes the registry: one
// lock-protected read of the Go scheduler's setting otherwise. (Exported
// for pool's tests, which change GOMAXPROCS without making a call.)
// The reading may be stale by the time resize runs: resize reads
// GOMAXPROCS again.
func (r *Registry) CheckProcs() {
	if int32(readProcs(0)) != r.sizing.procs.Load() {
		r.resize()
	}
}

// readProcs is runtime.GOMAXPROCS; tests count its calls.
var readProcs = goruntime.GOMAXPROCS

// resize sets the counts for the Ps GOMAXPROCS gives now: it makes the
// workers a following registry lacks and wakes the parked workers now
// within running. It reads GOMAXPROCS itself, under mu: a reading its
// caller made may be stale by the time it holds mu (GOMAXPROCS moved
// again and a resize for the newer setting ran meanwhile), and the last
// resize must leave the newest setting, not the one its caller saw.
func (r *Registry) resize() {
	z := &r.sizing
	z.mu.Lock()
	defer z.mu.Unlock()
	procs := int32(goruntime.GOMAXPROCS(0))
	if z.stopped || procs == z.procs.Load() {
		return
	}
	size := z.size.Load()
	if z.follow {
		size = min(procs, int32(z.max))
		for len(z.ranked) < int(size) {
			r.startWorker(r.newSlot(slotWorker), nil)
		}
		z.size.Store(size)
	}
	z.running.Store(min(size, procs))
	running := r.workersRunning()
	// A worker now surplus that sleeps in the protocol leaves it to park
	// (its last check before sleeping reads running: Worker.stayAwake).
	for _, w := range z.ranked[running:] {
		r.sleep.WakeSleeping(w.index)
	}
	// procs is stored once the counts are set (wakeParked reads it):
	// sawProcs skips the resize when it reads the setting it saw, so a
	// caller that reads it must find the registry sized for it. Stored
	// first, it let a caller race past a resize still making its
	// workers (TestStaleProcsReadingKeepsTheNewestSetting, under -race).
	z.procs.Store(procs)
	r.guests.procs.Store(procs)
	r.noteFilled() // more Ps than guests in a call: not saturated
	r.wakeParked(running)
}

// wakeParked wakes the parked workers ranked below running (under mu).
func (r *Registry) wakeParked(running int) {
	z := &r.sizing
	for _, w := range z.ranked[:min(running, len(z.ranked))] {
		r.unpark(w)
	}
	r.noteCrowded()
}

// unpark wakes w if it is parked past the running count; sizing.mu is
// held. The caller then updates the Crowded reason (noteCrowded).
func (r *Registry) unpark(w *Worker) {
	if w.surplus.CompareAndSwap(true, false) {
		r.sizing.parked.Add(-1)
		w.surplusWake <- struct{}{} // room for one: its park takes it
	}
}

// noteCrowded steps idle workers aside (sleep.Crowded) while the workers
// made and not parked outnumber the Ps (under mu).
func (r *Registry) noteCrowded() {
	z := &r.sizing
	r.sleep.StepAside(sleep.Crowded, int32(len(z.ranked))-z.parked.Load() > z.procs.Load())
}

// workersRunning is how many workers may look for work now: running, but
// no more than the Ps the guests in a call leave, and at least one (see
// the notes above). A pool of fewer workers than Ps parks none for a
// guest while the Ps hold both.
func (r *Registry) workersRunning() int {
	n := int(r.sizing.running.Load())
	if g := int(r.guests.running.Load()); g > 0 {
		n = max(1, min(n, int(r.sizing.procs.Load())-g))
	}
	return n
}

// wakeWithinCount wakes parked workers that the count now lets run:
// after guests left (the monitor's rounds), and before a call is handed
// to the workers (injected), which must not wait for the one worker that
// guests left running.
func (r *Registry) wakeWithinCount() {
	z := &r.sizing
	if z.parked.Load() == 0 {
		return
	}
	z.mu.Lock()
	if !z.stopped {
		r.wakeParked(r.workersRunning())
	}
	z.mu.Unlock()
}

// startWorker starts worker w (under mu): locked to its thread unless
// Config.Unlocked, pinned to cpus[rank mod len(cpus)] if any, and, with
// started, its start counted there.
func (r *Registry) startWorker(w *Worker, started *sync.WaitGroup) {
	z := &r.sizing
	cpu := -1
	if len(z.cpus) > 0 {
		cpu = z.cpus[w.rank%len(z.cpus)]
	}
	r.stopped.Add(1)
	go w.start(cpu, z.locked, started)
}

// isSurplus reports whether w is a worker ranked at or past the workers
// running (workersRunning): its main loop parks it when it has nothing to
// do, and it steals from no guest meanwhile.
func (w *Worker) isSurplus() bool {
	return w.rank >= 0 && w.rank >= w.reg.workersRunning()
}

// parkSurplus is the main loop's step for a surplus worker out of work
// (look returned, out of the sleep protocol): a last look for work, then
// a park until wakeParked (resize, or Close) wakes it. A job found is
// run, and the main
// loop comes back here once it is idle again.
func (w *Worker) parkSurplus() {
	r := w.reg
	// The last look. Having left the sleep protocol's idle count, w must
	// see every job whose poster counted on it as a looker, as a worker
	// turning sleepy must (sleep's "Why no wake-up is lost"; the deques
	// publish with release stores: newWorkerDeque).
	deque.SyncWithOwners()
	if j := w.findWork(true); j != nil {
		w.runHelping(j)
		return
	}
	w.handOffQueued() // a job the strict priority policy put back there
	z := &r.sizing
	z.mu.Lock()
	if !w.isSurplus() || w.terminate.Probe() || z.stopped || w.inbox.pending() { // broadcast.go
		z.mu.Unlock()
		return
	}
	w.surplus.Store(true)
	z.parked.Add(1)
	r.noteCrowded()
	z.mu.Unlock()
	// w may have been woken for a job it now leaves (a guest's fork,
	// which a surplus worker does not take): pass the wake-up on, so that
	// a worker within the count comes for it.
	if r.workQueued() {
		r.sleep.NewInternalJobs(1, false)
	}
	// Not blocked in a task: the monitor starts no spare for it.
	r.sleep.ParkMarked(w.index, func() { <-w.surplusWake })
}

// handOffQueued moves the jobs left on w's deques to the injectors, where
// every worker looks: w is about to stop taking work (a surplus worker
// parking, a guest leaving) and has no task in progress, so the jobs
// belong to no isolated region. A thief may take some meanwhile; each job
// goes one way.
func (w *Worker) handOffQueued() {
	for j := w.publicPop(); j != nil; j = w.publicPop() {
		w.reg.inject(j, 1)
	}
	for j := w.popLevels(); j != nil; j = w.popLevels() {
		w.reg.inject(j, 1)
	}
}

// initSizing sets the registry's first size: cfg.Workers workers, up to
// maxWorkers if they follow GOMAXPROCS, as many running as there are Ps.
func (r *Registry) initSizing(cfg Config, maxWorkers int, cpus []int) {
	z := &r.sizing
	z.follow, z.max, z.locked, z.cpus = cfg.FollowProcs, maxWorkers, !cfg.Unlocked, cpus
	procs := int32(goruntime.GOMAXPROCS(0))
	z.procs.Store(procs)
	r.guests.procs.Store(procs)
	z.size.Store(int32(cfg.Workers))
	z.running.Store(min(int32(cfg.Workers), procs))
	r.sleep.StepAside(sleep.Crowded, int32(cfg.Workers) > procs) // awake once started
}
