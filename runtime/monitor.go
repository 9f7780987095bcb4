package runtime

import (
	"fmt"
	"os"
	goruntime "runtime"
	"time"

	"github.com/spindle-go/spindle/sleep"
)

// The monitor: one goroutine per registry that watches the pool while it
// is busy. It starts spares in place of workers whose task blocks
// (spares.go), reports a pool that can run nothing more (noteStall), and
// keeps the registry's counts current while no call comes to do it:
// GOMAXPROCS (size.go), the workers parked while guests ran, and the
// guests' saturation and stuck queues (guest.go).
//
// Blocked: a worker's or an active spare's goroutine waits (a channel, a
// mutex, a timer, the netpoller) or is in a system call, outside the
// engine's parks (each marks itself: sleep.Sleep.Parked), seen twice
// blockedAfter apart; once woken it stays blocked until seen running (a
// task that blocks again and again, beside goroutines that keep the Ps
// busy, spends most of its time waiting for a P). The goroutine's state
// says so (gstate.go): one that computes or waits for a P is never
// taken for a blocked one, whatever the load (docs/design.md, "Seeing
// blocked tasks"). A wait that may be for the collector is not believed
// (gcWatch). Spares cover blocked runners one for one, while tasks are
// queued, up to the spare slots; the surplus retires at task boundaries.
//
// When it runs: while the registry is busy (a call, a detached task or a
// group in progress: active) or spares run; otherwise it parks on a
// channel, so an idle pool stays idle. The call that makes the registry
// busy kicks it once it hands a job to the workers (oweKick, payKick), not
// before: a guest's call that keeps its work to itself wakes nothing. It
// looks a tick after the kick, then every monitorTick, or monitorFastTick
// while a runner waits or spares run. A round reads a few words per slot
// and makes no system call (BenchmarkMonitorRound). Where goroutine
// states cannot be read (gid_other.go) it keeps the counts only.
const (
	monitorTick     = 500 * time.Microsecond
	monitorFastTick = 50 * time.Microsecond
	// monitorQuietTick: see quietTick.
	monitorQuietTick = 10 * time.Millisecond
	blockedAfter     = 100 * time.Microsecond
	retireAfter      = time.Millisecond
	// lateAfter: a wake-up this late means the monitor waited for a P
	// (more than a timer's lateness in an idle process, the netpoller's
	// millisecond; less than the scheduler's 10 ms time slice).
	lateAfter = 2 * time.Millisecond
)

// runnerWatch is the monitor's record of one slot.
type runnerWatch struct {
	// class is the slot's standing at the monitor's last look at it;
	// spare and nested are what it was then (a spare's slot; blocked in a
	// job it took while waiting), as counted in the round's tally.
	class         standing
	spare, nested bool
	// since is when the slot's goroutine was first seen waiting in a row
	// of looks, zero while it is not; last is the last look that counted
	// it blocked (for Stats' blocked time).
	since, last time.Time
	// guestTop and guestBottom are a guest slot's public deque's ends at
	// the last look, and guestCalls its call count (noteStaleGuest).
	guestTop, guestBottom int64
	guestCalls            uint64
}

// A slot's standing, as the monitor last saw it (runnerWatch.class).
type standing uint8

const (
	seenUnwatched    standing = iota // parked in the engine, dormant, a guest between calls
	seenRunning                      // a worker or active spare computing or waiting for a P
	seenWaiting                      // its goroutine waits, for less than blockedAfter
	seenBlocked                      // waited blockedAfter, and has not run since
	seenGuest                        // a guest in a call, not waiting
	seenGuestWaiting                 // a guest in a call whose goroutine waits
)

// monitorSample is how many slots a round looks at: every slot up to that
// many, else that many in turn, so that a round costs about the same at
// any number of workers (each look reads lines that other cores write, a
// cache miss each on a large machine). A slot is then looked at every
// slots/monitorSample rounds: at 128 workers every 16, 8 ms at the 500 µs
// tick and under 1 ms at the fast one, which a waiting slot brings on.
const monitorSample = 8

// monitor is the monitor goroutine's loop.
func (r *Registry) monitor() {
	sp := &r.spares
	defer close(sp.done)
	timer := time.NewTimer(monitorTick)
	defer timer.Stop()
	watches := make([]runnerWatch, len(r.workers))
	var look blockedLook // the tally of the watches' standings
	cursor := 0          // the next slot to look at
	quiet := 0           // rounds in a row that found nothing queued, in a bubble
	var lastRound time.Time
	// The first look a tick after the pool turned busy, not at once: the
	// workers are waking up then, and the monitor would take a P from
	// them (engage).
	tick := monitorTick
	for {
		if r.active.Load() == 0 && sp.active.Load() == 0 {
			clear(watches)
			look, cursor = blockedLook{}, 0
			sp.blocked.Store(0)
			sp.surplus.Store(0)
			r.sleep.StepAside(sleep.TasksBlock, false)
			r.sleep.StepAside(sleep.Shared, false) // no guest computes (guest.go, sharedPs)
			r.guests.filled.Store(false)
			sp.surplusSince, lastRound = time.Time{}, time.Time{}
			sp.roundGap.Store(0)
			select {
			case <-sp.wake:
			case <-sp.stop:
				return
			}
			tick = monitorTick
		}
		late, ok := r.sleepFor(timer, tick)
		if !ok {
			return
		}
		now := time.Now()
		if !lastRound.IsZero() { // a time slice or more under load
			sp.roundGap.Store(int64(now.Sub(lastRound)))
		}
		lastRound = now
		cursor = r.monitorRound(watches, &look, cursor, now, late)
		tick = monitorTick
		if look.waiting > 0 || look.blocked > 0 || sp.active.Load() > 0 {
			tick = monitorFastTick
			if look.waiting == 0 && !late && !r.workQueued() {
				tick = r.quietTick()
			}
		}
		if r.inBubble {
			tick = r.bubbleTick(tick, &quiet)
		}
	}
}

// quietTick is the tick while runners block with nothing queued, when a
// spare would find nothing to run: the first job handed to a worker then
// kicks the monitor (oweKick, payKick), and until then it looks only every
// monitorQuietTick. The fast tick there would set the pace of the whole
// process: an idle Go process sleeps in the netpoller, whose timeout
// counts whole milliseconds, so a timer due in 50 µs wakes it about a
// millisecond later, and a blocked task's own timer (its sleep, its
// deadline) that falls due meanwhile waits for that wake-up instead of
// getting one of its own (docs/performance/tasks-that-block.md, "Sleeps
// inside tasks"). A runner that pushes work and then blocks, with no other
// worker to take it, waits for the quiet tick.
func (r *Registry) quietTick() time.Duration {
	r.oweKick()
	return monitorQuietTick
}

// sleepFor waits d on timer, the monitor's own, and reports true (ok),
// and whether it woke lateAfter late or more: it waited for a P, the
// program's goroutines keeping the Ps busy (never in a bubble, whose
// clock is fake). ok is false as soon as Close stops the monitor.
func (r *Registry) sleepFor(timer *time.Timer, d time.Duration) (late, ok bool) {
	due := time.Now().Add(d)
	timer.Reset(d)
	select {
	case <-timer.C:
		return time.Since(due) >= lateAfter && !r.inBubble, true
	case <-r.spares.wake:
		// A kick owed by quietTick: a job was handed to a worker. Look a
		// fast tick later, not at once: the workers are taking it up, and
		// the monitor would take a P from them (as after the idle park).
		due = time.Now().Add(monitorFastTick)
		timer.Reset(monitorFastTick)
		select {
		case <-timer.C:
			return time.Since(due) >= lateAfter && !r.inBubble, true
		case <-r.spares.stop:
			return false, false
		}
	case <-r.spares.stop:
		return false, false
	}
}

// monitorRound is a round at time now: it keeps the registry's counts
// current, looks at monitorSample slots from cursor on (lookAt) and
// tallies what it saw into look, starts or retires spares, follows a
// stall, and returns the cursor for the next round. late says the monitor
// waited for a P to begin it (sleepFor).
func (r *Registry) monitorRound(watches []runnerWatch, look *blockedLook, cursor int, now time.Time, late bool) int {
	r.guests.rounds.Add(1) // serial calls' clock (guest.go, SerialCall)
	r.CheckProcs()         // size.go
	r.wakeWithinCount()    // workers parked while guests ran (size.go)
	r.noteFilled()         // guest.go
	live := r.liveWorkers()
	n := min(len(live), monitorSample)
	cursor %= len(live)
	lookSample := func() (fresh bool) {
		for k := range n {
			i := (cursor + k) % len(live)
			fresh = r.lookAt(live[i], i, &watches[i], look, now) || fresh
		}
		return fresh
	}
	if lookSample() && !r.inBubble {
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
		lookSample()
	}
	if look.blocked > 0 && r.spares.gc.busy() {
		// The waits may be for the collector (gcWatch): start over.
		for i := range watches {
			if ws := &watches[i]; ws.class == seenWaiting || ws.class == seenBlocked {
				look.tally(ws, -1)
				ws.class, ws.since = seenRunning, time.Time{}
				look.tally(ws, 1)
			}
		}
	}
	r.spares.blocked.Store(int32(look.blocked))
	r.steerSpares(now, *look)
	r.noteStall(now, *look, watches)
	return cursor + n
}

// blockedLook is the tally of the slots' standings (runnerWatch.class),
// kept by the monitor across rounds.
type blockedLook struct {
	waiting int // workers and active spares just seen waiting (seenWaiting)
	blocked int // workers and active spares blocked (seenBlocked)
	// blockedSpares is how many of blocked are spares, runningSpares how
	// many of watched are spares not blocked.
	blockedSpares, runningSpares int
	// workers counts the registry's own workers watched, workersBlocked
	// those blocked.
	workers, workersBlocked int
	// guests counts the guests in a call, guestsWaiting those whose
	// goroutine waits outside the engine.
	guests, guestsWaiting int
	// nested counts the blocked runners (guests included) blocked in a
	// job they took while waiting: what they wait in holds pending work.
	nested int
}

// tally adds ws's standing to look (sign 1), or takes it back (-1).
func (look *blockedLook) tally(ws *runnerWatch, sign int) {
	switch ws.class {
	case seenUnwatched:
		return
	case seenGuestWaiting:
		look.guestsWaiting += sign
		if ws.nested {
			look.nested += sign
		}
		fallthrough
	case seenGuest:
		look.guests += sign
		return
	}
	if !ws.spare {
		look.workers += sign
	}
	switch ws.class {
	case seenWaiting:
		look.waiting += sign
		fallthrough
	case seenRunning:
		if ws.spare {
			look.runningSpares += sign
		}
	case seenBlocked:
		look.blocked += sign
		if ws.nested {
			look.nested += sign
		}
		if ws.spare {
			look.blockedSpares += sign
		} else {
			look.workersBlocked += sign
		}
	}
}

// lookAt is the detection half of a round, for slot w (index i, record
// ws): whether a worker or spare is blocked in a task, by its goroutine's
// state, and whether a guest is stuck behind its own queue
// (noteStaleGuest). It moves the slot's standing in look, and reports
// whether the slot was just seen to begin waiting.
func (r *Registry) lookAt(w *Worker, i int, ws *runnerWatch, look *blockedLook, now time.Time) (fresh bool) {
	look.tally(ws, -1)
	defer look.tally(ws, 1)
	ws.spare, ws.nested = w.spare, false
	if w.guest {
		if r.guests.idle[w.guestCell].w.Load() == w {
			ws.class, ws.since = seenUnwatched, time.Time{} // between calls
			return false
		}
		waiting := !r.sleep.Parked(i) && goroutineBlocked(w.g.Load())
		ws.class = seenGuest
		if waiting {
			ws.class, ws.nested = seenGuestWaiting, w.waits.Load() > 0
		}
		r.noteStaleGuest(w, ws, waiting)
		return false
	}
	if w.spare && w.spareState.Load() != spareActive || r.sleep.Parked(i) {
		ws.class, ws.since = seenUnwatched, time.Time{}
		return false
	}
	if w.looking.Load() { // searching or going to sleep: no task of its own waits
		ws.class, ws.since = seenRunning, time.Time{}
		return false
	}
	switch goroutineState(w.g.Load()) {
	case gRunnable:
		if ws.class == seenBlocked {
			// Woken from the wait it was blocked in, and waiting for a
			// P: the program's goroutines keep the Ps busy, and the task,
			// blocked in all but that, still needs its cover (a fan-out
			// of blocking calls beside them).
			ws.nested = w.waits.Load() > 1 // more than its loop's wait (Worker.waits)
			return false
		}
		fallthrough
	case gRunning:
		ws.class, ws.since = seenRunning, time.Time{}
		return false
	}
	if ws.since.IsZero() {
		ws.since = now
	}
	if now.Sub(ws.since) < blockedAfter {
		ws.class = seenWaiting
		return true
	}
	ws.class, ws.nested = seenBlocked, w.waits.Load() > 1
	if ws.last.Before(ws.since) {
		ws.last = ws.since
	}
	r.spares.blockedNanos.Add(int64(now.Sub(ws.last)))
	ws.last = now
	return false
}

// steerSpares is the policy half of a round: given what lookAt
// saw, it starts, while tasks are queued, a spare for every blocked
// worker or spare that no spare covers yet, and retires the spares that
// cover nobody.
func (r *Registry) steerSpares(now time.Time, look blockedLook) {
	sp := &r.spares
	active := int(sp.active.Load())
	// While tasks block, idle workers step aside (sleep.TasksBlock).
	r.sleep.StepAside(sleep.TasksBlock, look.blocked > 0 || active > 0)
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
	if need <= 0 || r.closed.Load() && r.active.Load() == 0 || !r.workQueued() {
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
func (r *Registry) noteStall(now time.Time, look blockedLook, watches []runnerWatch) {
	sp := &r.spares
	stalled := look.workers > 0 && look.workersBlocked == look.workers &&
		look.runningSpares == 0 && look.guestsWaiting == look.guests &&
		!sp.stallReported && (look.nested > 0 || r.workQueued())
	if !stalled {
		return
	}
	var latest time.Time // the last of the workers to block
	for i := range watches {
		if ws := &watches[i]; ws.class == seenBlocked && !ws.spare && ws.since.After(latest) {
			latest = ws.since
		}
	}
	blockedFor := now.Sub(latest)
	if blockedFor < stallReportAfter {
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
