package sleep

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Tunables of the idle loop. One round is one failed search for work
// followed by one call of NoWorkFound.
//
// Together they set how long an idle worker stays awake before it sleeps
// (the idle window). Work posted within the window is picked up at the
// worker's next search, without a system call; after it, the worker must
// be woken. Each trip to sleep costs CPU for the window plus the system
// calls and thread hand-offs of sleeping and waking. The window is sized
// like a ski rental: spinning for at most about twice what a sleep and
// wake-up cost bounds the waste either way. A longer window picks up more
// late work without a wake-up but costs CPU in every idle episode.
// sleep/NOTES.md has the measurements: the window,
// the pick-up latency and the CPU per episode of these values and of
// shorter and longer ones.
const (
	// spinRounds rounds only pause the CPU (pauseIterations PAUSE
	// instructions each): a steal attempt and a short pause cost well under
	// a microsecond, so new work that appears within a few microseconds is
	// found without entering the kernel.
	spinRounds      = 16
	pauseIterations = 64
	// Rounds after spinRounds and before roundsUntilSleepy yield the OS
	// thread (sched_yield), letting other threads of the machine run while
	// this worker keeps its place in the Go scheduler.
	roundsUntilSleepy = 48
	// After announcing itself sleepy a worker searches once more, then
	// sleeps.
	roundsUntilSleeping = roundsUntilSleepy + 1
)

// MaxWorkers is the largest number of workers one Sleep can track.
const MaxWorkers = maxThreads

// Sleep coordinates the idle workers of one pool. Its zero value is not
// usable; call New.
type Sleep struct {
	counters atomicCounters
	_        [cacheLine - 8]byte // posters load counters; keep it alone on its line
	workers  []workerSleep

	// observer, if set (before the workers start), hears of every worker
	// that blocks and every blocked worker woken. See Observe.
	observer func(worker int, asleep bool)
	// sleepyFence, if set (before the workers start), runs after a worker
	// announces itself sleepy. See FenceWhenSleepy.
	sleepyFence func()
	// aside holds the reasons the idle workers step aside (see
	// StepAside), one bit each.
	aside atomic.Uint32
}

// ParkOnChannel makes worker i's parks always give the P back at once,
// whatever StepAside says: for a slot run by ordinary goroutines that come
// and go (runtime's guests, and every slot of a pool in a synctest
// bubble), whose blocked futex call would hold the P of the program's own
// goroutines until sysmon retakes it. Call it before worker i first parks.
func (s *Sleep) ParkOnChannel(i int) { s.workers[i].parker.always = true }

// Aside is a reason for a pool's idle workers to step aside (StepAside).
type Aside uint32

const (
	// TasksBlock: tasks that block come and go (runtime's spares run).
	// The spares and the tasks they run are ordinary goroutines, whose
	// timers and wake-ups a P held by an idle worker would delay.
	TasksBlock Aside = 1 << iota
	// Crowded: more workers are awake than GOMAXPROCS (it fell while they
	// computed). A worker that has work waits for a P an idle one holds.
	Crowded
	// Shared: goroutines that are no worker compute on the pool's Ps
	// (runtime's guests fill them). A caller the Go scheduler queued
	// behind a worker waits while the worker holds its P, no P being idle
	// for the scheduler to take it from.
	Shared
)

// StepAside turns reason on or off. While any reason holds, parks give
// the P back at once, waiting on a channel rather than in the futex call,
// which keeps the P until sysmon retakes it (20 us to 10 ms later). While
// Crowded or Shared holds, a worker out of work also skips, after its
// spin, the rounds that yield its thread with the P held (on a locked
// thread a yield either keeps the P or hands it to another thread and
// back): a goroutine that computes waits for that very P. TasksBlock alone
// keeps those rounds: there the Ps are not the pool's to give, and a
// worker that stays awake a little longer takes the next task of a burst
// without a wake-up (a burst whose tasks meet, waking worker by worker,
// reached its last worker in more hops, and started spares, when idle
// workers went to sleep sooner). With no reason an idle worker keeps the
// P through the whole idle window and parks in the futex call, for the
// quicker wake-up (sleep/NOTES.md, "Go specifics"). It applies from the
// workers' next round and next park; the portable parker always gives the
// P back. This is the one place that decides whether an idle worker holds
// its P: callers only say why.
func (s *Sleep) StepAside(reason Aside, on bool) {
	switch has := s.aside.Load()&uint32(reason) != 0; {
	case on && !has:
		s.aside.Or(uint32(reason))
	case !on && has:
		s.aside.And(^uint32(reason))
	}
}

// SteppingAside reports whether some reason to step aside holds.
func (s *Sleep) SteppingAside() bool { return s.aside.Load() != 0 }

// skipsYields reports whether an idle worker skips the yield rounds (see
// StepAside).
func (s *Sleep) skipsYields() bool { return s.aside.Load()&uint32(Crowded|Shared) != 0 }

// FenceWhenSleepy makes a worker call f right after it announces itself
// sleepy (the JEC update) and before its last search for work. The
// protocol assumes that a poster's publication of a job and its later
// load of the counters are ordered store-then-load (package doc, "Why no
// wake-up is lost"). A deque whose push is only a release store breaks
// that; f must then restore the handshake from the sleeper's side
// (deque.SyncWithOwners). Call it before the workers start.
func (s *Sleep) FenceWhenSleepy(f func()) { s.sleepyFence = f }

// Observe makes f hear of every worker that goes to sleep (asleep true,
// called by that worker just before it blocks) and every sleeping worker
// that is woken (asleep false, called by the waker). Call it before the
// workers start. f runs on the pool's hot idle paths: keep it short, and
// it must not block. Without an observer these paths test one nil field.
func (s *Sleep) Observe(f func(worker int, asleep bool)) { s.observer = f }

// Parked reports whether worker i is blocked in one of this package's
// parks (Sleep's or ParkOnLatch), or about to enter or just out of one: a
// worker whose thread is off its CPU while Parked is false is blocked in
// something else (runtime's blocked-worker monitor asks).
func (s *Sleep) Parked(i int) bool { return s.workers[i].parked.Load() }

// ParkMarked runs wait, a park of worker i's own that is none of this
// package's (a timed sleep between looks, a channel receive), with the
// worker marked parked meanwhile, so that Parked reports it too. Every
// park on a worker's goroutine is one of this package's or goes through
// ParkMarked (runtime's TestEveryParkIsMarked checks its package).
func (s *Sleep) ParkMarked(i int, wait func()) {
	ws := &s.workers[i]
	ws.parked.Store(true)
	wait()
	ws.parked.Store(false)
}

// WorkerStats returns the counts of worker i (0 <= i < the n given to New).
func (s *Sleep) WorkerStats(i int) Stats {
	ws := &s.workers[i]
	return Stats{Sleeps: ws.sleeps.Load(), Wakeups: ws.wakeups.Load()}
}

const cacheLine = 64

// workerSleep is one worker's place to sleep. blocked is true exactly while
// the worker has registered itself as sleeping in the counters and nobody
// has woken it; it is guarded by mu, and whoever turns it from true to false
// also removes the worker from the sleeping count and unparks it.
//
// onLatch is true exactly while the worker is parked in ParkOnLatch and
// nobody has woken it (it is then not in the counters, and never blocked);
// it is guarded by mu, and whoever turns it from true to false unparks the
// worker, unless the worker itself turns it off after its park timed out.
type workerSleep struct {
	mu      sync.Mutex
	blocked bool
	onLatch bool
	parker  parker
	sleeps  atomic.Uint64 // times this worker blocked
	wakeups atomic.Uint64 // times another woke it
	// parked is set while the worker is in a park of this package (or
	// about to enter or just out of one): Parked's answer.
	parked atomic.Bool
	_      [cacheLine]byte // keep neighbours' locks off this line
}

// New returns the sleep state of a pool of n workers (1 <= n <= MaxWorkers).
func New(n int) *Sleep {
	if n < 1 || n > MaxWorkers {
		panic(fmt.Sprintf("sleep.New: %d workers, want 1..%d", n, MaxWorkers))
	}
	s := &Sleep{workers: make([]workerSleep, n)}
	for i := range s.workers {
		s.workers[i].parker.init(&s.aside)
	}
	return s
}

// Idle is a worker's progress through the idle loop, from StartLooking
// until it finds work. It lives in the worker's own frame.
type Idle struct {
	worker int
	rounds uint32
	jec    uint32 // the JEC when the worker announced itself sleepy
}

// Sleepy reports whether the worker has announced itself sleepy: its next
// search is its last before it blocks, and must look everywhere work may
// have been posted (a search that samples some of the places may skip
// one, which is fine only while the worker will search again anyway).
func (st *Idle) Sleepy() bool { return st.rounds > roundsUntilSleepy }

// StartLooking records that worker is out of local work and starts looking.
// Every StartLooking is followed by exactly one WorkFound, when the worker
// stops looking (work found or latch set).
func (s *Sleep) StartLooking(worker int) Idle {
	s.counters.addInactive()
	return Idle{worker: worker}
}

// WorkFound records that a looking worker found work (or its latch was set)
// and is active again. If workers are sleeping and queued reports work
// queued where they could take it, it wakes up to two of them: where one
// job was found there are likely more (the chain wake-up that spreads a
// burst of work over the pool without the poster waking everyone). queued
// is called after the worker has left the idle count; the package doc
// explains why that order loses no wake-up.
//
// With nothing queued it wakes nobody: a sleeper would find nothing to do,
// and the wake-up (a FUTEX_WAKE system call) would come before the
// caller's own job, delaying the start of a task spawned on a sleeping
// pool (sleep/NOTES.md has the start times with and without this
// rule).
func (s *Sleep) WorkFound(queued func() bool) {
	old := s.counters.subInactive()
	if n := min(old.sleeping(), 2); n > 0 && queued() {
		s.wakeAny(n)
	}
}

// NoWorkFound is called by a looking worker after each failed search. It
// pauses, yields or, after enough rounds, puts the worker to sleep until
// work is posted or latch is set. stayAwake reports whether the worker
// must not block: work injected from outside the pool is waiting, or its
// owner wants it out of the protocol (runtime's surplus workers). It is
// the last check before blocking, made while the worker counts as
// sleeping and holds its sleep lock, so an owner that changes its answer
// and then wakes the worker (WakeSleeping) loses no wake-up.
func (s *Sleep) NoWorkFound(st *Idle, latch *Latch, stayAwake func() bool) {
	switch {
	case st.rounds < spinRounds:
		pause(pauseIterations)
		st.rounds++
	case st.rounds < roundsUntilSleepy:
		if s.skipsYields() {
			st.rounds = roundsUntilSleepy // see StepAside
			return
		}
		osYield()
		st.rounds++
	case st.rounds == roundsUntilSleepy:
		// Give up the P once before going to sleep. A worker is a
		// goroutine that keeps its P while it spins, yields and even while
		// it sleeps in the futex syscall (until sysmon retakes the P,
		// 20 us to 10 ms later). Any goroutine readied on this P meanwhile
		// (the caller whose result this worker just delivered, a timer)
		// would wait that long. Gosched hands the P and its run queue to
		// another thread now; on a locked thread it costs this worker a
		// thread hand-off, paid once per trip to sleep, when it has been
		// idle for the whole spin and yield phase anyway.
		goruntime.Gosched()
		st.jec = s.counters.markSleepy()
		if f := s.sleepyFence; f != nil {
			f()
		}
		st.rounds++
	default:
		s.sleep(st, latch, stayAwake)
	}
}

// sleep blocks the worker unless work was posted since it announced itself
// sleepy, its latch was set, or injected work is waiting.
func (s *Sleep) sleep(st *Idle, latch *Latch, stayAwake func() bool) {
	if !latch.getSleepy() {
		return // set meanwhile; the caller sees it
	}
	ws := &s.workers[st.worker]
	ws.mu.Lock()
	if !latch.fallAsleep() {
		ws.mu.Unlock()
		st.rounds = 0 // the latch was set: the caller will stop looking
		return
	}
	if !s.counters.tryAddSleeping(st.jec) {
		// Work was posted after we announced sleepiness: look again, but
		// skip the spinning, we were just there.
		ws.mu.Unlock()
		latch.wakeUp()
		st.rounds = roundsUntilSleepy
		return
	}
	// We are registered as sleeping. A poster that pushed to a deque saw
	// our sleepy JEC and moved it (so tryAddSleeping failed above), or will
	// see us sleeping and wake us. Injected work gets one more check (see
	// the package doc for why this one is needed), as does the owner's
	// reason to keep the worker awake (see NoWorkFound).
	if stayAwake() {
		s.counters.subSleeping()
		ws.mu.Unlock()
		latch.wakeUp()
		st.rounds = roundsUntilSleepy
		return
	}
	ws.blocked = true
	ws.mu.Unlock()
	ws.sleeps.Add(1)
	if o := s.observer; o != nil {
		o(st.worker, true)
	}
	ws.parked.Store(true)
	ws.parker.park()
	ws.parked.Store(false)
	// Whoever woke us cleared blocked and took us off the sleeping count.
	st.rounds = 0
	latch.wakeUp()
}

// ParkOnLatch blocks the worker until latch is set, or until timeout
// passes if timeout > 0, outside the protocol: the worker does not count as
// looking or sleeping, so posts of work never wake it (wakeAny skips it)
// and never count on it to take their jobs. Only the latch's setter
// (WakeWorker), Close (WakeAll) or the timeout ends the park; it may also
// return early, so the caller checks the latch and calls again.
//
// It is for a worker that waits but may not take just any job: a worker
// that refuses work it is offered must not be one of the sleepers a post
// wakes, or the post's wake-up would go to it and the job would stay
// queued with the workers that could take it asleep.
func (s *Sleep) ParkOnLatch(worker int, latch *Latch, timeout time.Duration) {
	if !latch.getSleepy() {
		return
	}
	ws := &s.workers[worker]
	ws.mu.Lock()
	if !latch.fallAsleep() {
		ws.mu.Unlock()
		return // set meanwhile
	}
	ws.onLatch = true
	ws.mu.Unlock()
	ws.parked.Store(true)
	defer ws.parked.Store(false)
	if timeout <= 0 {
		ws.parker.park()
	} else if !ws.parker.parkFor(timeout) {
		// Timed out. If a waker cleared onLatch meanwhile, its token is
		// on its way: take it, or the next park would return at once.
		ws.mu.Lock()
		woken := !ws.onLatch
		ws.onLatch = false
		ws.mu.Unlock()
		if woken {
			ws.parker.park()
		}
	}
	latch.wakeUp()
}

// NewInternalJobs announces n jobs pushed on a worker's own deque: n
// pieces of work that idle workers can take, which may be fewer records
// (an engine that pushes one record for many tasks and splits it for
// whoever looks counts the tasks, so that as many sleepers are woken as
// will find work). queueWasEmpty says whether that deque was empty before the push; if it
// was not, idle workers evidently could not keep up and sleepers are woken
// even if some workers are awake and looking.
//
// While no worker is sleepy or asleep this costs one atomic load; with a
// sleeper, one more atomic add (see newJobs).
func (s *Sleep) NewInternalJobs(n int, queueWasEmpty bool) {
	// newJobs's first step, inlined into every push of a spawned task:
	// with nobody sleepy (markActive changes nothing) and nobody asleep,
	// there is nothing to do.
	if s.counters.load()&(jecOne|threadMask) == 0 { // not sleepy, nobody asleep
		return
	}
	s.newJobs(n, queueWasEmpty)
}

// NewInjectedJobs announces n jobs pushed on the pool's injector by a
// goroutine that is not one of its workers. The caller must publish the
// jobs (make the workers' stayAwake check true) before calling it.
func (s *Sleep) NewInjectedJobs(n int, queueWasEmpty bool) { s.newJobs(n, queueWasEmpty) }

func (s *Sleep) newJobs(n int, queueWasEmpty bool) {
	c := s.counters.markActive()
	if c.sleeping() == 0 {
		return
	}
	// Someone sleeps, and the decision below may count on awake idle
	// workers to take the jobs. That is safe only if the jobs are visible
	// before the counters are read (package doc, "Why no wake-up is
	// lost", the awake idle workers): with a deque that publishes with a
	// release store, the load in markActive may have passed the push. A
	// read-modify-write is a full barrier; it rereads the counters after
	// the push. Only posts to a pool with sleepers pay it.
	c = s.counters.loadFenced()
	sleepers := c.sleeping()
	if sleepers == 0 {
		return
	}
	var toWake int
	switch idle := c.awakeButIdle(); {
	case !queueWasEmpty:
		toWake = min(n, sleepers)
	case idle < n:
		toWake = min(n-idle, sleepers)
	}
	if toWake > 0 {
		s.wakeAny(toWake)
	}
}

// wakeAny wakes up to n sleeping workers, lowest index first. Workers
// parked on a latch (ParkOnLatch) are not sleepers: they are skipped.
func (s *Sleep) wakeAny(n int) {
	for i := range s.workers {
		if s.wake(i, false) {
			if n--; n == 0 {
				return
			}
		}
	}
}

// WakeSleeping wakes worker i if it is asleep in the protocol (not parked
// on a latch), and reports whether it was: for an owner that changed what
// the worker's stayAwake check answers (NoWorkFound) while it slept.
func (s *Sleep) WakeSleeping(i int) bool { return s.wake(i, false) }

// WakeWorker wakes worker i if it is blocked, asleep in the protocol or
// parked on a latch, and reports whether it was. Setters of a latch whose
// waiter was sleeping call it, and Close calls it for every worker.
func (s *Sleep) WakeWorker(i int) bool { return s.wake(i, true) }

// wake wakes worker i if it sleeps in the protocol, or, with onLatch, if
// it is parked on a latch. Only wake-ups from the protocol's sleep are
// counted and reported to the observer (a latch park is neither), and
// the observer hears of one before the worker runs again: a worker woken
// first could otherwise block again and be reported asleep before the
// report that it woke.
func (s *Sleep) wake(i int, onLatch bool) bool {
	ws := &s.workers[i]
	ws.mu.Lock()
	switch {
	case ws.blocked:
		ws.blocked = false
		s.counters.subSleeping()
		ws.mu.Unlock()
		ws.wakeups.Add(1)
		if o := s.observer; o != nil {
			o(i, false)
		}
	case onLatch && ws.onLatch:
		ws.onLatch = false
		ws.mu.Unlock()
	default:
		ws.mu.Unlock()
		return false
	}
	ws.parker.unpark()
	return true
}

// WakeAll wakes every blocked worker (for shutdown).
func (s *Sleep) WakeAll() {
	for i := range s.workers {
		s.WakeWorker(i)
	}
}

// Stats are cumulative counts since New.
type Stats struct {
	Sleeps  uint64 // times a worker blocked
	Wakeups uint64 // times a blocked worker was woken by another
}

// Stats returns the counts so far: the sums of WorkerStats over the
// workers, each worker's counts read once. There is no shared counter for
// the totals (every sleeper and waker would write one cache line), and so
// totals never disagree with the per-worker counts they are summed from.
func (s *Sleep) Stats() Stats {
	var st Stats
	for i := range s.workers {
		ws := s.WorkerStats(i)
		st.Sleeps += ws.Sleeps
		st.Wakeups += ws.Wakeups
	}
	return st
}

// Idle returns how many workers are looking for work (idle, sleepy or
// asleep) now: one atomic load.
func (s *Sleep) Idle() int { return s.counters.load().inactive() }

// Looking reports whether some worker is looking for work (idle, sleepy or
// asleep): one atomic load.
func (s *Sleep) Looking() bool { return s.counters.load().inactive() > 0 }

// Backoff waits a little before a caller that is not looking for work in
// the protocol's sense tries again for something another thread is about
// to publish (the strict priority mode waits this way for a task counted
// as queued but not yet visible). round counts the caller's attempts from
// 0: the first spinRounds pause the CPU, the next ones yield the thread,
// and from roundsUntilSleepy on each call hands the P to other goroutines
// (runtime.Gosched), so that a publisher that is a goroutine waiting for a
// P gets to run.
func Backoff(round int) {
	switch {
	case round < spinRounds:
		pause(pauseIterations)
	case round < roundsUntilSleepy:
		osYield()
	default:
		goruntime.Gosched()
	}
}
