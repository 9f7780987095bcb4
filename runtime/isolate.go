package runtime

import (
	"time"

	"github.com/spindle-go/spindle/deque"
	"github.com/spindle-go/spindle/sleep"
)

// Isolation (oneTBB's this_task_arena::isolate): a region of code on a
// worker whose waits run only the region's own jobs, never unrelated
// queued work. Code that forks while holding a lock needs it: a worker
// waiting inside the lock for a stolen half could otherwise start another
// task that takes the same lock, on the same goroutine, and hang.
//
// Contexts and tags. Isolate opens a region with a tag unique among the
// registry's regions for the registry's life (the worker's index above a
// serial of the worker's; never 0). A worker's context is the tag of what
// it runs (Worker.iso; 0 outside any region). Every job is marked with
// the context that published it (Job.tag): a join half when
// publishOldest moves it from the private stack to the deque (each
// context records the frame depth where it began, isoContext.mark, so the
// tag of any private job is known without a store per fork), a spawned task
// when it is pushed. A spawned task belongs to the context of whoever
// waits for it, not of whoever spawned it: a scope's or group's tasks
// carry the tag of the context the scope or group was made in
// (Scope.tag), a detached task (Registry.Spawn) none, a future the
// submitter's. A region's caller may hold a lock that a task spawned in
// the region for a wait outside it takes; a region's wait that ran such
// a task would hang, so it must not carry the region's tag. Such a task
// is queued on the injector (queueIn), never on the region's deques. A
// worker that starts a job marked with another tag runs it in that tag's
// context: a thief running a region's job is in the
// region, so what the job forks or spawns belongs to the region too, and
// its own waits are isolated in turn. Only a worker outside any region
// starts jobs of other tags, so contexts nest at most one deep on top of
// untagged code, plus the regions Isolate opens inside them.
//
// Isolated waits. A wait in a tagged context (takeLocal, look, HelpUntil,
// the own-job pops of TakeBack, futures and loops) takes only jobs of its
// tag: private jobs above its context's mark, the newest public job if it
// has the tag, another worker's oldest public job if it has the tag
// (deque.ChaseLev.StealIf), and any injected job with the tag. It never
// starts work of a level above 0 (a region's spawns are queued at level
// 0, so that the region's waits can run them). And it stays out of the
// sleep protocol's counts: a worker that refuses most jobs must not look
// idle to a poster, which would count on it, nor be a sleeper a post
// wakes, which would spend the wake-up on it and leave the job queued
// with everyone who could take it asleep. Between searches it backs off,
// then parks on its latch (sleep.ParkOnLatch) with a timeout that grows
// from isolatedParkMin to isolatedParkMax, which is how it notices jobs
// of its region that appear on other workers.
//
// Reachability. A waiting region must reach every job of the region that
// nobody is running, or it could wait forever while the workers that
// could run that job block on the region's lock. A context's jobs sit on
// its worker's deque above everything older (they are pushed last, and
// a context that ends leaves none behind, see below), where that worker
// pops them; the oldest of them are also where thieves of the region
// look. When a context ends (a job of another tag returns, a region
// closes), the jobs with its tag still on the worker's public deque
// (tasks it spawned that nobody took) are on top: leaveContext moves them
// to the injector, where the region's waiters find them, and so does
// every worker outside a region. Forks never outlive their context: a
// join takes back or waits for its half before it returns. One case is
// not covered: a job of a region held by a worker that is in the region
// and blocks (on a channel, say) under older jobs of its own waits for
// that worker or a thief outside any region, as a private job does.
//
// Deque variants (Research.Deque) publish every job at once and are not
// searched by isolated thieves: a variant worker's region jobs run on
// that worker, on thieves outside the region, or from the injector.

// isoContext is one context a worker entered (see Worker.isoStack).
type isoContext struct {
	tag  uint64 // the context's tag
	prev uint64 // the tag of the context it interrupted
	mark int    // the worker's depth when it began: its forks' frames are at mark and above
}

// isoIndexShift places a worker's index above its region serial in a tag.
const isoIndexShift = 48

// How a wait that refuses work idles (an isolated wait between searches,
// and the help bound's wait, which takes no job): sleep.Backoff for
// parkBackoffRounds rounds, then it parks on its latch; an isolated wait
// for isolatedParkMin, doubling up to isolatedParkMax, then searches
// again.
const (
	parkBackoffRounds = 48
	isolatedParkMin   = 50 * time.Microsecond
	isolatedParkMax   = time.Millisecond
)

// queueIn queues j, a job of level j.level() holding tasks tasks, for the
// context tag: on w, the current worker of r (nil for a caller that is
// none), if that is the context it runs in, else on an injector, where
// that context's waits and every worker outside a region find it. Every
// job a worker queues goes through here or through a push in its own
// context (Push), so a worker's deques hold above each context's mark
// only that context's jobs, which is what lets its isolated waits reach
// them (see "Reachability" above).
func (r *Registry) queueIn(w *Worker, j *Job, tag uint64, tasks int) {
	if w != nil && tag == w.iso {
		w.pushLevel(j, tasks)
		return
	}
	j.setTag(tag)
	j.takeLabels()
	r.enqueue(j, tasks) // a region's jobs are all of level 0
}

// Isolate runs f as an isolated region on w: until f returns, every wait
// of w inside f, and of any worker inside a job f started, runs only jobs
// that f started (directly or through those jobs). Tasks that f spawned
// and that outlive it stay queued for any worker. On the analysis worker
// (which runs everything in place) it just calls f.
func (w *Worker) Isolate(f func()) {
	if w.analysing {
		f()
		return
	}
	w.isoSerial++
	w.enterContext(uint64(w.index+1)<<isoIndexShift | w.isoSerial&(1<<isoIndexShift-1))
	defer w.leaveContext()
	f()
}

// enterContext makes tag the worker's context; leaveContext ends it.
func (w *Worker) enterContext(tag uint64) {
	w.isoStack = append(w.isoStack, isoContext{tag: tag, prev: w.iso, mark: w.depth})
	w.iso = tag
}

// leaveContext ends the innermost context. The jobs of its tag still on
// the public deque are on top (newer than every other job there); they
// move to the injector (see "Reachability" above).
func (w *Worker) leaveContext() {
	c := w.isoStack[len(w.isoStack)-1]
	for j := w.popPublicTagged(c.tag); j != nil; j = w.popPublicTagged(c.tag) {
		w.reg.enqueue(j, 1)
	}
	w.isoStack = w.isoStack[:len(w.isoStack)-1]
	w.iso = c.prev
}

// privateTag returns the tag of the context that forked the job of frame
// i: the innermost context that began at or below depth i.
func (w *Worker) privateTag(i int) uint64 {
	for k := len(w.isoStack) - 1; k >= 0; k-- {
		if c := &w.isoStack[k]; c.mark <= i {
			return c.tag
		}
	}
	return 0
}

// popPublicTagged pops the newest public job if it has the given tag.
func (w *Worker) popPublicTagged(tag uint64) *Job {
	if w.variant == nil {
		if top := w.deque.Peek(); top == nil || top.tag.Load() != tag {
			return nil
		}
		return w.publicPop() // the peeked job, or nil if a thief took it
	}
	j := w.variant.Pop()
	if j == nil || j.tag.Load() == tag {
		return j
	}
	// Not ours: put it back, announced again (see unpop).
	if w.variant.TryPush(j) {
		w.sleep.NewInternalJobs(1, false)
	} else {
		w.reg.enqueue(j, 1)
	}
	return nil
}

// findIsolated is findWork in a tagged context: jobs of the context's tag
// only, own ones first, then other workers' oldest, then injected ones.
func (w *Worker) findIsolated() *Job {
	if j := w.popPublicTagged(w.iso); j != nil {
		return j
	}
	tag := w.iso
	keep := func(j *Job) bool { return j != nil && j.tag.Load() == tag }
	j := w.stealRound(int(w.reg.live.Load())-1, 0, func(v *Worker) (*Job, int, deque.StealResult) {
		if v.variant != nil {
			return nil, 0, deque.Empty
		}
		j, res := v.deque.StealIf(keep)
		return j, 1, res
	})
	if j != nil {
		return j
	}
	return w.reg.injector.popTagged(tag)
}

// lookIsolated is look in a tagged context (find is findIsolated), and
// the help bound's wait of waitUntil, which takes no job (find nil): it
// searches until it finds a job or l is set (nil), backing off and then
// parking on l between searches, outside the sleep protocol's counts (see
// "Isolated waits" above). Without a search its parks have no timeout:
// l's setter wakes it.
func (w *Worker) lookIsolated(l *Latch, find func() *Job) *Job {
	w.publishExecuted()
	w.flushCredit()
	var park time.Duration
	if find != nil {
		park = isolatedParkMin
	}
	for round := 0; !l.Probe(); round++ {
		if find != nil {
			if j := find(); j != nil {
				return j
			}
		}
		if round < parkBackoffRounds {
			sleep.Backoff(round)
			continue
		}
		w.sleep.ParkOnLatch(w.index, &l.core, park)
		park = min(2*park, isolatedParkMax)
	}
	return nil
}
