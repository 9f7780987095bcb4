package runtime

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/sleep"
)

// Spare workers: keeping the pool's size in running workers while tasks
// block.
//
// A task that blocks without pool.Block (a sleep, a channel, a mutex, a
// read) parks its worker's thread: the worker is gone until the task
// resumes, and with every worker parked the tasks that would release them
// sit in a queue. The registry's monitor (monitor.go) notices such a
// worker and starts a spare in its place; when the blocked task resumes,
// a spare retires at its next task boundary, so the pool gets back to its
// size. Java's ForkJoinPool adds a spare only when told (managedBlock);
// .NET's thread pool injects threads when its workers stop completing
// work; Go's own scheduler hands a blocked thread's P to another thread.
//
// Slots. Config.Spares spare slots share the index space past the
// workers with the guest slots (Registry.workers), each a Worker with its
// own deques and sleep slot, made and started when first needed. A started
// spare is active (running tasks: counted in active), dormant (parked on
// its wake channel, outside the sleep protocol: never counted as looking
// or sleeping, never woken by a post) or, after spareKeepAlive dormant,
// exited (its goroutine gone, the slot kept for the next start).
//
// Threads. A spare is an ordinary goroutine, not locked to a thread. The
// tasks spares exist for block, often, and resume: a locked goroutine
// that blocks hands its P to another thread and takes one back when it
// resumes, two thread switches of tens of microseconds each on this
// kind of machine, where an ordinary goroutine parks and is readied on
// whatever thread runs the P. The monitor reads a spare's goroutine
// state as it reads a worker's (gstate.go).
//
// An active spare runs jobs from the top (it searches as findWork does,
// without announcing itself to the sleep protocol, so that no poster
// counts on it). It retires at a task boundary when the monitor says
// spares are in surplus (more spares than blocked runners to cover: the
// blocked tasks resumed), or when it has found no work for spareIdle,
// and parks. Inside a job it waits as any worker does, through the sleep
// protocol with its own slot.
type spares struct {
	active  atomic.Int32 // spares activated and not retired
	blocked atomic.Int32 // workers the monitor saw blocked in its last round
	// surplus is how many active spares should retire at their next task
	// boundary: the monitor sets it when spares have covered no blocked
	// runner for retireAfter (steerSpares), and each spare that retires
	// for it takes one off.
	surplus atomic.Int32

	// For Stats: activations, and the time workers were seen blocked.
	activations  atomic.Uint64
	blockedNanos atomic.Int64

	// made counts the spare slots made (under Registry.slotMu); max
	// bounds it (Config.Spares).
	made, max int

	// wake kicks the monitor out of its idle park (kickMonitor); stop,
	// closed by Close, ends it, and done is closed when it has ended.
	wake, stop, done chan struct{}
	stopOnce         sync.Once
	// kickOwed is set when a call from outside turns the registry busy,
	// and cleared by the first kick after that (oweKick, payKick).
	kickOwed atomic.Bool
	// idle counts the active spares waiting between tasks, posted the
	// signals of jobs queued on the injector while they do (runAsSpare).
	idle   atomic.Int32
	posted chan struct{}
	// surplusSince is when the monitor first saw more spares active than
	// blocked runners to cover, zero while it does not (steerSpares; the
	// monitor's own).
	surplusSince time.Time
	// roundGap is the time between the monitor's last two rounds (ns), 0
	// while it parks: a time slice or more while the program's
	// goroutines keep the Ps busy.
	roundGap atomic.Int64
	// gc is the monitor's view of the collector (gcwatch.go).
	gc *gcWatch
	// stallReported is set once the monitor reported a stall (noteStall;
	// the monitor's own).
	stallReported bool
}

// Spares reports the spares' counts: how many are running now, how many
// times a spare was started (or restarted), and how long workers were
// seen blocked in tasks, in all.
func (r *Registry) Spares() (running int, started uint64, blocked time.Duration) {
	return int(r.spares.active.Load()), r.spares.activations.Load(), time.Duration(r.spares.blockedNanos.Load())
}

// Gauges returns what the registry holds now, for an observer: queued is
// the jobs queued where workers can take them (on the injector and the
// public deques at level 0, where a bulk spawn's part counts as one, and
// the tasks counted as queued at levels above 0; forks a worker keeps
// private are not counted), idle how many workers and spares are out of
// work, looking for it or asleep. Counts that change under the reading,
// each read once.
func (r *Registry) Gauges() (queued, idle int) {
	queued = int(r.injector.n.Load()) + int(r.prio.above[0].Load())
	for _, w := range r.liveWorkers() {
		if w.variant == nil {
			queued += w.deque.Len()
		}
	}
	return queued, r.sleep.Idle()
}

// TasksBlock reports whether tasks of the registry block now, as the
// monitor last saw: some worker or spare is blocked in a task, or spares
// run in place of such workers. A caller deciding whether to run a
// queued task itself (pool.Group's Go at its limit) asks it: a task of
// such a pool may hold the caller long.
func (r *Registry) TasksBlock() bool {
	return r.spares.blocked.Load() > 0 || r.spares.active.Load() > 0
}

// Slots returns how many worker indexes the registry may use: its
// workers, spare and guest slots. Worker.Index is always below it.
func (r *Registry) Slots() int { return len(r.workers) }

// liveWorkers returns the workers started so far: the registry's own,
// then the spares started, in index order.
func (r *Registry) liveWorkers() []*Worker { return r.workers[:r.live.Load()] }

// A spare slot's states (Worker.spareState): active (running, or started
// and about to), dormant (its goroutine parked on spareWake), exiting (it
// was dormant for spareKeepAlive and its goroutine is ending), exited (no
// goroutine). The monitor moves a slot from dormant or exited to active;
// the spare itself from active to dormant and from dormant to exiting,
// each with a CAS, so that a spare the monitor activates never exits; and
// Worker.start moves it from exiting to exited once the goroutine is out
// of the worker table, so that a new goroutine for the slot never meets
// the old one there.
const (
	spareActive int32 = iota
	spareDormant
	spareExiting
	spareExited
)

// spareKeepAlive is how long a dormant spare's goroutine stays for reuse
// before it exits (Java's ForkJoinPool keeps a spare thread 60 s, .NET's
// thread pool about 20 s; a pool's spares are cheap to start again, and a
// program that blocked once should not keep their goroutines).
const spareKeepAlive = time.Second

// activateSpare makes one more spare run: a dormant one, else one that
// exited, else a new slot. It reports false when every slot is active.
// Only the monitor calls it.
func (r *Registry) activateSpare() bool {
	for _, w := range r.liveWorkers() {
		if w.spare && w.spareState.CompareAndSwap(spareDormant, spareActive) {
			r.countActivation(w)
			w.spareWake <- struct{}{} // empty: the spare took the last token before it turned dormant
			return true
		}
	}
	for _, w := range r.liveWorkers() {
		if w.spare && w.spareState.CompareAndSwap(spareExited, spareActive) {
			r.countActivation(w)
			r.startSpare(w)
			return true
		}
	}
	return r.newSlot(slotSpare) != nil
}

// A slot's kind, for newSlot.
type slotKind uint8

const (
	slotWorker slotKind = iota // a worker made as the registry grows (size.go)
	slotSpare
	slotGuest
)

// newSlot makes the next slot of the given kind and returns its Worker, or
// nil when every slot of that kind is made: a worker (for resize to start,
// ranked after the others), a spare (started, and counted as an
// activation) or a guest slot. For a guest slot it also returns nil when
// the slot lock stays taken while it spins (lockForGuest): the caller
// then calls without a slot, and its next call tries again. A guest
// slot's record is made before the lock is taken, so that the lock is
// held for a few stores: its callers compute side by side, and one that
// loses its P holding the lock holds it for a time slice.
func (r *Registry) newSlot(kind slotKind) *Worker {
	var made *Worker
	if kind != slotGuest {
		r.slotMu.Lock()
	} else {
		made = r.makeWorker(-1, false) // dropped if no slot is left
		if !r.lockForGuest() {
			return nil
		}
	}
	defer r.slotMu.Unlock()
	switch kind {
	case slotSpare:
		if r.spares.made == r.spares.max {
			return nil
		}
		r.spares.made++
	case slotGuest:
		if int(r.guests.made.Load()) == r.guests.max {
			return nil
		}
		r.guests.made.Add(1)
	}
	// Workers are bounded by resize (sizing.max), which holds sizing.mu.
	live := int(r.live.Load())
	w := made
	if w == nil {
		w = r.makeWorker(live, kind == slotSpare)
	} else {
		w.setIndex(live)
	}
	r.workers[live] = w
	switch kind {
	case slotWorker:
		w.rank = len(r.sizing.ranked) // under sizing.mu: resize's caller holds it
		r.sizing.ranked = append(r.sizing.ranked, w)
	case slotSpare:
		r.countActivation(w)
		r.startSpare(w)
	case slotGuest:
		w.guest = true
		w.guestCell = int(r.guests.made.Load()) - 1
		r.sleep.ParkOnChannel(live) // a goroutine, not a thread of its own
	}
	r.live.Store(int32(live + 1)) // after the slot is written: thieves index it
	return w
}

// lockForGuest takes slotMu for a guest slot's making, spinning on it
// rather than joining its waiters, and reports false if it is still held
// after guestLockRounds. Callers that arrive together and compute side by
// side (handlers on every P) would queue on the lock: a waiter the holder
// wakes goes into the holder's run queue, behind the holder's time slice,
// and the mutex, once a waiter has waited a millisecond, hands itself to
// the waiters in turn, each behind its waker's slice, so a queue lasts
// several slices (docs/performance/server.md, "Locks on a caller's
// path"). The lock is held for a few stores (newSlot), so the spin
// finds it free unless its holder lost its P, and then a call without a
// slot costs less than the queue.
func (r *Registry) lockForGuest() bool {
	for round := range guestLockRounds {
		if r.slotMu.TryLock() {
			return true
		}
		sleep.Backoff(round)
	}
	return r.slotMu.TryLock()
}

// guestLockRounds is how many of sleep.Backoff's rounds lockForGuest
// spins: its first rounds pause the CPU.
const guestLockRounds = 16

func (r *Registry) countActivation(w *Worker) {
	r.spares.active.Add(1)
	r.spares.activations.Add(1)
	if t := r.trace; t != nil {
		t(EventSpareStart, w.index, -1, -1)
	}
}

// startSpare starts spare w's goroutine and returns once it runs.
func (r *Registry) startSpare(w *Worker) {
	var started sync.WaitGroup
	started.Add(1)
	r.stopped.Add(1)
	go w.start(-1, false, &started) // not locked: see "Threads" above
	started.Wait()
}

// spareLoop is a spare's life: run jobs while the pool needs it, then
// park until activated again, terminated, or kept alive long enough.
func (w *Worker) spareLoop() {
	for !w.terminate.Probe() {
		w.runAsSpare()
		// What it holds for others goes out before it parks, as before
		// any idle wait: the finished tasks it counts for a scope (their
		// scope's waiter may wait for them) and its job count.
		w.flushCredit()
		w.publishExecuted()
		w.spareState.Store(spareDormant)
		if !w.waitActivation() {
			return // exited: the monitor starts the slot again if needed
		}
	}
}

// waitActivation parks a dormant spare until the monitor activates it or
// Close wakes it (true), or until spareKeepAlive passes and it turns
// exited (false).
func (w *Worker) waitActivation() bool {
	keepAlive := time.NewTimer(spareKeepAlive)
	defer keepAlive.Stop()
	select {
	case <-w.spareWake:
		return true
	case <-keepAlive.C:
		if w.spareState.CompareAndSwap(spareDormant, spareExiting) {
			return false
		}
		<-w.spareWake // activated meanwhile: its token is on the way
		return true
	}
}

// spareIdle is how long an active spare waits for work before it
// retires: more than it takes a task's caller to queue the next task
// after one finished (an errgroup-style loop under a limit), so that a
// fan-out of blocking tasks keeps its spares.
const spareIdle = time.Millisecond

// runAsSpare runs jobs as an active spare until it retires (see above),
// and takes itself off the active count.
//
// Between tasks it parks on the spares' posted channel, which every job
// queued on the injector while spares wait signals (Registry.enqueue), or
// until spareIdle passes: not in the sleep protocol, which counts on the
// workers it wakes, nor spinning, which would hold a P from the goroutine
// about to queue the next task. Jobs that workers push on their own deques
// do not signal it (forks must not pay for spares): a spare waiting then
// retires, and the monitor starts it again if its round finds workers
// blocked and work queued.
func (w *Worker) runAsSpare() {
	w.waits.Add(1) // its loop's wait, as a worker's main loop counts (monitor.go)
	defer w.waits.Add(-1)
	sp := &w.reg.spares
	for !w.terminate.Probe() {
		if s := sp.surplus.Load(); s > 0 && sp.surplus.CompareAndSwap(s, s-1) {
			break
		}
		j := w.findWork(false)
		if j == nil {
			// Counted as waiting before the last look: a job queued
			// after it is seen or signalled.
			sp.idle.Add(1)
			if j = w.findWork(false); j == nil && !w.waitPosted() {
				sp.idle.Add(-1)
				break
			}
			sp.idle.Add(-1)
			if j == nil {
				continue
			}
		}
		w.runHelping(j)
	}
	sp.active.Add(-1)
	if t := w.reg.trace; t != nil {
		t(EventSpareRetire, w.index, -1, -1)
	}
}

// waitPosted parks the spare until a job is posted to the injector or
// spareIdle passes; it reports false on the timeout.
func (w *Worker) waitPosted() bool {
	// Two of the monitor's rounds at least: under load the goroutine
	// that queues the next task waits a time slice for a P.
	idle := max(spareIdle, 2*time.Duration(w.reg.spares.roundGap.Load()))
	if w.idleTimer == nil {
		w.idleTimer = time.NewTimer(idle)
	} else {
		w.idleTimer.Reset(idle)
	}
	posted := false
	w.sleep.ParkMarked(w.index, func() { // not blocked in a task (monitor.go)
		select {
		case <-w.reg.spares.posted:
			w.idleTimer.Stop()
			posted = true
		case <-w.idleTimer.C:
		}
	})
	return posted
}

// postToSpares signals a spare waiting between tasks that a job was
// queued on the injector (one load while none waits).
func (r *Registry) postToSpares() {
	if r.spares.idle.Load() > 0 {
		poke(r.spares.posted)
	}
}

// oweKick notes that a call from outside has just turned the registry
// busy: the monitor must leave its idle park once one of the pool's
// threads may block in the call's work, which is when the call hands a
// job to the workers (payKick). Not when the call starts: readying the
// parked monitor goroutine makes the Go scheduler wake an idle thread for
// it (wakep), a futex wake-up on the caller's time, though a guest's call
// that hands nothing over needs no monitor (docs/runs/server-history.md). A worker
// that blocks in a job of the call is seen as before: the kick comes
// before any worker can run the job.
func (r *Registry) oweKick() {
	if r.spares.wake != nil {
		r.spares.kickOwed.Store(true)
	}
}

// payKick kicks the monitor if a kick is owed (oweKick): one load when
// none is. It is called where a job becomes another thread's to run, or
// only the monitor can act (each caller says why); an injection pays it
// on the caller's goroutine before the sleepers are woken: paid after the
// wake-up, the thread the scheduler wakes for the monitor takes the P the
// woken worker wants; paid by the worker that takes the job, the monitor
// sits on that worker's P; either delays a group's first task
// (docs/runs/server-history.md).
func (r *Registry) payKick() {
	if r.spares.kickOwed.Load() && r.spares.kickOwed.Swap(false) {
		r.kickMonitor()
	}
}

// kickMonitor wakes the monitor from its idle park.
func (r *Registry) kickMonitor() { poke(r.spares.wake) }

// stopSpares ends the monitor and waits for it (Close, once no call is in
// progress), so that no spare starts after Close has counted the workers
// to stop.
func (r *Registry) stopSpares() {
	if r.spares.stop == nil {
		return
	}
	r.spares.stopOnce.Do(func() { close(r.spares.stop) })
	<-r.spares.done
}

// wakeDormant hands a terminated spare its way out of the dormant park.
func (w *Worker) wakeDormant() { poke(w.spareWake) }

// poke sends on c if that does not block: c has room, or is nil (none
// made: no monitor, no spare), which selects the default.
func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
