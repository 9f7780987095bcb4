package runtime

import (
	"fmt"
	"os"
	goruntime "runtime"
	"time"
)

// The monitor: one goroutine per registry that watches the pool while it
// is busy. It notices workers whose task blocks and starts spares in
// their place (spares.go), reports a pool that can run nothing more
// (noteStall), and keeps the registry's counts current while no call
// comes to do it: GOMAXPROCS (size.go), the workers parked while guests
// ran, and the guests' saturation and stuck queues (guest.go).
//
// What blocked means. A worker or an active spare is blocked when its
// goroutine waits (on a channel, a mutex, a timer, the netpoller) or is in
// a system call, outside the engine's own parks (every park of the engine
// marks itself: sleep.Sleep.Parked), when seen twice blockedAfter apart
// (a round that sees a runner begin to wait looks again blockedAfter
// later), and stays blocked, once woken, until it is seen running: while
// the program's goroutines keep the Ps busy a task that blocks again and
// again spends most of its time waiting for a P. The goroutine's state
// says so (gstate.go): a worker that computes, or waits for a P, or whose
// thread waits for a CPU, is running or runnable, never waiting, whatever
// the machine's load; so a spare that computes is never taken for a
// blocked one. A wait that may be for the garbage collector is not
// believed (gcWatch).
//
// Spares cover blocked workers and spares one for one: as many are
// active as are blocked, while tasks are queued, up to the registry's
// spare slots; so the pool runs as many runners as it was made with, and
// tasks that wait for one another progress as long as fewer than its
// spare slots block at once. Spares beyond that (the blocked tasks
// resumed) retire at their next task boundary once the surplus has lasted
// retireAfter and two rounds, or when they find no work for spareIdle or
// two rounds.
//
// When it runs. While no call, detached task or group is in progress in
// the registry (its active count is 0) and no spare runs, the monitor
// parks on a channel, so an idle pool stays idle. It is signalled
// (kickMonitor) once the call that made the registry busy hands a job to
// the workers (oweKick, payKick), not when the call starts: a guest's call
// that keeps its work to itself wakes nothing. Its first look comes a tick
// after that signal. Otherwise it looks every monitorTick, or every
// monitorFastTick while a runner waits or spares run. A round reads a few
// words per slot and makes no system call, so its cost grows with the
// slots only by loads (BenchmarkMonitorRound).
//
// Where goroutine states cannot be read (gstate_other.go) the monitor
// still keeps the counts, but starts no spare and reports no stall:
// pool.Block is the remedy there.
const (
	monitorTick     = 500 * time.Microsecond
	monitorFastTick = 50 * time.Microsecond
	blockedAfter    = 100 * time.Microsecond
	retireAfter     = time.Millisecond
	lateAfter       = 2 * time.Millisecond
)

// runnerWatch is the monitor's record of one slot.
type runnerWatch struct {
	// since is when the slot's goroutine was first seen waiting in a row
	// of rounds, zero while it is not; last is the last round that
	// counted it blocked (for Stats' blocked time).
	since, last time.Time
	// resuming is set once the slot was counted blocked, until it is
	// seen running.
	resuming bool
	// guestTop and guestBottom are a guest slot's public deque's ends at
	// the last round, and guestCalls its call count (noteStaleGuest).
	guestTop, guestBottom int64
	guestCalls            uint64
}

// monitor is the monitor goroutine's loop.
func (r *Registry) monitor() {
	sp := &r.spares
	defer close(sp.done)
	timer := time.NewTimer(monitorTick)
	defer timer.Stop()
	watches := make([]runnerWatch, len(r.workers))
	quiet := 0    // rounds in a row that found nothing queued, in a bubble
	late := false // the last sleep ended lateAfter late or more
	var lastRound time.Time
	for {
		if r.active.Load() == 0 && sp.active.Load() == 0 {
			clear(watches)
			sp.blocked.Store(0)
			sp.surplus.Store(0)
			r.sleep.ReleaseP(false)
			r.sleep.SetShared(false) // no guest computes (guest.go, sharedPs)
			r.guests.filled.Store(false)
			sp.surplusSince = time.Time{}
			sp.roundGap.Store(0)
			lastRound = time.Time{}
			select {
			case <-sp.wake:
			case <-sp.stop:
				return
			}

			// The first look a tick after the pool turned busy, not at
			// once: the workers are waking up then, and the monitor would
			// take a P from them (engage).
			due := time.Now().Add(monitorTick)
			if !sp.sleepFor(timer, monitorTick) {
				return
			}
			late = time.Since(due) >= lateAfter && !r.inBubble
			continue
		}
		now := time.Now()
		if !lastRound.IsZero() { // a time slice or more under load
			sp.roundGap.Store(int64(now.Sub(lastRound)))
		}
		lastRound = now
		look := r.monitorRound(watches, now, late)

		tick := monitorTick
		if look.waiting > 0 || sp.active.Load() > 0 {
			tick = monitorFastTick
		}
		if r.inBubble {
			tick = r.bubbleTick(tick, &quiet)
		}
		due := time.Now().Add(tick)
		if !sp.sleepFor(timer, tick) {
			return
		}
		late = time.Since(due) >= lateAfter && !r.inBubble
	}
}

// lateAfter is how late the monitor's wake-up must be for the round to
// take it for a wait for a P: more than a timer's lateness in an idle
// process (the netpoller's millisecond), less than the scheduler's time
// slice (10 ms), which is what a goroutine readied on a busy P waits.

// sleepFor waits d on timer, the monitor's own, and reports true; or
// false as soon as Close stops the monitor.
func (sp *spares) sleepFor(timer *time.Timer, d time.Duration) bool {
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-sp.stop:
		return false
	}
}

// monitorRound looks at every slot once at time now: it keeps the
// registry's counts current, finds the blocked runners, starts or retires
// spares, and follows a stall. It returns what it saw. late says the
// monitor waited for a P to begin it (see findBlocked).
func (r *Registry) monitorRound(watches []runnerWatch, now time.Time, late bool) blockedLook {
	r.guests.rounds.Add(1) // serial calls' clock (guest.go, SerialCall)
	r.checkProcs()         // size.go
	r.wakeWithinCount()    // workers parked while guests ran (size.go)
	r.noteFilled()         // guest.go
	look := r.findBlocked(watches, now)
	if look.waiting > look.blocked && !r.inBubble {
		// Runners just began to wait: look again blockedAfter later, in
		// this round, rather than a tick later. A timer wakes an idle
		// process up to a millisecond late (the netpoller's granularity),
		// and while the program's goroutines keep the Ps busy every
		// round waits a time slice for a P (late): then the monitor holds
		// its P meanwhile; otherwise it yields it, to the tasks that
		// might queue the next task or resume.
		for until := now.Add(blockedAfter); time.Now().Before(until); {
			if !late {
				goruntime.Gosched()
			}
		}
		now = time.Now()
		look = r.findBlocked(watches, now)
	}
	if look.blocked > 0 && r.spares.gc.busy() {
		// The waits may be for the collector (gcWatch): start over.
		for i := range watches {
			watches[i].since, watches[i].resuming = time.Time{}, false
		}
		look = r.findBlocked(watches, now)
	}
	r.spares.blocked.Store(int32(look.blocked))
	queued := r.workQueued()
	r.steerSpares(now, look, queued)
	r.noteStall(now, look, queued)
	return look
}

// blockedLook is what a monitor round found of the slots (findBlocked).
type blockedLook struct {
	watched int // workers and active spares not parked in the engine
	waiting int // of those, the ones whose goroutine waits
	blocked int // of those, the ones waiting for blockedAfter: blocked
	// blockedSpares is how many of blocked are spares, runningSpares how
	// many of watched are spares not blocked.
	blockedSpares, runningSpares int
	// workers counts the registry's own workers watched, workersBlocked
	// those blocked, and workersSince is the latest time one of those
	// began to wait.
	workers, workersBlocked int
	workersSince            time.Time
	// guests counts the guests in a call, guestsWaiting those whose
	// goroutine waits outside the engine.
	guests, guestsWaiting int
	// nested counts the blocked runners (guests included) blocked in a
	// job they took while waiting: what they wait in holds pending work.
	nested int
}

// findBlocked is the detection half of a round: which workers and
// spares are blocked in a task, by their goroutine's state, and which
// guests are stuck behind their own queue (noteStaleGuest).
func (r *Registry) findBlocked(watches []runnerWatch, now time.Time) (look blockedLook) {
	sp := &r.spares
	for i, w := range r.liveWorkers() {
		ws := &watches[i]
		if w.guest {
			if r.guests.idle[w.guestCell].w.Load() == w {
				ws.since = time.Time{} // between calls
				continue
			}
			look.guests++
			waiting := !r.sleep.Parked(i) && goroutineBlocked(w.g.Load())
			if waiting {
				look.guestsWaiting++
				if w.waits.Load() > 0 {
					look.nested++
				}
			}
			r.noteStaleGuest(w, ws, waiting)
			continue
		}
		if w.spare && w.spareState.Load() != spareActive || r.sleep.Parked(i) {
			ws.since, ws.resuming = time.Time{}, false
			continue
		}
		look.watched++
		if !w.spare {
			look.workers++
		}
		switch goroutineState(w.g.Load()) {
		case gRunnable:
			if ws.resuming {
				// Woken from the wait it was blocked in, and waiting
				// for a P: the program's goroutines keep the Ps busy,
				// and the task, blocked in all but that, still needs
				// its cover (a fan-out of blocking calls beside them).
				look.blocked++
				if w.spare {
					look.blockedSpares++
				}
				continue
			}
			fallthrough
		case gRunning:
			ws.since, ws.resuming = time.Time{}, false
			if w.spare {
				look.runningSpares++
			}
			continue
		}
		look.waiting++
		if ws.since.IsZero() {
			ws.since = now
		}
		if now.Sub(ws.since) < blockedAfter {
			if w.spare {
				look.runningSpares++
			}
			continue
		}
		look.blocked++
		ws.resuming = true
		loopWaits := int32(1) // a worker's main loop waits in waitUntil
		if w.spare {
			loopWaits = 0 // a spare's does not
		}
		if w.waits.Load() > loopWaits {
			look.nested++
		}
		if w.spare {
			look.blockedSpares++
		} else {
			look.workersBlocked++
			if ws.since.After(look.workersSince) {
				look.workersSince = ws.since
			}
		}
		if ws.last.Before(ws.since) {
			ws.last = ws.since
		}
		sp.blockedNanos.Add(int64(now.Sub(ws.last)))
		ws.last = now
	}
	return look
}

// steerSpares is the policy half of a round: given what findBlocked
// saw, and whether tasks are queued, it starts a spare for every blocked
// worker or spare that no spare covers yet, and retires the spares that
// cover nobody.
func (r *Registry) steerSpares(now time.Time, look blockedLook, queued bool) {
	sp := &r.spares
	active := int(sp.active.Load())
	// While tasks block, parked workers give their P back at once: the
	// spares and the tasks they run are ordinary goroutines, whose timers
	// a P held in a futex call would delay (sleep.Sleep.ReleaseP).
	r.sleep.ReleaseP(look.blocked > 0 || active > 0)
	// Every active spare not blocked covers one blocked runner.
	need := look.blocked - (active - look.blockedSpares)
	if need >= 0 {
		sp.surplusSince = time.Time{}
		sp.surplus.Store(0)
	} else if sp.surplusSince.IsZero() {
		sp.surplusSince = now
	} else if now.Sub(sp.surplusSince) >= max(retireAfter, 2*time.Duration(sp.roundGap.Load())) {
		// Over a round at least: under load a round comes a time slice
		// after the last, and a runner that just woke from its wait
		// waits that long for a P, neither blocked nor covering.
		sp.surplus.Store(int32(-need))
	}
	if need <= 0 || !queued || r.closed.Load() && r.active.Load() == 0 {
		return
	}
	for ; need > 0 && r.activateSpare(); need-- {
	}
}

// stallReportAfter is how long a registry must be stalled (noteStall)
// before the monitor says so: far longer than any task blocks on I/O
// while the spares keep the pool going, short enough that a hung
// program says why.
const stallReportAfter = 2 * time.Second

// reportStall prints the monitor's stall report; tests replace it.
var reportStall = func(msg string) { fmt.Fprintln(os.Stderr, msg) }

// noteStall follows whether the registry is stalled: every worker is
// blocked in a task, no spare runs in their place (each active one is
// blocked, or idle for want of work it can see), every guest in a call
// waits too, and work is pending: tasks are queued, or a runner is
// blocked in a job it took while waiting (for a join half, a scope, a
// group), so that what it waits for, and the tasks it holds (its private
// forks, the rest of a bulk spawn's part), cannot go on. It reports a
// stall once per registry when every worker has been blocked for
// stallReportAfter: the pool runs nothing until a blocked task resumes.
// The common cause is a task that holds a lock across a fork or a wait,
// whose worker ran a queued task that waits for the same lock
// (rayon-rs/rayon#592); the report names Isolate, the remedy. Runners
// blocked in the tasks they were given, with nothing queued (long reads,
// long sleeps), are no stall.
func (r *Registry) noteStall(now time.Time, look blockedLook, queued bool) {
	sp := &r.spares
	stalled := look.workers > 0 && look.workersBlocked == look.workers &&
		look.runningSpares == 0 && look.guestsWaiting == look.guests &&
		(queued || look.nested > 0)
	blockedFor := now.Sub(look.workersSince)
	if !stalled || sp.stallReported || blockedFor < stallReportAfter {
		return
	}
	sp.stallReported = true
	callers := ""
	switch look.guests {
	case 0:
	case 1:
		callers = ", and the goroutine running a call on it,"
	default:
		callers = fmt.Sprintf(", and the %d goroutines running calls on it,", look.guests)
	}
	pending := "tasks are queued"
	if look.nested > 0 {
		pending = fmt.Sprintf("%d of them are blocked in a task they started while waiting for a fork, a scope or a group", look.nested)
	}
	reportStall(fmt.Sprintf("spindle: pool %q: all %d of its workers%s have been blocked in tasks for %v, "+
		"no spare worker runs in their place (%d spares active, each blocked or idle), and %s: the pool runs nothing until a blocked task resumes. "+
		"If a task holds a lock while it forks or waits (Join, Scope, Group.Wait, forkjoin), its worker may have started a queued task "+
		"that waits for the same lock: fork under a lock inside pool.Isolate (see its doc).",
		r.name, look.workers, callers, blockedFor.Round(time.Second), sp.active.Load(), pending))
}
