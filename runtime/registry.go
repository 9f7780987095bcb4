package runtime

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/deque"
	"github.com/spindle-go/spindle/sleep"
)

// Config configures a Registry.
type Config struct {
	// Workers is the number of workers (1..MaxWorkers), or with
	// FollowProcs the number to start with.
	Workers int
	// FollowProcs makes the number of workers follow GOMAXPROCS, up to
	// MaxFollowed (at least Workers): see size.go.
	FollowProcs bool
	MaxFollowed int
	Pin         bool // bind worker i to the i-th CPU of the affinity set (Linux)
	// Unlocked runs the workers as ordinary goroutines instead of
	// goroutines locked to their OS threads. A locked worker that the Go
	// scheduler preempts (for a garbage collection's stop or stack scan,
	// sysmon's 10 ms slice, a GC worker that needs its P) hands its P to
	// another thread and back, a thread switch each, where an ordinary
	// goroutine's preemption costs far less (pool's
	// BenchmarkPreemptHandOff times both); every garbage collection
	// preempts every worker, so tasks that allocate pay it often.
	// docs/design.md has the figures. Pin needs locked threads.
	Unlocked bool
	// PanicHandler receives the *PanicError of a detached task. Nil means
	// crash the program with it, as an unrecovered goroutine panic would.
	PanicHandler func(v any)
	// PanicValue is how the registry shows its panic records to user code
	// (see PanicValue). Nil means as the *PanicError records themselves.
	PanicValue PanicValue
	// Closed, if set, is the caller's own sentinel for calls on the closed
	// registry: their errors match it with errors.Is, as well as ErrClosed.
	Closed error
	// Name labels the workers in profiles (pprof label spindle.pool).
	// Empty means "pool-N", N counting registries from 1.
	Name string
	// Trace, if set, receives every steal, sleep and wake-up (see
	// EventKind), on the worker concerned (the waker's thread for a
	// wake-up). worker is the worker that stole, went to sleep or was
	// woken; victim, for a steal, the worker stolen from, otherwise -1;
	// waker, for a wake-up, the worker of this registry that woke worker,
	// or -1 when the waker was not one of them (a goroutine outside the
	// pool, Close), otherwise -1. The wake-ups of a burst of work form a
	// tree rooted outside the pool, and a worker's depth in it is how many
	// wake-ups in a row it took to reach it. Trace must be quick and must
	// not block; without it those paths test one nil field, and forks
	// never look at it.
	Trace func(kind EventKind, worker, victim, waker int)
	// Priority is how strictly workers follow the priority levels of
	// spawned tasks (see PriorityPolicy).
	Priority PriorityPolicy
	// Spares is how many spare workers the registry may run at once in
	// place of workers whose task is blocked (spares.go); 0 starts none.
	// Spares run only where the monitor can tell a blocked worker, on
	// amd64 and arm64 (gstate.go). Workers+Spares <= MaxWorkers.
	Spares int
	// Guests is how many goroutines that are no worker may run their
	// calls at once on the calling goroutine as guests of the registry
	// (guest.go); 0 makes every such call inject its work and block.
	// Workers+Spares+Guests <= MaxWorkers.
	Guests int
	// Research holds the settings for comparing the engine with other
	// designs (research.go); the zero value is the engine as shipped.
	Research Research
	// OnWorkerStart and OnWorkerExit, if set, run on each of the
	// registry's own workers (not spares, not guests), on its goroutine
	// and thread: start once it is set up (locked, pinned, labelled) and
	// before its first job, exit after its last, as it ends (Close). Each
	// gets the worker's index. A panic in one goes to PanicHandler, as a
	// detached task's does, and the worker goes on.
	OnWorkerStart, OnWorkerExit func(worker int)

	// analysis makes the analysis worker (analyze.go): its variant deque
	// is an analysisDeque, and it stands in for every registry.
	analysis bool
}

// stealHalfMax bounds how many jobs a thief takes in one steal from a deque
// that steals in bulk.
const stealHalfMax = 64

// MaxWorkers bounds Config.Workers. Far more threads than CPUs only adds
// contention; the bound also keeps the sleep counters' fields in range.
const MaxWorkers = 4096

// Registry is a set of workers with their deques, the injector for work
// from outside, and the sleep state that coordinates them. pool.Pool is its
// public face.
//
// Its fields follow these access rules:
//
//   - Written by NewRegistry before the first worker starts, read by
//     anyone after: the workers slice itself, sleep, panicHandler,
//     panics, closedErr, name, inBubble, trace, wakes, research,
//     onStart, onExit, reportWorkers (the analysis registry sets it
//     before first use).
//   - Atomic, written by any goroutine: live (by the slot maker, under
//     slotMu, after the slot is written), injected, closed, active.
//   - Under a lock of their own: the injector (injector.mu), drained and
//     the close sequence (mu, closeOnce, stopped), the slots past the
//     workers (slotMu), the sizing (sizing.mu; its counts are atomics
//     read anywhere).
//   - The monitor goroutine's: the spares record but for its atomics
//     (active, blocked, surplus and the counters, read by Counts and the
//     spares), which spares.go names field by field; the guests' idle
//     cells are taken and put back with compare-and-swap (guest.go).
//   - prio: its policy and victims are set by NewRegistry, its counts
//     of queued tasks (above) are atomics, its injectors have their locks.
type Registry struct {
	// workers holds the registry's workers, then its spare and guest
	// slots in the order they were made: workers[:live] are made (and a
	// spare's started), which is what thieves scan (spares.go, guest.go).
	workers      []*Worker
	live         atomic.Int32
	spares       spares
	sleep        *sleep.Sleep
	injector     injector
	prio         prioState
	panicHandler func(v any)
	panics       PanicValue // never nil (recordValue by default)
	closedErr    error      // Config.Closed
	name         string
	inBubble     bool // made inside a testing/synctest bubble (bubble.go)
	trace        func(kind EventKind, worker, victim, waker int)
	// onStart and onExit are Config.OnWorkerStart and OnWorkerExit.
	onStart, onExit func(worker int)

	injected atomic.Uint64
	// wakes holds the handoff channels not in use (handoff.go).
	wakes chan chan struct{}
	// reportWorkers, if set, is what Workers reports instead of the
	// number of workers (the analysis registry's; set before first use).
	reportWorkers int

	// Lifecycle. active counts calls from outside the pool that are in
	// progress, detached tasks and futures not yet finished, and groups
	// with a task queued or running (one each: group.go); Close waits for
	// it to reach zero once closed is set, and no outside call starts
	// after that. Work queued from a worker of the pool is counted without
	// the closed check: it runs inside something counted, which Close is
	// waiting for, so active cannot be zero at that moment.
	closed atomic.Bool
	active atomic.Int64
	// dropping is set by CloseNow, before it closes: from then on a
	// detached task or future that a worker reaches is dropped unstarted
	// (Dropping), which still releases its count in active.
	dropping  atomic.Bool
	mu        sync.Mutex
	drained   *sync.Cond // signalled when active reaches zero after closed
	closeOnce sync.Once
	stopped   sync.WaitGroup

	// Slots past the workers, made on demand (spares.go, guest.go), kept
	// after the fields that workers read on every steal: makeWorker makes
	// slot i's Worker from research and analysis, written once by
	// NewRegistry; slotMu orders the making of slots.
	research Research
	slotMu   sync.Mutex
	guests   guests

	// sizing is how many workers there are and run (size.go).
	sizing sizing
}

// NewRegistry starts cfg.Workers workers and returns once every one of them
// runs (on its own locked thread unless cfg.Unlocked).
func NewRegistry(cfg Config) (*Registry, error) {
	maxWorkers, err := cfg.check()
	if err != nil {
		return nil, err
	}
	slots := maxWorkers + cfg.Spares + cfg.Guests
	r := &Registry{sleep: sleep.New(slots), panicHandler: cfg.PanicHandler,
		onStart: cfg.OnWorkerStart, onExit: cfg.OnWorkerExit,
		name: cfg.Name, trace: cfg.Trace, closedErr: cfg.Closed,
		research: cfg.Research}
	if r.inBubble = InSynctestBubble(); r.inBubble {
		for i := range slots {
			r.sleep.ParkOnChannel(i) // bubble.go
		}
	}
	if r.panics = cfg.PanicValue; r.panics == nil {
		r.panics = recordValue{}
	}
	if n := registries.Add(1); r.name == "" {
		r.name = "pool-" + strconv.FormatUint(n, 10)
	}
	// The workers' deques publish with release stores where they can
	// (newWorkerDeque); a worker turning sleepy must then sync with their
	// owners before its last search, or it could sleep next to a job
	// whose owner missed it (sleep's package doc, "Why no wake-up is
	// lost").
	r.sleep.FenceWhenSleepy(deque.SyncWithOwners)
	if cfg.Trace != nil {
		r.traceSleeps()
	}
	if err := r.prio.init(cfg.Priority, cfg.Workers); err != nil {
		return nil, err
	}
	r.drained = sync.NewCond(&r.mu)
	r.wakes = newWakes()
	var cpus []int
	if cfg.Pin {
		cpus = affinityCPUs()
	}
	r.workers = make([]*Worker, slots)
	r.initSizing(cfg, maxWorkers, cpus)
	r.spares.max = cfg.Spares
	r.guests.max = cfg.Guests
	monitored := !cfg.analysis                                           // the analysis registry runs everything in place
	r.guests.watched = monitored && cfg.Guests > 0 && canSeeGoroutines() // see saturated
	r.guests.idle = make([]idleCell, cfg.Guests)
	r.startWorkers(cfg.Workers)
	if monitored {
		sp := &r.spares
		sp.wake, sp.stop, sp.done = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		sp.posted = make(chan struct{}, max(1, cfg.Spares))
		sp.gc = newGCWatch()
		go r.monitor()
	}
	return r, nil
}

// check validates cfg and settles what one setting implies for another;
// it returns the most workers the registry may make.
func (cfg *Config) check() (maxWorkers int, err error) {
	if cfg.Workers < 1 || cfg.Workers > MaxWorkers {
		return 0, fmt.Errorf("spindle: %d workers: want 1 to %d", cfg.Workers, MaxWorkers)
	}
	maxWorkers = cfg.Workers
	if cfg.FollowProcs {
		maxWorkers = max(cfg.Workers, cfg.MaxFollowed)
	}
	if maxWorkers > MaxWorkers {
		return 0, fmt.Errorf("spindle: following GOMAXPROCS up to %d workers: want at most %d", maxWorkers, MaxWorkers)
	}
	if cfg.Spares < 0 || maxWorkers+cfg.Spares > MaxWorkers {
		return 0, fmt.Errorf("spindle: %d spare workers: want 0 to %d", cfg.Spares, MaxWorkers-maxWorkers)
	}
	if cfg.Guests < 0 || maxWorkers+cfg.Spares+cfg.Guests > MaxWorkers {
		return 0, fmt.Errorf("spindle: %d guest slots: want 0 to %d", cfg.Guests, MaxWorkers-maxWorkers-cfg.Spares)
	}
	if cfg.Pin && cfg.Unlocked {
		return 0, errors.New("spindle: pinning needs workers locked to their threads (Pin and Unlocked both set)")
	}
	if cfg.analysis {
		cfg.Guests = 0 // calls run in place on the analysis worker
	}
	if cfg.analysis || !canSeeGoroutines() {
		cfg.Spares = 0 // the monitor cannot tell blocked workers (gstate.go)
	}
	return maxWorkers, nil
}

// traceSleeps reports the sleep protocol's sleeps and wake-ups to the
// registry's trace.
func (r *Registry) traceSleeps() {
	t := r.trace
	r.sleep.Observe(func(worker int, asleep bool) {
		if asleep {
			t(EventSleep, worker, -1, -1)
			return
		}
		// The observer of a wake-up runs on the waker's goroutine.
		waker := -1
		if w := CurrentWorker(); w != nil && w.reg == r {
			waker = w.index
		}
		t(EventWake, worker, -1, waker)
	})
}

// makeWorker makes the Worker of slot i, a spare's if spare.
func (r *Registry) makeWorker(i int, spare bool) *Worker {
	w := &Worker{
		reg:   r,
		deque: newWorkerDeque(256),
		// Room for 64 nested joins before the first growth.
		slots: make([]FrameSlot, 64),
		sleep: r.sleep,
	}
	w.setIndex(i)
	w.offer.Store(1) // see Offer
	r.research.apply(w)
	for l := range w.levels {
		w.levels[l] = newWorkerDeque(64)
	}
	w.terminate.owner = w
	w.rank = -1 // a spare or guest slot; newSlot ranks a worker
	w.surplusWake = make(chan struct{}, 1)
	if spare {
		w.spare, w.spareWake = true, make(chan struct{}, 1)
	}
	return w
}

// setIndex gives w its slot index (and a victim order of its own),
// before the slot is published (newSlot).
func (w *Worker) setIndex(i int) {
	w.index = i
	w.rng = uint64(i+1) * 0x9E3779B97F4A7C15
}

// startWorkers makes the registry's first n workers, starts them
// (startWorker) and returns once every one runs.
func (r *Registry) startWorkers(n int) {
	var started sync.WaitGroup
	started.Add(n)
	r.sizing.mu.Lock() // a worker's resize waits until all are made
	for range n {
		r.startWorker(r.newSlot(slotWorker), &started)
	}
	r.sizing.mu.Unlock()
	started.Wait()
}

// start is the worker goroutine. If lock is set it locks its thread and
// never unlocks it: when the goroutine returns, Go terminates the thread
// with it, which is how Close releases the pool's threads. An unlocked
// worker's thread goes back to the Go scheduler instead.
func (w *Worker) start(cpu int, lock bool, started *sync.WaitGroup) {
	if lock {
		goruntime.LockOSThread()
		w.locked = true
	}
	if cpu >= 0 {
		pinThread(cpu)
	}
	w.g.Store(currentG())
	w.setLabels()
	w.adoptLabels()
	registerWorker(w)
	if !w.spare {
		w.reg.runHook(w.reg.onStart, w.index)
	}
	if started != nil {
		started.Done()
	}
	returned := false
	defer crashOnGoexit(w, &returned)
	w.mainLoop()
	returned = true
	if !w.spare {
		w.reg.runHook(w.reg.onExit, w.index)
	}
	unregisterWorker(w)
	if w.spare {
		w.spareState.CompareAndSwap(spareExiting, spareExited) // spares.go
	}
	w.reg.stopped.Done()
}

// runHook runs hook (Config.OnWorkerStart or OnWorkerExit), if set, for
// worker index, handing its panic to the panic handler.
func (r *Registry) runHook(hook func(int), index int) {
	if hook == nil {
		return
	}
	if pe := r.Catch(func() { hook(index) }); pe != nil {
		r.handlePanic(pe)
	}
}

// crashOnGoexit, deferred by a goroutine that runs as w (a worker's, a
// guest's call), crashes the program unless returned was set: only
// runtime.Goexit ends it early (tasks catch their panics), and the jobs w
// was running can never finish, so their callers would wait forever;
// crash loudly instead, like an unrecovered panic in a goroutine.
func crashOnGoexit(w *Worker, returned *bool) {
	if !*returned {
		unregisterWorker(w)
		go panic(ErrTaskGoexit)
	}
}

// ErrTaskGoexit is the panic that crashes the program when a task calls
// runtime.Goexit (directly, or through testing.T.FailNow, t.Fatal,
// t.SkipNow): it would end the worker's thread with jobs half done.
var ErrTaskGoexit = errors.New("spindle: a task called runtime.Goexit (t.FailNow, t.Fatal or t.SkipNow in a task?); tasks must return or panic")

// Workers returns the number of workers; the analysis registry reports
// AnalysisWorkers (analyze.go).
func (r *Registry) Workers() int {
	if r.reportWorkers > 0 {
		return r.reportWorkers
	}
	return int(r.sizing.size.Load())
}

// inject queues j, holding tasks tasks, from outside r's workers (or
// from a worker of another registry): it belongs to no isolated region.
func (r *Registry) inject(j *Job, tasks int) {
	j.setTag(0)
	r.enqueue(j, tasks)
}

// enqueue queues j, holding tasks tasks, on the injector of j's level
// (level 0's under the oblivious policy) for the workers, keeping its
// isolation tag, and wakes sleepers for it if needed (see pushPublic).
func (r *Registry) enqueue(j *Job, tasks int) {
	q := &r.injector
	if l := j.level(); l > 0 && r.prio.policy != PriorityOblivious {
		q = &r.prio.injectors[l-1]
	}
	r.payKick() // before the wake-up: see oweKick
	r.injected.Add(1)
	wasEmpty := q.push(j)
	r.wakeWithinCount() // workers parked while guests ran (size.go)
	r.sleep.NewInjectedJobs(tasks, wasEmpty)
	r.postToSpares()
}

// hasInjected reports whether any injector holds a job: the sleep
// protocol's last check before a worker blocks.
func (r *Registry) hasInjected() bool { return r.injector.nonEmpty() || r.prio.hasInjected() }

// workQueued reports whether a job is queued where any worker may take
// it: on an injector, on a worker's public deque, or counted as queued at
// a level above 0. A worker that found work asks it, only while some
// worker sleeps, to decide on the sleep protocol's chain wake-up
// (sleep.Sleep.WorkFound): O(workers) loads, on the path from idle to work.
// A deque variant's length is its owner's to read (BWoS's is not safe from
// another thread), so with variants it answers yes, as every search for
// work did before the question existed.
func (r *Registry) workQueued() bool {
	if r.hasInjected() || r.prio.anyQueued() {
		return true
	}
	for _, v := range r.liveWorkers() {
		if v.variant != nil || !v.deque.Empty() {
			return true
		}
	}
	return false
}

// enter admits a call from outside the pool, or panics with ErrClosed.
func (r *Registry) enter(call string) {
	if !r.admit() {
		panic(r.closedError(call))
	}
}

// admit counts a call from outside the pool in active and reports true,
// or reports false, counting nothing, once the registry is closed.
//
// A call that turns the registry busy reads GOMAXPROCS (size.go); the
// others do not: the reading takes the Go scheduler's lock, which calls
// from every P would contend for, and while the registry is busy its
// monitor reads it every round.
func (r *Registry) admit() bool {
	if !r.closed.Load() {
		if r.active.Add(1) == 1 {
			r.oweKick()    // the registry turns busy (monitor.go)
			r.CheckProcs() // size.go
		}
		if !r.closed.Load() {
			return true
		}
		r.leave()
	}
	return false
}

// closedError is the error of call refused by the closed registry r.
func (r *Registry) closedError(call string) error {
	return &refusedError{call: call, sentinel: r.closedErr}
}

// refusedError is a call refused by a closed registry: "call: " and the
// sentinel's text; it matches ErrClosed and the registry's own sentinel
// (Config.Closed).
type refusedError struct {
	call     string
	sentinel error
}

func (e *refusedError) Error() string { return e.call + ": " + e.Unwrap()[0].Error() }

func (e *refusedError) Unwrap() []error {
	if e.sentinel != nil {
		return []error{e.sentinel, ErrClosed}
	}
	return []error{ErrClosed}
}

// leave ends what enter admitted (or a detached task).
func (r *Registry) leave() {
	if r.active.Add(-1) == 0 && r.closed.Load() {
		r.mu.Lock()
		r.drained.Broadcast()
		r.mu.Unlock()
	}
}

// ErrCloseFromWorker is returned by Close called from one of the pool's
// own workers, which would otherwise wait for itself.
var ErrCloseFromWorker = errors.New("spindle: Close called from one of the pool's own workers")

// Close refuses new calls from outside, waits for the calls in progress,
// the detached tasks, the futures and every group's queued and running
// tasks, then stops the workers and waits until their threads are gone. It is idempotent. Called from a worker of another registry, it
// waits the way Worker.Block does, so that worker keeps serving its own
// registry meanwhile.
func (r *Registry) Close() error {
	if w := CurrentWorker(); w != nil {
		if w.reg == r {
			return ErrCloseFromWorker
		}
		// A worker of another registry must not block its thread while r
		// drains: r's calls in progress may be waiting for that very
		// registry. It waits as a blocking task, serving its own registry.
		var err error
		w.Block(func() { err = r.Close() })
		return err
	}
	r.closeOnce.Do(func() {
		r.closed.Store(true)
		r.mu.Lock()
		for r.active.Load() != 0 {
			r.drained.Wait()
		}
		r.mu.Unlock()
		r.stopSpares() // no spare starts from here on
		r.sizing.mu.Lock()
		r.sizing.stopped = true // no worker is made from here on
		r.sizing.mu.Unlock()
		for _, w := range r.liveWorkers() {
			w.terminate.Set()
			w.wakeDormant()
		}
		r.sizing.mu.Lock()
		r.wakeParked(len(r.sizing.ranked)) // parked past the count (size.go)
		r.sizing.mu.Unlock()
		r.stopped.Wait()
		// The workers are gone; a closed pool may stay referenced, so drop
		// what they kept for reuse (join records, up to one per depth
		// reached: a million-deep recursion leaves about 100 MB).
		for _, w := range r.liveWorkers() {
			w.slots, w.privHead = nil, 0
		}
	})
	return nil
}

// CloseNow is Close that drops the detached tasks and futures not started
// yet: it marks r as dropping (see Dropping) and closes it. Called from a
// worker of r it returns ErrCloseFromWorker and marks nothing.
func (r *Registry) CloseNow() error {
	if w := CurrentWorker(); w != nil && w.reg == r {
		return ErrCloseFromWorker
	}
	r.dropping.Store(true)
	return r.Close()
}

// Dropping reports whether CloseNow has been called: a detached task or a
// future that starts now must be dropped instead (spawnJob.Run; package
// pool's futures, which complete as cancelled).
func (r *Registry) Dropping() bool { return r.dropping.Load() }

// Counts is a snapshot of a registry's counters, cumulative since it
// started: each worker's, and their sums. pool.Stats is made from it.
type Counts struct {
	Workers []WorkerStats // by worker index
	// Total has the sums of Workers' counts: a snapshot loads each counter
	// once, so its totals add up even while workers run.
	Total    WorkerStats
	Injected uint64 // jobs submitted from outside the registry
	// GuestCalls counts the calls from outside that ran on their caller
	// as a guest (guest.go).
	GuestCalls uint64
	// MaxHelpDepth is the deepest any worker has nested jobs it took while
	// waiting (its main loop's job counts as 1), or ran in place of a job
	// it claimed because more urgent work was queued.
	MaxHelpDepth int
}

// Counts returns a snapshot of the counters.
func (r *Registry) Counts() Counts {
	live := r.liveWorkers()
	c := Counts{Workers: make([]WorkerStats, len(live)), Injected: r.injected.Load()}
	for i, w := range live {
		if w.guest {
			c.GuestCalls += w.calls.Load()
		}
		ws := r.sleep.WorkerStats(i)
		pw := WorkerStats{
			Executed:    w.executed.Load(),
			Steals:      w.steals.Load(),
			StealsEmpty: w.stealsEmpty.Load(),
			StealsLost:  w.stealsLost.Load(),
			Inversions:  w.inversions.Load(),
			Sleeps:      ws.Sleeps,
			Wakeups:     ws.Wakeups,
		}
		for l := range w.levelSteals {
			pw.StealsByLevel[l] = w.levelSteals[l].Load()
		}
		c.Workers[i] = pw
		c.Total.add(&pw)
		c.MaxHelpDepth = max(c.MaxHelpDepth, int(w.maxHelping.Load()))
	}
	return c
}

// newWorkerDeque returns a worker's Chase-Lev deque, publishing with
// release stores where the platform allows (deque.PublishWithRelease):
// a public push, every spawned task, then costs no full barrier. The sleep
// protocol, which relied on that barrier, gets it back from the sleepy
// side (FenceWhenSleepy above, and sleep.Sleep's newJobs).
func newWorkerDeque(capacity int) *deque.ChaseLev[Job] {
	d := deque.NewChaseLev[Job](capacity)
	d.PublishWithRelease()
	return d
}
