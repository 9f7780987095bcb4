package runtime

import (
	goruntime "runtime"
	"sync/atomic"

	"github.com/spindle-go/spindle/sleep"
)

// Guests: calls from goroutines that are no worker run on the caller.
//
// Why, and the model (Java's ForkJoinTask.invoke): docs/design.md,
// "Calls from goroutines run on the caller". For the length of its call
// the goroutine is a worker of the registry, with the slot's deques, join
// records and sleep slot: its forks and spawns go on the slot's deque,
// where the pool's workers steal them, and it helps while it waits. When
// the call returns it is unregistered, and anything the call left queued
// on the slot's deques (a detached Spawn, a group's or a future's tasks
// that outlive the call) moves to the injector, so no state of the
// caller remains in the pool.
//
// Slots. A registry has Config.Guests guest slots, which share the index
// space past its workers with the spare slots (Registry.workers) and are
// made when first needed. A guest slot never has a goroutine of its own;
// between calls it is in its idle cell (guests.idle), its deques empty,
// its sleep slot unused (never counted as looking or sleeping). A caller
// that finds no free slot and cannot make one (more callers at once than
// Config.Guests) falls back to injecting its call and blocking, as before
// guests existed: correct, slower.
//
// What a guest is: CurrentWorker returns its slot's Worker, so
// WorkerIndex is the slot's index (at or past Workers(), below Slots(),
// as for a spare), PerWorker has a cell for it, Current returns the pool,
// and Isolate and priorities work as on any worker. A panic in the call
// reaches the caller as it would from an injected call (re-raised after
// everything the call started has finished). Close waits for the call,
// which is counted as a call from outside (enter/leave) for its whole
// length.
type guests struct {
	// idle has a cell per guest slot, holding the slot while it is made
	// and not in use (nil otherwise): a caller takes one with a
	// compare-and-swap, from a cell its goroutine picks on, and puts it back in its own
	// cell (Worker.guestCell). A channel did this before, and callers on
	// every P taking and returning slots met on its lock
	// (docs/runs/server-history.md).
	idle []idleCell
	// made counts the guest slots made (written under Registry.slotMu,
	// read anywhere); max bounds it (Config.Guests).
	made atomic.Int32
	max  int
	// running counts the guests in a call now. (The calls run by guests
	// so far are counted per slot, Worker.calls, and summed by Counts:
	// handlers on every P calling at once would each write one line.)
	running atomic.Int32
	// procs is GOMAXPROCS as the registry last read it (sizing.procs),
	// copied where resize and initSizing write that, so that guests read
	// it on the lines they read anyway.
	procs atomic.Int32
	// watched is set when the registry has guests and its monitor can
	// see goroutine states, which it needs to find the guests stuck
	// behind their own queue (see saturated).
	watched bool
	// filled is set by a guest whose call made the guests in a call as
	// many as the Ps, and cleared by the monitor's round that finds them
	// fewer (see saturated). Written once per change, on the line that
	// every guest's arrival writes anyway (running).
	filled atomic.Bool
	// rounds counts the monitor's rounds (monitorRound), for the serial
	// calls' Overdue: on a line of its own, which serial callers read
	// between their pieces and the monitor writes once a round, away from
	// running, which every call writes.
	_      [falseSharingRange]byte
	rounds atomic.Uint32
	_      [falseSharingRange - 4]byte
}

// sharedPs: a guest takes a worker's place (size.go), but the workers
// running never drop below one, so once the guests in a call are as many
// as the workers that may run, the workers share the Ps with them, and
// idle workers step aside (sleep.Shared; why: docs/design.md, "Calls from
// goroutines run on the caller"). A guest that fills the Ps switches the
// setting on, and the monitor off when it finds the registry idle
// (monitor.go), so a pool whose guests come and go switches it at most
// once per monitor round; a registry without a monitor keeps it on once
// guests have filled its Ps. Below that the Ps are not shared: a worker's
// quicker futex wake-up is kept.

// saturated reports whether the guests in a call are as many as the Ps,
// or were at some call since the monitor's last round (filled): every P
// has a caller computing its own request, and a worker stealing
// from one would only take turns on a P with the callers (and make the
// caller wait for a thief that waits for a P). Thieves then leave guest
// slots alone, and a guest arriving does not offer its first fork, so
// sleeping workers stay asleep and each caller runs its call alone, as a
// serial handler would. A guest's joins take their forks back and its
// waits pop its tasks, but a task it runs may block waiting for a sibling
// queued behind it (a barrier of tasks, a channel between two): then no
// thief would come. The monitor finds such a guest (its public deque holds
// jobs and has not moved for a round while its goroutine waits:
// noteStaleGuest), marks it stale, which thieves visit again, and wakes a
// sleeper for it. So saturation costs parallelism only, never progress,
// and only where the monitor sees goroutine states (guests.watched);
// without that, and without guests, it is false. (A
// serial call, EnterSerialCall, queues nothing: it is for calls whose
// pieces wait for no other.)
//
// It holds over the monitor's round, not only while the count does:
// docs/design.md ("Calls from goroutines run on the caller") has why.
func (r *Registry) saturated() bool {
	gs := &r.guests
	return gs.watched && (gs.filled.Load() || gs.running.Load() >= gs.procs.Load())
}

// guestHoldsThread reports whether a guest entering now, in a pool of
// locked workers, locks its thread for the call: while it is the only
// guest, or leaves a P to a worker that steals from it. A second guest
// that fills the Ps stays unlocked, and so do those past it, and, with
// more than one P, every guest while the Ps were filled since the
// monitor's last round (a handler entering in the dip between two calls
// of another is not alone): the guests, and the program's goroutines
// beside them, then take turns on the Ps, and every preemption or wait of
// a locked goroutine is a thread hand-off with the P idle meanwhile
// (docs/runs/server-history.md has the measurements).
func (r *Registry) guestHoldsThread() bool {
	gs := &r.guests
	running, procs := gs.running.Load(), gs.procs.Load()
	if procs <= 1 {
		return running == 1 // one guest fills the P, and is alone
	}
	return running < procs && !gs.filled.Load()
}

// noteGuestEntered is a guest's arrival, which made running guests in a
// call: once they are as many as the workers that may run, idle workers
// step aside (see sharedPs); once as many as the Ps, saturation holds
// until the monitor's next round (see saturated).
func (r *Registry) noteGuestEntered(running int32) {
	if running >= r.sizing.running.Load() {
		r.sleep.StepAside(sleep.Shared, true) // see sharedPs
		r.payKick()                           // the monitor clears it when idle
	}
	if gs := &r.guests; gs.watched && running >= gs.procs.Load() &&
		!gs.filled.Load() && gs.filled.CompareAndSwap(false, true) {
		// The monitor may be parked (a guest's call that hands nothing
		// over does not wake it): it must look, or nothing would clear
		// filled while the calls go on, and a lone guest's forks would
		// wait for the thieves that saturation keeps away.
		r.kickMonitor()
	}
}

// noteFilled is the monitor's look at saturation (see saturated): the
// guests in a call now fewer than the Ps end what filled recorded.
func (r *Registry) noteFilled() {
	gs := &r.guests
	if gs.filled.Load() && gs.running.Load() < gs.procs.Load() {
		gs.filled.Store(false)
	}
}

// EnterSerialCall admits a call from a goroutine that is no worker to run
// serially on that goroutine, holding no guest slot, and reports true,
// while the registry is saturated (see saturated: its guests in a call
// fill the Ps, or did since the monitor's last round); the caller then
// runs its call without forking, asks Overdue between its pieces, and
// calls Leave when done. It reports false otherwise, and on a closed
// registry: the call goes the usual way (Run, as a guest).
//
// It is for forkjoin's Fold and Reduce (forkjoin/top.go, enterSerialCall,
// says why), whose pieces wait for no other: a piece that waited for a
// later one would wait forever, never returning to ask Overdue. A serial
// call counts as a guest in a call (running) and as a call from outside
// (active) while it lasts, so saturation stays measured over every caller,
// and Close waits for it. Once Overdue (the monitor looked twice since it
// began), the caller hands the rest of its pieces to the pool, where a
// piece that blocks gets the workers its siblings need.
func (r *Registry) EnterSerialCall() (SerialCall, bool) {
	// Admitted, unless it goes the usual way, as any call from outside
	// (admit): it keeps the registry busy for the monitor, which would
	// otherwise find it idle between two guests' calls and end the
	// saturation, and the idle workers' stepping aside with it (sharedPs);
	// and it reads GOMAXPROCS, whose rise since may end the saturation
	// (resize clears filled).
	if !r.saturated() || !r.admit() {
		return SerialCall{}, false
	}
	if !r.saturated() {
		r.leave()
		return SerialCall{}, false
	}
	// A guest in a call, as a guest's arrival counts one: the Ps stay
	// filled while only serial calls run.
	r.noteGuestEntered(r.guests.running.Add(1))
	// Overdue counts the monitor's rounds: it must look while serial
	// calls run, even when no call hands it a job (payKick).
	r.payKick()
	return SerialCall{r, r.guests.rounds.Load()}, true
}

// SerialCall is a call that EnterSerialCall admitted: its registry, and
// the monitor's round count when it began.
type SerialCall struct {
	reg   *Registry
	begun uint32
}

// Overdue reports whether the monitor has begun two rounds or more since
// the call began, so that it has run for one of the monitor's ticks at
// least, and longer while every P computes (the monitor waits for one to
// look; a piece that blocks frees its P): the caller should hand the rest
// of its work to the pool (see EnterSerialCall). One load of a line the
// monitor writes once a round.
func (c SerialCall) Overdue() bool { return c.reg.guests.rounds.Load()-c.begun >= 2 }

// MonitorRounds returns how many rounds the monitor has begun: the clock
// of Overdue, for tests that wait for a serial call to be overdue.
func (r *Registry) MonitorRounds() uint32 { return r.guests.rounds.Load() }

// Leave ends the call. Call it once.
func (c SerialCall) Leave() {
	c.reg.guests.running.Add(-1)
	c.reg.leave()
}

// noteStaleGuest is the monitor's look at guest w in a call (see
// saturated): a guest in the same call as at the last round whose public
// deque holds jobs and has not moved since, and whose goroutine waits
// outside the engine (waiting: a task it runs blocked, maybe on a sibling
// queued behind it), is marked stale, and a sleeping worker is woken for
// its jobs; a guest whose deque moved or emptied, which began another
// call, or which computes or waits for a P, is not stale. A guest that
// computes or waits for a P runs its queue itself once back on a P: a
// thief woken for it would take a P from the program's goroutines, hand
// its thread's P back and forth with them, and make the guest, once back,
// wait for the thief. The call count matters: a deque's ends come back
// where they were after every fork taken back, so a handler running short
// requests one after the other shows the same ends round after round.
func (r *Registry) noteStaleGuest(w *Worker, ws *runnerWatch, waiting bool) {
	top, bottom := w.deque.Ends()
	calls := w.calls.Load()
	still := top < bottom && top == ws.guestTop && bottom == ws.guestBottom && calls == ws.guestCalls
	ws.guestTop, ws.guestBottom, ws.guestCalls = top, bottom, calls
	if !still || !waiting {
		if w.stale.Load() {
			w.stale.Store(false)
		}
		return
	}
	if !w.stale.Load() {
		w.stale.Store(true)
		r.sleep.NewInjectedJobs(1, false)
	}
}

// othersLooking reports whether another worker may take what w exposes
// now: some worker looks for work (idle, sleepy or asleep:
// sleep.Sleep.Looking), unless w is a guest while the guests are
// saturated, whom no thief visits. A bulk spawn's runner splits its part
// all the way down for lookers (batch.go), which on a saturated guest only
// multiplies its jobs (docs/runs/server-history.md).
func (w *Worker) othersLooking() bool {
	return w.sleep.Looking() && !(w.guest && w.reg.saturated())
}

// acquireGuest returns a guest slot for the calling goroutine, or nil when
// every slot is in use and no more may be made.
func (r *Registry) acquireGuest() *Worker {
	gs := &r.guests
	if gs.max == 0 {
		return nil
	}
	me := currentG() // the slot's goroutine for the call (runAsGuest)
	if w := r.takeIdleGuest(me); w != nil {
		return w
	}
	// Every slot made and in use, or so it seemed: look once more rather
	// than fall back to a call without a slot, which costs a sleeping
	// worker's wake-up. With as many callers as slots, one is free
	// whenever a caller looks, but the pass above reads one cell at a
	// time and may miss it. Without newSlot's lock, which every caller
	// past the slots would otherwise take (see lockForGuest).
	if int(gs.made.Load()) >= gs.max {
		return r.takeIdleGuest(me)
	}
	w := r.newSlot(slotGuest)
	if w != nil {
		w.g.Store(me)
	}
	return w
}

// takeIdleGuest takes a guest slot made and not in use for goroutine me,
// or returns nil if it finds none.
func (r *Registry) takeIdleGuest(me uintptr) *Worker {
	gs := &r.guests
	n := uint32(gs.made.Load())
	if n == 0 {
		return nil
	}
	// From a cell that depends on the calling goroutine: a caller that
	// calls again finds the slot it returned, still warm, and callers at
	// once start apart (a random start would collide half the time with
	// two).
	start := uint32(uint64(me)*0x9E3779B97F4A7C15>>32) % n
	for i := range n {
		c := &gs.idle[(start+i)%n]
		if w := c.w.Load(); w != nil && c.w.CompareAndSwap(w, nil) {
			w.g.Store(me)
			return w
		}
	}
	return nil
}

// idleCell is a cell of guests.idle, apart from its neighbours' lines:
// callers return slots to their cells at once.
type idleCell struct {
	w atomic.Pointer[Worker]
	_ [falseSharingRange - 8]byte
}

// runAsGuest runs f on the calling goroutine as guest slot w, which
// acquireGuest gave it (see the notes above), with every worker's
// obligations: on its return all f started and waits for has finished,
// and f's panic is returned, not raised.
func (r *Registry) runAsGuest(w *Worker, f func()) *PanicError {
	r.noteGuestEntered(r.guests.running.Add(1))
	w.calls.Add(1)  // w.g is the caller's since acquireGuest
	w.adoptLabels() // the caller's: its call's tasks carry them
	// The caller's first fork is published (see Offer), unless no thief
	// would take it; the slot may keep a request of its last call's.
	if r.saturated() {
		w.offer.Store(0)
	} else {
		w.offer.Store(1)
	}
	registerWorker(w)
	// In a pool of locked workers, the call runs locked to the caller's
	// thread, as a worker's goroutine is to its own, when guestHoldsThread
	// says so: unlocked, the Go scheduler moves the guest between threads
	// at preemptions, which slowed searches beside workers and alone.
	// leaveGuest unlocks. Locks nest: a caller that holds its thread
	// keeps it.
	w.locked = r.sizing.locked && r.guestHoldsThread()
	if w.locked {
		goruntime.LockOSThread()
	}
	returned := false
	defer crashOnGoexit(w, &returned)
	pe := r.Catch(f)
	returned = true
	r.leaveGuest(w)
	return pe
}

// pushUnannounced puts j, holding tasks tasks, on guest w's public deque
// without waking a sleeper for it: while the guests are saturated (see
// saturated), for a job of the call's own that the guest's own wait pops
// if nobody steals it (a join's fork, a bulk spawn's part), never for one
// the call may not wait for (a detached spawn, a future).
func (w *Worker) pushUnannounced(j *Job, tasks int) {
	j.setTag(w.iso)
	j.takeLabels()
	if !w.publicPush(j) {
		w.reg.enqueue(j, tasks)
	}
	w.reg.payKick() // only the monitor sees the guest stuck (noteStaleGuest)
}

// leaveGuest ends guest w's call: what the slot holds for others goes out
// (its scope credit and job count, as before any idle wait), jobs left
// queued on its deques move to the injectors, and the slot goes back in
// its idle cell.
func (r *Registry) leaveGuest(w *Worker) {
	w.flushCredit()
	w.publishExecuted()
	unregisterWorker(w)
	w.handOffQueued() // the call's joins and scopes returned, its regions closed
	if debugChecks {
		checkGuestLeft(w)
	}
	r.guests.running.Add(-1)
	if w.locked {
		w.locked = false
		goruntime.UnlockOSThread()
	}
	r.guests.idle[w.guestCell].w.Store(w)
}

// HelpAsGuest has the calling goroutine, which is no worker, run r's
// queued jobs as a guest of r while cond reports false and it finds jobs
// to run, and reports whether cond held when it stopped. It is for a wait
// from outside that no latch signals, such as a group's Go at its limit:
// rather than block at once and wait for a worker to run what would free
// it (a wake-up per slot), the caller runs that work itself, as a worker
// does in HelpUntil. Once it finds nothing to run it returns, and the
// caller blocks as before; it returns at once when r has no free guest
// slot or is closed. A job's panic is the job's owner's, as on a worker.
func (r *Registry) HelpAsGuest(cond func() bool) bool {
	if !r.admit() {
		return cond()
	}
	defer r.leave()
	g := r.acquireGuest()
	if g == nil {
		return cond()
	}
	held := cond()
	pe := r.runAsGuest(g, func() {
		for !held {
			j := g.findWork(true)
			if j == nil {
				return
			}
			g.runHelping(j)
			held = cond()
		}
	})
	r.Raise(pe) // the engine's own: jobs catch their tasks' panics
	return held
}
