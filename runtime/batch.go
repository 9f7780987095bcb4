package runtime

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/spindle-go/spindle/sleep"
)

// Bulk spawning.
//
// A bulk spawn queues n tasks, numbered 0..n-1, as a single job: a part
// covering the whole range. One publication announces all of them, however
// many there are. Whoever runs a part runs its tasks in order, and before
// each one it may split what is left (splitBefore). While every worker is
// busy, it offers the upper half of the rest as a new part if its deque
// for the part's level exposes no job: the same rule as lazy publication
// (Worker.Offer), one exposed job at a time. A thief therefore takes about
// half of the tasks left at a time, the steal-half policy of Go's and
// Tokio's schedulers, without a deque that can hand out several items at
// once: the victim splits, like Rayon's adaptive splitting. A runner
// nobody steals from publishes about log2(n) halves, one after the other,
// and runs them itself in order. While some worker looks for work, the
// runner queues the whole rest before the task, in halves, so that a task
// that does not return (one that waits for its siblings) strands nothing
// next to idle workers.
//
// Why one half is always exposed: docs/design.md, "Measurements".
//
// Exactly once: a part's range belongs to the one worker running it; a
// split hands [mid, hi) to a new part and keeps [lo, mid), so the ranges
// of all parts partition [0, n) at every moment.
//
// Priorities: a part carries its batch's level. A level-0 part (forkjoin.For
// is one) runs as above; before each task but the first, while some level
// above 0 has tasks queued, the runner first runs the more urgent work it
// finds (betweenTasks), so a long loop does not hold a worker while
// urgent tasks wait. The tasks of a bulk spawn
// above level 0 are counted as queued one by one until each starts
// (priority.go), and they must stay claimable by every worker while
// counted, so such a part queues the rest of itself before each task
// (runCounted): every task start goes through choose.

// batcher is what a bulk spawn runs: the shared state of all its parts.
type batcher interface {
	// task runs task i. It may panic: the part's runner catches the panic
	// and reports it to taskPanicked.
	task(i int)
	// taskPanicked records pe, the panic of task i.
	taskPanicked(i int, pe *PanicError)
	// addPart records one more part, before worker w queues it.
	addPart(w *Worker)
	// donePart records that a part has ended on worker w, with the panic
	// that ended it, if any. The batcher's owner may reuse it once the last part is
	// done, so a part touches nothing of it afterwards.
	donePart(w *Worker, pe *PanicError)
	// forPart returns the batcher that np, a part split off one of this
	// batcher's parts, is to use.
	forPart(np *batchPart) batcher
}

// batchPart is the job of one part: tasks [lo, hi) of b.
type batchPart struct {
	job    Job
	b      batcher
	lo, hi int
	// scope is the batcher of a bulk spawn on a scope, when b points to
	// it. That batcher is only the scope and the function, so every part
	// carries a copy (forPart copies it into a new part) instead of
	// sharing one record that nobody could tell when to free: a bulk
	// spawn then allocates nothing but the caller's closure.
	scope scopeBatch
}

// newPart returns a part record for tasks [lo, hi) at level, from w's
// free list (records.go), or a new one (also when w is nil: the caller is
// no worker). The caller sets its batcher.
func (w *Worker) newPart(lo, hi, level int) *batchPart {
	var p *batchPart
	if w != nil {
		p = takeRecord(&w.parts)
	}
	if p == nil {
		p = new(batchPart)
		p.job.Init(p, nil)
	}
	p.lo, p.hi = lo, hi
	p.job.setLevel(level)
	return p
}

// Run runs a queued part, then tells its batcher, then frees the record.
// The record is this worker's alone once it has claimed the part, so it
// may be touched after donePart (which may end the batch, after which
// the batcher's owner may reuse the batcher: nothing here touches it
// then). A scope batch's batcher is in the record itself, which is why
// the record is freed last.
func (p *batchPart) Run(w *Worker) {
	pe := w.reg.Catch(func() { p.run(w) })
	b := p.b
	p.b = nil
	b.donePart(w, pe)
	p.scope = scopeBatch{}
	freeRecord(&w.parts, p, false, nil)
}

// run runs the part's tasks on w, the current worker, splitting as
// described above. The first task was started with the part (choose).
func (p *batchPart) run(w *Worker) {
	b, lo, hi, level := p.b, p.lo, p.hi, p.job.level()
	if level > 0 && w.reg.prio.policy != PriorityOblivious {
		p.runCounted(w)
		return
	}
	for i := lo; i < hi; {
		i, hi = p.runTasks(w, b, lo, i, hi, level)
	}
}

// runTasks runs tasks [i, hi) of the part [lo, hi) on w, splitting as
// described above, until they are done (it returns hi, hi) or one panics:
// it then records that panic and returns the index of the next task and
// the part's end, which a split may have lowered, so that run goes on
// with the rest. One deferred recover guards the whole run of tasks, not
// a Catch per task (docs/design.md, "Measurements").
// running tells a task's panic from one of the engine's own, which is not
// recovered here (batchPart.Run reports it).
func (p *batchPart) runTasks(w *Worker, b batcher, lo, i, hi, level int) (next, end int) {
	running := false
	defer func() {
		if !running {
			return
		}
		if v := recover(); v != nil {
			b.taskPanicked(i, w.reg.AsPanicError(v))
			next, end = i+1, hi
		}
	}()
	for ; i < hi; i++ {
		if i > lo && w.reg.prio.anyQueued() && w.iso == 0 && !w.betweenTasks(level) {
			w.queuePart(b, i, hi, level)
			return hi, hi
		}
		if hi-i > 1 {
			if all := w.othersLooking(); all || w.exposesNothing(level) {
				hi = w.splitBefore(b, i, hi, level, all)
			}
		}
		running = true
		b.task(i)
		running = false
	}
	return hi, hi
}

// splitBefore queues tasks of the part's rest [i+1, hi) before its
// runner starts task i, and returns the part's new end. The runner calls
// it when the rest holds more than one task and all is set (the sleep
// counters show some worker looking for work: idle, sleepy or asleep) or
// its deque for the part's level exposes nothing; the test inlines into
// the runner's loop, so a task that needs no split costs no call.
//
// With all set it queues the whole rest: the upper half of it, then the
// upper half of what is left, and so on, about log2(hi-i) parts, largest
// first (thieves take the oldest), leaving only task i to the runner.
// Task i may not return for a long time (it may wait for its siblings, or
// block), and the runner splits nothing while it runs it: every task
// after it must already be where idle workers can take it, and each push
// announces its tasks to the sleepers (pushPublic), so sleepers are woken
// while they are queued. Each thief that takes such a part splits it the
// same way when it starts it while others still look.
//
// Otherwise every worker is busy and it queues only the upper half of the
// rest, the one exposed job of lazy publication (Worker.Offer); with a job
// already exposed the runner does not call it at all, and a bulk spawn
// costs its one publication. A worker that turns idle later finds what is
// exposed; tasks the runner kept wait for its next task boundary.
func (w *Worker) splitBefore(b batcher, i, hi, level int, all bool) int {
	for hi-i > 1 {
		// Keep i and the lower half of the rest; offer the upper half
		// (under -race, a random split, so that tests meet every shape).
		mid := i + 1 + (hi-i-1)/2
		if raceEnabled {
			mid = i + 1 + int(w.random()%uint64(hi-i-1))
		}
		w.queuePart(b, mid, hi, level)
		hi = mid
		if !all {
			break
		}
	}
	return hi
}

// runCounted runs the first task of a part whose tasks are counted as
// queued (a level above 0), after queuing the rest of the part: in two
// halves when a worker is looking (the upper half first, so that thieves,
// who take the oldest job, get it), else as one part that this worker
// will most likely pop next. Counted tasks must stay where every worker
// can claim them: a worker that waits for work above a level (the strict
// policy) could otherwise wait for tasks held by a runner that itself
// waits, inside one of them, for that worker. It costs a push per task,
// which only bulk spawns with a priority pay.
func (p *batchPart) runCounted(w *Worker) {
	b, lo, hi, level := p.b, p.lo, p.hi, p.job.level()
	if sb, ok := b.(*scopeBatch); ok && sb.skipping() {
		// The scope drops its tasks that have not started, for good
		// (scopeskip.go): drop the part's rest at once, rather than queue
		// it again before each task, each to be claimed only to be dropped.
		// Task lo was started (choose uncounted it); it is dropped too.
		w.reg.prio.uncount(level, hi-lo-1)
		return
	}
	if hi-lo > 2 && w.othersLooking() {
		mid := lo + 1 + (hi-lo-1)/2
		w.queuePart(b, mid, hi, level)
		hi = mid
	}
	if hi-lo > 1 {
		w.queuePart(b, lo+1, hi, level)
	}
	if pe := w.reg.Catch(func() { b.task(lo) }); pe != nil {
		b.taskPanicked(lo, pe)
	}
}

// queuePart queues tasks [lo, hi) of b, already counted, as a new part
// of the given level on this worker.
func (w *Worker) queuePart(b batcher, lo, hi, level int) {
	b.addPart(w)
	np := w.newPart(lo, hi, level)
	np.b = b.forPart(np)
	if w.guest && level == 0 && w.reg.saturated() {
		w.pushUnannounced(&np.job, hi-lo) // the runner's wait pops it
		return
	}
	w.pushLevel(&np.job, hi-lo)
}

// betweenTasks is called by the runner of a part of the given level (0,
// or any under the oblivious policy) before each task but the first,
// while some level above 0 has tasks queued. It first runs the work queued
// above the level of what this worker is running (the part's, or that of
// the task that started the loop in place: curLevel), as choose would for
// a claimed job, then takes the next task off the queued counts and
// returns true. It returns false, and the runner puts the rest of the part
// back, when the strict policy must wait for urgent work that is counted
// but not yet visible.
func (w *Worker) betweenTasks(level int) bool {
	p := &w.reg.prio
	above := max(level, w.curLevel)
	for round := 0; p.queuedAbove(above); {
		if p.policy == PriorityOblivious || w.helping >= maxHelpDepth {
			w.inversions.Add(1)
			break
		}
		h := w.findAbove(above, p.policy == PriorityStrict)
		if h == nil {
			if p.policy == PriorityStrict {
				return false
			}
			w.inversions.Add(1)
			break
		}
		if c := w.choose(h, false, 0); c != nil {
			w.runNested(c)
			round = 0
		} else {
			sleep.Backoff(round)
			round++
		}
	}
	p.uncount(level, 1)
	return true
}

// exposesNothing reports whether this worker's deque for level holds no
// published job.
func (w *Worker) exposesNothing(level int) bool {
	if level == 0 || w.reg.prio.policy == PriorityOblivious {
		return w.publicLen() == 0
	}
	return w.levels[level-1].Empty()
}

// chunkBatch is a parallel loop (ForChunks): task i covers the i-th chunk
// of grain indices of [lo, hi). The calling worker runs the first part in
// place and then waits for the rest. Its records are reused across calls,
// one per join depth, like join frames.
type chunkBatch struct {
	lo, hi, grain int
	body          func(lo, hi int)
	first         batchPart // the part the caller runs in place; never queued
	pending       atomic.Int64
	panic         atomic.Pointer[chunkPanic] // the lowest chunk's panic
	done          Latch                      // unset whenever the record is idle
}

func (b *chunkBatch) task(i int) {
	l := uint(b.lo) + uint(i)*uint(b.grain)
	h := uint(b.hi)
	if h-l > uint(b.grain) {
		h = l + uint(b.grain)
	}
	b.body(int(l), int(h))
}

// chunkPanic is a panic of chunk i.
type chunkPanic struct {
	i  int
	pe *PanicError
}

// taskPanicked keeps pe if chunk i is the lowest that panicked so far, so
// that the panic ForChunks re-raises does not depend on timing: the same
// one a serial loop stopping at the first panic would raise.
func (b *chunkBatch) taskPanicked(i int, pe *PanicError) {
	np := &chunkPanic{i, pe}
	for {
		old := b.panic.Load()
		if old != nil && old.i <= i {
			return
		}
		if b.panic.CompareAndSwap(old, np) {
			return
		}
	}
}

func (b *chunkBatch) addPart(*Worker) { b.pending.Add(1) }

func (b *chunkBatch) forPart(*batchPart) batcher { return b }

func (b *chunkBatch) donePart(_ *Worker, pe *PanicError) {
	if pe != nil { // not from a chunk (the part's runner catches those)
		b.taskPanicked(math.MaxInt, pe)
	}
	if b.pending.Add(-1) == 0 {
		b.done.Set()
	}
}

// ForChunks calls body on the chunks of grain (>= 1) indices that
// partition [lo, hi), lo < hi, in order within each part, parts possibly
// in parallel on w's registry: a bulk spawn of the chunks. Every chunk
// runs, even if others panic; ForChunks returns when all have finished and
// then re-raises the panic of the lowest-numbered chunk that panicked, as
// a *PanicError. The number of chunks, ceil((hi-lo)/grain) computed
// without overflow, must fit in an int.
//
// Waiting. When the caller's own part is done and others hold parts, it
// first runs what is on its public deque and its level deques until the
// batch is done or they are empty (runOwn: the parts it split off that
// nobody took, and anything pushed above or below them), then waits for the parts others took as it waits
// for a stolen join half: the help bound of waitUntil applies, and is safe
// for the same reason. Every part not yet finished is then either running
// on some worker or queued on the public deque of a worker that is not in
// a bounded wait (a worker empties those deques before such a wait, and
// only it pushes there), which runs it or lets it be stolen. Its private
// stack is left alone: at this point it holds only forks of enclosing
// frames (the chunks' own forks are all taken back), which only this
// worker waits for, after this wait. The exception is a bounded deque
// variant (Research.Deque): a part that does not fit goes to the injector,
// which bounded waits do not serve, so with a variant the caller helps
// without the bound.
func (w *Worker) ForChunks(lo, hi, grain int, body func(lo, hi int)) {
	if grain < 1 || lo >= hi {
		panic(fmt.Sprintf("runtime.Worker.ForChunks: want lo < hi and grain >= 1, got [%d, %d) grain %d", lo, hi, grain))
	}
	chunks := int((uint(hi)-uint(lo)-1)/uint(grain) + 1)
	slot := w.Enter()
	defer w.Leave()
	b, ok := slot.Record.(*chunkBatch)
	if !ok {
		b = &chunkBatch{}
		b.done.owner = w
		b.first.job.Init(&b.first, nil)
		slot.Hold(b, nil) // no job of its own to publish
	}
	b.lo, b.hi, b.grain, b.body = lo, hi, grain, body
	b.pending.Store(1)
	b.first.b, b.first.lo, b.first.hi = b, 0, chunks
	b.donePart(w, w.reg.Catch(func() { b.first.run(w) }))
	if !b.done.Probe() {
		w.runOwn(nil, b.done.Probe)
		w.waitUntil(&b.done, w.variant == nil)
	}
	b.done.Reset()
	b.body, b.first.b = nil, nil
	if cp := b.panic.Swap(nil); cp != nil {
		w.reg.Raise(cp.pe)
	}
}

// scopeBatch is a bulk spawn on a scope (Scope.SpawnMany): n tasks of the
// scope, each run even if others panic.
type scopeBatch struct {
	s  *Scope
	fn func(s *Scope, i int)
}

func (b *scopeBatch) task(i int) {
	if !b.skipping() {
		b.fn(b.s, i)
	}
}

// skipping reports whether the scope drops its tasks that have not
// started (scopeskip.go); once it does, it always will.
func (b *scopeBatch) skipping() bool { return b.s.skip != nil && b.s.skip.Skip() }

func (b *scopeBatch) taskPanicked(_ int, pe *PanicError) { b.s.panic.CompareAndSwap(nil, pe) }

func (b *scopeBatch) addPart(w *Worker)                  { b.s.add("pool.Scope.SpawnMany", w) }
func (b *scopeBatch) donePart(w *Worker, pe *PanicError) { b.s.finishOn(w, pe) }

// forPart copies the batcher into np (see batchPart.scope).
func (b *scopeBatch) forPart(np *batchPart) batcher {
	np.scope = *b
	return &np.scope
}
