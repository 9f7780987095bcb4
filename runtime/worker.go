package runtime

import (
	"fmt"
	"math"
	goruntime "runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/spindle-go/spindle/deque"
	"github.com/spindle-go/spindle/internal/xorshift"
	"github.com/spindle-go/spindle/sleep"
)

// Worker is one thread of a registry: a goroutine locked to its OS thread
// for its whole life (unless Config.Unlocked), owning a Chase-Lev deque of
// jobs.
//
// A slot is run by one goroutine at a time: the worker's own, or for a
// spare or guest slot the goroutine of its current run. Each field follows
// one of these access rules (its comment below says which feature it
// serves):
//
//   - Set when the slot is made, before r.live publishes it, and read by
//     anyone after: reg, index, deque and variant (the objects; their
//     ends follow their own protocol), sleep, levels, spare, spareWake,
//     surplusWake, rank, guest, guestCell, oneTaskPerRun, analysing.
//   - The running goroutine's alone, plain fields: slots, depth,
//     privHead, stealBuf, rng, siblings, readiedCaller, offerUntaken,
//     helping, the free
//     lists (scopeJobs, spawnJobs, parts, valueJobs), creditScope and
//     credit, the lineage fields (lineageWalk too), locked, the iso
//     fields, curLevel, labels and ownLabels, executedUnpublished,
//     idleTimer.
//   - Written by the running goroutine, read by others, atomic: g,
//     maxHelping, waits, calls and the counters (steals, levelSteals,
//     inversions, executed, stealsEmpty, stealsLost), which Counts and
//     the monitor read.
//   - Written by others, atomic: offer (thieves ask for a publication),
//     stale (the monitor), surplus (the sizing, size.go), spareState (the
//     monitor activates a spare, the spare retires itself).
//   - A protocol of their own: the public deque's steal end (Chase-Lev),
//     terminate (a Latch, set by Close).
//
// The layout is part of the fork path's cost: the fields a fork touches
// share a cache line, offer has a line of its own, and padding keeps
// neighbouring Workers apart (TestWorkerLayout pins all three).
type Worker struct {
	// Workers are allocated one after the other, and each writes its own
	// fields on every fork and every job (depth, the job counts): the
	// padding at both ends keeps those writes off the lines of the
	// neighbouring Worker. Without it, the counts at the end of one
	// worker shared a line with the private-stack fields at the start of
	// the next, and with a task per tree node on two workers an increment
	// of the job count was a cache miss (a fifth of the 2-worker
	// overhead in a profile of UTS T3).
	_ [falseSharingRange]byte

	reg   *Registry
	index int
	// g is currentG of the goroutine running the worker, the worker
	// table's key, and the g record whose state the monitor reads
	// (gstate.go); 0 until the worker's goroutine runs. Atomic because a
	// slot is run by one goroutine after another (spares restart, guests
	// come and go: guest.go) while other goroutines compare it in
	// lookups; on amd64 and arm64 the load is a plain move.
	g     atomic.Uintptr
	deque *deque.ChaseLev[Job]
	// variant, when set (Research.Deque), replaces deque as the public
	// deque; its offer flag then stays set, so every fork publishes (see
	// Offer) and the fast path needs no branch of its own for variants.
	variant deque.Deque[Job]
	// stealBuf, when the variant can steal in bulk, receives the half of a
	// victim's jobs this worker steals at once (see stealFrom).
	stealBuf []*Job
	rng      uint64 // xorshift state for choosing victims

	// slots are the reusable records of joins in progress, one per nesting
	// depth, and the worker's private stack of jobs. Joins nest strictly
	// on a worker (a join returns only after everything it started,
	// including work it helped with while waiting), so depth is a stack
	// pointer into slots. The jobs of slots[privHead:depth] are private:
	// pushed by this worker's forks and not yet published (a slot without
	// a job, as ForChunks keeps, is skipped); the forks below privHead
	// have published theirs. Invariant: privHead <= depth.
	slots    []FrameSlot
	depth    int
	privHead int

	// A copy of the registry's sleep state, kept beside the fork path's
	// fields for the slow fork path (which publishes and announces).
	sleep *sleep.Sleep

	terminate Latch // set by Close; the worker's main loop waits on it

	// Spare slots (spares.go): spare is set on a spare's Worker;
	// spareState is its slot's state (spareActive for the registry's own
	// workers).
	spare      bool
	spareState atomic.Int32
	spareWake  chan struct{}
	idleTimer  *time.Timer // a spare's wait for work (spares.go)

	// rank orders the registry's workers in the order they were made, -1
	// on a spare or guest slot; surplus is set while the worker is parked
	// past the running count, surplusWake wakes it (size.go).
	rank        int
	surplus     atomic.Bool
	surplusWake chan struct{}

	inbox inbox // jobs for this worker alone (broadcast.go)

	// siblings counts the tasks this worker has pushed on its public
	// deque in a row (SpawnValue) since its last other push or pop
	// of that deque; see siblings.go.
	siblings int64

	// readiedCaller is set when the job just run readied a goroutine
	// waiting outside the pool (see handOffP).
	readiedCaller bool
	// oneTaskPerRun is set when a spawned task must not run its
	// descendants in place (descendants.go): with a variant, or
	// Research.OneTaskPerRun. (In readiedCaller's padding: a field here
	// moves nothing else.)
	oneTaskPerRun bool
	// offerUntaken is set when a job this worker published came back
	// untaken, cleared when a thief takes one (offerLimit).
	offerUntaken bool

	// helping counts the jobs on this worker's stack that it took in
	// waitUntil, its main loop's included: how deep waits have nested.
	// maxHelping is the deepest it has been (Counts.MaxHelpDepth). See waitUntil.
	// waits counts the waits that run jobs (waitUntil, HelpUntil) in
	// progress on the slot, the main loop's included: a runner blocked
	// with more than its loop's wait is blocked in a job it took while
	// waiting (the monitor's noteStall).
	helping    int
	maxHelping atomic.Int64
	waits      atomic.Int32
	// looking is set while the worker runs look, the engine's search and
	// sleep, which run no task: a wait the monitor sees then (a lock of
	// the sleep protocol, a system call on its way back to a P) is never
	// a task that blocks (lookAt). In waits's padding.
	looking atomic.Bool

	// scopeJobs is the free list of spawned-task records (newScopeJob),
	// spawnJobs that of detached tasks' (newSpawnJob), parts that of
	// bulk-spawn part records (newPart).
	scopeJobs []*scopeJob
	spawnJobs []*spawnJob
	parts     []*batchPart
	// valueJobs is the free list of SpawnValue's records, of any type
	// (see spawnvalue.go).
	valueJobs []any
	// scratch is the value in Scratch's cell.
	scratch any
	// credit is how many units of creditScope's shared count this worker
	// holds (see Credits in scopecount.go).
	creditScope *Scope
	credit      int64
	// lineage is the innermost entry of the groups' tasks and stolen join
	// halves on this worker's stack, nil for none; lineageEntries holds
	// the entries, one per depth, lineageDepth of them in use (see
	// lineage.go).
	lineage        *lineageEntry
	lineageEntries []*lineageEntry
	lineageDepth   int
	lineageWalk    lineageWalk

	// analysing is set on the analysis worker (analyze.go), which runs
	// calls on every registry in place. It is read only where a call finds
	// that the current worker belongs to another registry, and in waits,
	// never on a fork path.
	analysing bool

	// locked is set when the worker goroutine locked its thread (the
	// default; see Config.Unlocked), on a guest slot while its caller's
	// call holds the thread (guest.go); guest on a guest slot.
	locked bool
	guest  bool
	// guestCell is a guest slot's cell in guests.idle.
	guestCell int
	// stale is set by the monitor on a guest whose queued jobs have not
	// moved for a round: thieves visit it even while guests are saturated
	// (guest.go, noteStaleGuest). calls counts the calls run on a guest
	// slot, so that the monitor tells one long call from many short ones.
	stale atomic.Bool
	calls atomic.Uint64

	// iso is the isolation tag of the context the worker runs in, 0
	// outside any isolated region; isoStack holds the contexts it
	// entered, innermost last; isoSerial numbers the regions it opened.
	// See isolate.go.
	iso       uint64
	isoStack  []isoContext
	isoSerial uint64

	// curLevel is the priority level of the job this worker is running
	// (0 outside any job); see priority.go.
	curLevel int
	// labels are the profiler labels the engine last set on the worker's
	// goroutine, ownLabels the worker's own (labels.go).
	labels, ownLabels unsafe.Pointer

	// levels[l-1] is this worker's deque of spawned level-l tasks
	// (priority.go).
	levels [MaxPriority]*deque.ChaseLev[Job]

	steals      atomic.Uint64
	levelSteals [MaxPriority + 1]atomic.Uint64 // steals by level
	inversions  atomic.Uint64                  // see choose
	executed    atomic.Uint64                  // see executedBatch
	// executedUnpublished counts jobs executed and not yet in executed.
	executedUnpublished uint32
	stealsEmpty         atomic.Uint64 // failed steal attempts, by reason
	stealsLost          atomic.Uint64

	// offer asks the worker's next fork to consider publishing (see
	// Offer). It sits on a line of its own: the worker reads it on every
	// fork, thieves write it, and a write must not take the worker's other
	// fields away from it.
	_     [falseSharingRange]byte
	offer atomic.Uint32
	_     [falseSharingRange]byte
}

// Locked reports whether the worker runs locked to its OS thread.
func (w *Worker) Locked() bool { return w.locked }

// Registry returns the registry the worker belongs to.
func (w *Worker) Registry() *Registry { return w.reg }

// Index returns the worker's index, below Registry().Slots(): the
// registry's first workers first, then spare, guest and grown workers'
// slots in the order they were made (spares.go).
func (w *Worker) Index() int { return w.index }

// FrameSlot is one depth of a worker's stack of join records: the record
// a join at this depth used last (of whatever type that join keeps), and
// the job in it that the worker's publication may hand to thieves, nil if
// the record has none.
type FrameSlot struct {
	Record any
	job    *Job
}

// Hold makes record, whose job is j (nil for none), the slot's record.
// A join calls it when the slot's record is not of its type.
func (s *FrameSlot) Hold(record any, j *Job) { s.Record, s.job = record, j }

// Scratch returns the worker's scratch cell: one value that code running
// as this worker keeps from one call to the next, for a buffer it would
// otherwise allocate per call (or take from a sync.Pool, whose first use
// on each P after a garbage collection takes a process-wide lock). Only
// the goroutine running as the worker touches the cell, so it needs no
// synchronisation; a guest slot's passes from one caller to the next
// with the slot. A user takes the value out while it uses it (leaving nil
// or another value) and puts one back when done, so that a nested call on
// the same worker finds no buffer in use, and type-asserts what it finds,
// which may be another user's.
func (w *Worker) Scratch() *any { return &w.scratch }

// Enter pushes a join frame and returns its slot, with the record a join
// at this depth used last time, or nil. The caller type-asserts the record
// to its own type, makes and holds a new one on mismatch (FrameSlot.Hold),
// and stores its second half in it. Its job, if any, is from then on the
// worker's newest private job. A fork ends the frame through TakeBack (or
// UnwindFork); a frame without a job, through Leave.
func (w *Worker) Enter() *FrameSlot {
	d := w.depth
	if d == len(w.slots) {
		w.growSlots()
	}
	w.depth = d + 1
	return &w.slots[d]
}

func (w *Worker) growSlots() {
	w.slots = append(w.slots, FrameSlot{})
	w.slots = w.slots[:cap(w.slots)]
}

// Leave pops a frame that Enter pushed and that holds no job (ForChunks).
func (w *Worker) Leave() {
	w.depth--
	w.privHead = min(w.privHead, w.depth)
	if debugChecks {
		w.checkPrivate()
	}
}

// Offer is the fork's step 3, after Enter and the record's stores: it
// publishes the oldest private job if a thief may want one.
//
// Lazy publication. A fork's job is first private: its slot is on the
// worker's stack, which only this goroutine touches, so pushing it costs
// no memory operation beyond the record's stores and Enter's depth. The
// worker keeps one job exposed to thieves: whenever its public Chase-Lev
// deque is empty, the next fork publishes the oldest private job, the
// largest piece of work it holds. Every job published this way is older
// than every private one, so thieves still take the oldest work first,
// and an idle worker finds work at once unless a thief took the exposed
// job since this worker's last fork. While some worker is looking for
// work (one more load of the sleep counters), every fork publishes one
// more: the oldest jobs flow to idle workers one per fork, so no worker
// idles long next to a busy one's private jobs, until a job it published
// comes back untaken: then minOffered (see offerLimit).
//
// Those conditions read shared lines (the deque's ends, the pool's sleep
// counters), so the fork does not test them: it loads one word of its
// own, offer, which is set whenever they may hold, and tests them only
// then (offerSlow). offer is set by a thief after every steal attempt on
// this worker (the deque may be empty now, or the thief is looking), by
// this worker when it pops its own public deque while it has private
// forks, and at start (offerTaken when a thief took a job); it is
// cleared only by offerSlow, when the deque holds a job and no worker is
// inactive (looking or asleep: the sleep counters count both), or holds
// minOffered while the lookers leave what it offers. So while it is
// clear, the deque holds work, and a worker that turns idle tries every
// victim before it sleeps, setting their flags, which makes their next
// forks publish. The ordering that makes this hold: offerSlow clears it before
// testing the deque again, and a thief sets it after its steal (Go's
// atomics are sequentially consistent).
//
// A task that blocks cannot publish (see pushPublic): it must not block
// on something only its own forks would release.
//
// In recursive code the exposed job sits at a shallow level while the
// recursion below it forks privately, so publications are rare (fib(n) on
// one worker republishes only when the exposed job is taken back, O(n)
// times against 2^n forks), and a fork costs no atomic read-modify-write
// or full barrier. That matters in Go: atomic stores are XCHG on amd64,
// a full barrier each (docs/design.md has what one costs).
//
// A deque variant (Research.Deque) turns this off: offer stays
// set and every fork publishes its job at once, as in Rayon.
func (w *Worker) Offer() {
	if w.offer.Load() != 0 || raceEnabled && w.perturb() {
		w.offerSlow()
	}
}

// offerSlow is Offer when offer is set.
func (w *Worker) offerSlow() {
	if w.guest && w.reg.saturated() {
		// No thief takes from a guest now (guest.go): the offer would
		// be published and taken back at every fork.
		w.offer.Store(0)
		return
	}
	if w.offerUntaken && w.offer.Load() == offerTaken && w.publicLen() == 0 {
		w.offerUntaken = false // thieves took all it offered: offer more again
	}
	if n := w.publicLen(); w.variant == nil && n > 0 && n >= w.offerLimit() {
		w.offer.Store(0)
		if w.publicLen() > 0 {
			return // a thief that empties it sets offer after
		}
	}
	w.publishOldest()
	if debugChecks {
		w.checkPrivate()
	}
}

// requestOffer sets offer (see Offer), unless it is set: a load first,
// so that thieves looking again and again do not write the line.
func (w *Worker) requestOffer() {
	if w.offer.Load() == 0 {
		w.offer.Store(offerRequested)
	}
}

// The values of offer: 0, clear; offerRequested, set by a steal attempt
// or the worker; offerTaken, set by a thief that took a job.
const (
	offerRequested = 1
	offerTaken     = 2
)

// publishOldest moves the oldest private job to the public deque (or, if
// a bounded variant deque is full, to the injector) and reports whether
// there was one.
func (w *Worker) publishOldest() bool {
	for w.privHead < w.depth && w.slots[w.privHead].job == nil {
		w.privHead++
	}
	i := w.privHead
	if i == w.depth {
		return false
	}
	j := w.slots[i].job
	j.setTag(w.privateTag(i))
	j.takeLabels()
	if w.lineage != nil || j.lineage != nil {
		j.lineage = w.lineageAt(i) // see lineage.go
	}
	w.privHead = i + 1
	wasEmpty := w.publicLen() == 0
	if !w.publicPush(j) {
		w.reg.enqueue(j, 1)
		return true
	}
	if w.guest && w.reg.saturated() {
		return true // the fork takes it back (guest.go)
	}
	w.sleep.NewInternalJobs(1, wasEmpty)
	return true
}

// publishAll publishes every private job, oldest first: a worker about to
// wait (waitUntil, waitFuture) makes them stealable, and its helping then
// takes them back from its public deque, newest first, like any of its
// jobs. In an isolated context it publishes nothing while a fork made
// before the context began is private: that job, of another tag, would
// land on top of the context's queued jobs, where the context's waits
// could no longer pop them (isolate.go, "Reachability"); a worker alone
// would then wait forever. Publication takes the oldest first, so the
// context's own private forks stay private too: they are enclosing forks
// of the waiting code, which the wait does not need.
func (w *Worker) publishAll() {
	if w.iso != 0 && w.privHead < w.isoStack[len(w.isoStack)-1].mark {
		return
	}
	for w.publishOldest() {
	}
}

// pushPublic puts j on the public deque at once and announces it to idle
// workers (one atomic load while none is sleepy) as tasks jobs: the number
// of tasks it holds, 1 but for a bulk-spawn part. The sleep protocol
// wakes a sleeper per job announced that no awake idle worker is there
// to take (Rayon's rule); a part of n tasks is n jobs to the workers that
// find it, as its thieves split it for the others while any look
// (batch.go), so a bulk spawn on a sleeping pool wakes as many sleepers
// as it has tasks, at once, instead of one per split, hop after hop.
//
// Spawned tasks (Scope.Spawn, Registry.Spawn) come here directly instead
// of going through the private stack: a spawning task often goes on to
// wait for what it spawned (a channel, a WaitGroup), and a worker blocked
// that way cannot publish anything, so a spawned task kept private could
// wait for the worker that waits for it. The publication costs little next
// to a spawn's allocation (on linux/amd64 a release store, no barrier; see
// newWorkerDeque). Jobs published this way may be newer than private
// ones; TakeBack only relies on a published join job being older than
// every private job, which publishOldest still guarantees.
//
// If a bounded variant deque is full, j goes to the injector instead,
// where every worker finds it too.
func (w *Worker) pushPublic(j *Job, tasks int) {
	j.setTag(w.iso)
	j.takeLabels()
	wasEmpty := w.publicLen() == 0
	if !w.publicPush(j) {
		w.reg.enqueue(j, tasks)
		return
	}
	w.sleep.NewInternalJobs(tasks, wasEmpty)
}

// The public deque's operations, on the variant if there is one.

func (w *Worker) publicLen() int {
	if w.variant != nil {
		return w.variant.Len()
	}
	return w.deque.Len()
}

func (w *Worker) publicPush(j *Job) bool {
	if w.variant != nil {
		return w.variant.TryPush(j)
	}
	w.siblings = 0
	w.deque.Push(j)
	return true
}

func (w *Worker) publicPop() *Job {
	if w.variant != nil {
		return w.variant.Pop()
	}
	w.siblings = 0
	j := w.deque.Pop()
	if j != nil && w.privHead < w.depth {
		w.requestOffer() // the exposed job may be gone (see Offer)
	}
	return j
}

// halfStealer is a deque that can hand a thief many jobs at once
// (deque.Bulk).
type halfStealer interface {
	StealFraction(fraction float64, dst []*Job) (int, deque.StealResult)
}

// stealFrom is thief w's steal from victim v's public deque. If v's deque
// steals in bulk, w takes half of v's jobs (at most len(w.stealBuf)) with
// one operation, as Go's and Tokio's schedulers do: it returns the oldest
// and pushes the others on its own deque, oldest first, so that it runs
// them newest first and its own thieves take the oldest.
func (w *Worker) stealFrom(v *Worker) (*Job, int, deque.StealResult) {
	if v.variant == nil {
		j, res := v.deque.Steal()
		return j, 1, res
	}
	hs, ok := v.variant.(halfStealer)
	if !ok || w.stealBuf == nil {
		j, res := v.variant.Steal()
		return j, 1, res
	}
	n, res := hs.StealFraction(0.5, w.stealBuf)
	if res != deque.Success {
		return nil, 0, res
	}
	first := w.stealBuf[0]
	if n > 1 {
		wasEmpty := w.publicLen() == 0
		for _, j := range w.stealBuf[1:n] {
			if !w.publicPush(j) {
				w.reg.enqueue(j, 1)
			}
		}
		w.sleep.NewInternalJobs(n-1, wasEmpty)
	}
	clear(w.stealBuf[:n])
	return first, n, res
}

// TakeBack is the second half of a fork, after the caller ran its own
// half: it ends the frame of j, the newest one, and reports whether the
// caller is to run j's work itself. If j is still private, or published
// and still on the public deque, TakeBack returns true. If j was stolen,
// TakeBack helps with other work until the thief sets j's latch and
// returns false.
//
// Jobs newer than j on the public deque (tasks the caller's half spawned
// for an enclosing scope) are run on the way. Nothing older than j can
// come back: everything older than a published j was published before it
// (publication takes the oldest first), and thieves take the oldest public
// job first, so if j was stolen everything older went before it.
//
// Fork paths call TryTakeBack first, which inlines, and TakeBack only if
// it fails.
func (w *Worker) TakeBack(j *Job) bool {
	d := w.depth - 1
	if debugChecks && w.slots[d].job != j {
		panic(fmt.Sprintf("runtime: worker %d: TakeBack of a job that is not its newest frame's (depth %d)", w.index, d))
	}
	if w.privHead <= d { // private (UnwindFork, or TryTakeBack failed on purpose)
		w.depth = d
		return true
	}
	got := w.runOwn(j, nil)
	if got {
		w.offerUntaken = true // published, and back untaken (see offerLimit)
	} else {
		w.waitUntil(&j.Latch, w.variant == nil)
	}
	w.depth = d
	w.privHead = d
	return got
}

// TryTakeBack is TakeBack's fast path: if j, the job of the newest frame,
// is private, it pops the frame and returns true. It makes no call, so
// that it inlines into the fork paths.
func (w *Worker) TryTakeBack(j *Job) bool {
	if raceEnabled && w.perturb() {
		return false
	}
	if d := w.depth - 1; w.privHead <= d {
		w.depth = d
		return true
	}
	return false
}

// runOwn pops this worker's published jobs, newest first: its public
// deque, then its deques of the levels above 0 (popPublished). It starts
// them through choose (startOwn, priority.go), which may run more urgent
// work first, until it pops target (it reports true without running it),
// has none left, or done (if not nil) reports true (false). A worker
// about to wait with the help bound (see waitUntil) so leaves nothing of
// its own queued; a fork's take-back has no private jobs to look at (its
// frame is the newest and was published).
func (w *Worker) runOwn(target *Job, done func() bool) bool {
	for round := 0; done == nil || !done(); {
		j := w.popPublished()
		if j == nil || j == target {
			return j != nil
		}
		round = w.startOwn(j, round)
	}
	return false
}

// popPublished pops this worker's newest published job: from its public
// deque, else from its deques of levels above 0 (highest level first). In
// an isolated region, only the newest public job, if it is the region's.
func (w *Worker) popPublished() *Job {
	if w.iso != 0 {
		return w.popPublicTagged(w.iso)
	}
	if j := w.publicPop(); j != nil {
		return j
	}
	return w.popLevels()
}

// popLevels pops this worker's newest job of the highest level above 0
// that it holds, or returns nil.
func (w *Worker) popLevels() *Job {
	for l := MaxPriority; l >= 1; l-- {
		if d := w.levels[l-1]; !d.Empty() {
			if j := d.Pop(); j != nil {
				return j
			}
		}
	}
	return nil
}

// execute runs j, a job this worker took from a deque or an injector, as
// a task of j's level.
func (w *Worker) execute(j *Job) { w.executeAt(j, j.level()) }

// executeAt runs j as a task of the given priority level (curLevel),
// with j's profiler labels (labels.go).
func (w *Worker) executeAt(j *Job, level int) {
	labels := j.labels
	if labels == nil {
		labels = w.ownLabels
	}
	if labels != w.labels {
		w.executeLabelled(j, level, labels)
		return
	}
	w.executeIn(j, level)
}

// executeIn is executeAt once j's labels are set.
func (w *Worker) executeIn(j *Job, level int) {
	if w.executedUnpublished++; w.executedUnpublished == executedBatch {
		w.publishExecuted()
	}
	if w.creditScope != nil && scopeOf(j) != w.creditScope {
		w.flushCredit() // see Credits in scopecount.go
	}
	prev := w.curLevel
	w.curLevel = level
	t := j.tag.Load()
	other := t != w.iso
	if other {
		w.enterContext(t) // a job of another region runs in it (isolate.go)
	}
	if j.lineage != nil {
		w.enterLineage(nil, j.lineage) // a published join half (lineage.go)
		j.run(w)
		w.leaveLineage()
	} else {
		j.run(w)
	}
	if other {
		w.leaveContext()
	}
	w.curLevel = prev
}

// maxHelpDepth bounds how deep a worker nests jobs it takes while waiting
// for a stolen join half (see waitUntil).
const maxHelpDepth = 64

// waitUntil runs other work (own deque, then steals, then the injector)
// until l is set; without work it goes through the sleep protocol, and
// l's setter wakes it. The caller must own l. With forJoin set, the
// caller waits for a job that a thief has started, and helping is bounded.
//
// Helping nests: a job taken while waiting runs on top of the waiting
// frame, and may wait in turn. In a pure fork-join program the nesting
// follows the recursion, but a pool that also holds unrelated work (many
// spawned tasks, each forking, as in Rayon issue #854) can stack one
// unrelated task on another without bound, and Go grows the stack up to
// its 1 GB limit before crashing. So a worker already maxHelpDepth jobs
// deep that waits for a stolen join half takes no other job: it sleeps
// until the thief sets the latch. (Its own deque holds nothing then:
// TakeBack emptied it, and only the worker pushes there.)
//
// Refusing work cannot deadlock such a wait: the thief runs the job (it
// was taken from a deque, so none of its descendants ran before it), and
// a chain of waits for stolen jobs ends at a worker that runs, since a
// job started before the one it waits for cannot be among its
// descendants. Other waits (scopes, futures, calls into another pool)
// may wait for jobs that nobody has started and must keep helping.
//
// An unbounded wait first publishes the worker's private jobs (publishAll);
// a bounded one has none (its fork's job was published, so every older one
// was).
func (w *Worker) waitUntil(l *Latch, forJoin bool) {
	w.waits.Add(1) // for the monitor (noteStall)
	defer w.waits.Add(-1)
	if !forJoin && w.privHead < w.depth {
		w.publishAll()
	}
	for !l.Probe() {
		if forJoin && w.helping >= maxHelpDepth {
			w.lookIsolated(l, nil) // takes no job: it parks until l is set
			return
		}
		j := w.takeLocal()
		if j == nil {
			if j = w.look(l); j == nil {
				return // l is set, or the main loop's worker is surplus
			}
		}
		w.runHelping(j)
	}
}

// runHelping runs j, a job taken while waiting, nested on the waiting
// frame, then lets a caller the job readied have the P (handOffP).
func (w *Worker) runHelping(j *Job) {
	w.runNested(j)
	w.handOffP()
}

// runNested runs j on top of the frame below it, counted in the help depth
// (helping, which bounds how deep waits and choose let jobs nest), and
// records the depth if it is the deepest yet (maxHelping).
func (w *Worker) runNested(j *Job) {
	w.helping++
	if int64(w.helping) > w.maxHelping.Load() {
		w.maxHelping.Store(int64(w.helping))
	}
	w.execute(j)
	w.helping--
}

// takeLocal pops this worker's newest own job while no task above level 0
// is queued, without announcing a search: a worker with work of its own is
// active in the sleep protocol's sense. Announcing (StartLooking, then
// WorkFound) costs two atomic read-modify-writes on the pool's shared
// sleep counters; a task per tree node runs almost every task from here,
// and on two workers those counters' cache line moved between the threads
// twice per task (Rayon checks local work before going idle for the same
// reason). While urgent work is queued it returns nil, and the full search
// (findWork) looks at the levels above 0 first.
func (w *Worker) takeLocal() *Job {
	if w.iso != 0 {
		return w.popPublicTagged(w.iso)
	}
	if w.reg.prio.anyQueued() {
		return nil
	}
	if j := w.publicPop(); j != nil {
		if j.level() == 0 {
			return j // what choose returns, nothing above level 0 being queued
		}
		return w.choose(j, false, 0)
	}
	return nil
}

// executedBatch is how many executed jobs a worker counts privately before
// adding them to its shared count (WorkerStats.Executed): an atomic add per job
// was a measurable part of a spawned task's cost.
const executedBatch = 64

// publishExecuted adds the jobs counted privately to the shared count.
func (w *Worker) publishExecuted() {
	w.executed.Add(uint64(w.executedUnpublished))
	w.executedUnpublished = 0
}

// look searches for work (findWork) as a worker out of local work, going
// through the sleep protocol between failed searches, until it finds a job
// (returned, claimed and not started) or l is set (nil). In the main
// loop's wait it also returns nil once the worker is surplus (size.go),
// and reads GOMAXPROCS before the worker sleeps.
func (w *Worker) look(l *Latch) *Job {
	if w.iso != 0 {
		return w.lookIsolated(l, w.findIsolated)
	}
	w.looking.Store(true)
	defer w.looking.Store(false)
	w.publishExecuted()
	w.flushCredit()
	s := w.sleep
	idle := s.StartLooking(w.index)
	defer s.WorkFound(w.reg.workQueued)
	for !l.Probe() {
		sleepy := idle.Sleepy()
		if j := w.findWork(sleepy); j != nil {
			w.reg.payKick() // the monitor watches the job's thread
			return j
		}
		if w.helping == 0 { // the main loop's wait (size.go)
			if sleepy {
				w.reg.CheckProcs()
			}
			if w.isSurplus() {
				return nil
			}
		}
		s.NoWorkFound(&idle, &l.core, w.stayAwake)
	}
	return nil
}

// stayAwake is the last check of a worker about to sleep in look: work
// injected from outside, a job in its inbox (broadcast.go), or the main
// loop's worker turned surplus (it then parks instead: size.go, whose
// resize wakes a surplus sleeper).
func (w *Worker) stayAwake() bool {
	return w.reg.hasInjected() || w.inbox.pending() || w.helping == 0 && w.isSurplus()
}

// handOffP lets a goroutine that the job just run readied (the caller of
// Registry.Run from outside the pool, waiting for its result) run at once
// when this worker has nothing else to do. The Go scheduler queued that
// goroutine on this worker's P, which the worker keeps while it spins for
// work (tens of microseconds) and, when every P is taken by a worker, that
// is where the goroutine would wait. Gosched hands the P and its queue to
// another thread; on a locked thread it costs this worker a thread
// hand-off, which it can afford as it has no work.
func (w *Worker) handOffP() {
	if w.readiedCaller { // after every job a wait runs: the check inlines
		w.handOffPNow()
	}
}

func (w *Worker) handOffPNow() {
	w.readiedCaller = false
	if w.privHead == w.depth && w.publicLen() == 0 {
		goruntime.Gosched()
	}
}

// readied notes that the job w runs readied a goroutine waiting outside
// the pool, which the Go scheduler queues on w's P (see handOffP); w nil,
// a goroutine that is no worker, notes nothing.
func (w *Worker) readied() {
	if w != nil {
		w.readiedCaller = true
	}
}

// findWork looks for a job in the order that keeps work local and old work
// moving: queued tasks of levels above 0, most urgent first (priority.go),
// then own jobs (newest first), a random victim's deque (oldest first),
// then the injector. It returns the job to start (see choose), or nil if
// it found none or the strict priority policy refused the one it found
// (which went back on this worker's deques; the next search starts at the
// top level again). thorough is set for the last search before the worker
// sleeps, which must try every victim (see priority.go on sampling).
func (w *Worker) findWork(thorough bool) *Job {
	if w.reg.prio.anyQueued() {
		if j := w.findAbove(0, thorough); j != nil {
			return w.choose(j, thorough, 0)
		}
	}
	j := w.publicPop()
	if j == nil {
		if j = w.inbox.take(); j != nil { // broadcast.go
			return j
		}
		j = w.steal(thorough)
	}
	if j == nil {
		j = w.reg.injector.pop()
	}
	if j == nil {
		return nil
	}
	return w.choose(j, thorough, 0)
}

// steal tries other workers' public deques, starting at a random one:
// every other worker when thorough (the last search before sleeping),
// else stealSample of them, and starts over while some steal lost a race
// (the victim may still hold work). Sampling bounds what a round of
// looking costs at many workers; the sleepy round's thorough search is
// what no job may escape.
func (w *Worker) steal(thorough bool) *Job {
	tries := int(w.reg.live.Load()) - 1
	if !thorough {
		tries = min(tries, stealSample)
	}
	return w.stealRound(tries, 0, func(v *Worker) (*Job, int, deque.StealResult) {
		j, got, res := w.stealFrom(v)
		if res == deque.Retry {
			w.stealsLost.Add(1)
		} else if res != deque.Success {
			w.stealsEmpty.Add(1)
		}
		return j, got, res
	})
}

// stealRound is the victim loop of every steal: it calls try on tries
// workers other than w, in index order from a random one, until one steal
// succeeds, and goes round again while some steal lost a race (its victim
// may still hold work). try steals from one victim and reports how many
// jobs it took; stealRound counts them as steals of the given level.
// A random start spreads thieves over victims; trying each victim once
// per round bounds a round's cost.
func (w *Worker) stealRound(tries, level int, try func(v *Worker) (*Job, int, deque.StealResult)) *Job {
	workers := w.reg.liveWorkers()
	n := len(workers)
	if tries <= 0 || n == 1 {
		return nil
	}
	skipGuests := w.reg.saturated() || w.isSurplus() // guest.go, size.go
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
			if skipGuests && workers[v].guest && !workers[v].stale.Load() {
				continue
			}
			j, got, res := try(workers[v])
			if res == deque.Success {
				workers[v].offer.Store(offerTaken) // see Offer
			} else {
				workers[v].requestOffer()
			}
			switch res {
			case deque.Success:
				w.steals.Add(uint64(got))
				w.levelSteals[level].Add(uint64(got))
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

// random is the worker's next xorshift64 value, for choosing victims.
func (w *Worker) random() uint64 { return xorshift.Next(&w.rng) }

// mainLoop is the worker's life after start-up: help until terminated.
func (w *Worker) mainLoop() {
	if w.spare {
		w.spareLoop()
		return
	}
	for {
		w.waitUntil(&w.terminate, false) // returns early when surplus (look)
		if w.terminate.Probe() {
			return
		}
		w.parkSurplus()
	}
}

// stealSample is how many victims a search that is not thorough tries
// (steal): enough that at a handful of workers every search tries them
// all.
const stealSample = 8

// offerLimit is how many jobs a fork keeps published (see Offer): one
// while no worker looks for work; else any number, but minOffered once a
// job this worker published came back untaken (offerUntaken), until
// thieves take all it offered (why: docs/performance/many-cores.md).
func (w *Worker) offerLimit() int {
	switch {
	case !w.sleep.Looking():
		return 1
	case w.offerUntaken:
		return minOffered
	}
	return math.MaxInt
}

// minOffered is how many jobs a fork keeps published while workers look
// but do not take what it offers (offerLimit): the oldest, and one for a
// second thief while the first carries its job off.
const minOffered = 2
