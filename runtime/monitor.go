package runtime

import (
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/metrics"
	"time"
)

// The blocked-worker monitor: one goroutine per registry with spare slots
// (spares.go), which notices workers whose task blocks and starts spares
// in their place.
//
// What blocked means. A worker (locked to its thread) is blocked when its
// thread is off its CPU in something other than the engine's own waits:
// its thread's CPU clock has not moved for blockedAfter, sleep.Sleep's
// Parked says it is not in a park of the engine, and the kernel does not
// list the thread as runnable (it sleeps in the kernel: a futex under a Go
// channel, mutex or timer, a read). Why this cannot take a computing
// worker for a blocked one: a computing thread's CPU clock moves (the
// kernel adds the run in progress when the clock is read), and a thread
// the OS descheduled to run another is runnable ("R" in /proc), which the
// monitor checks once per stall. What else sleeps in the kernel: a locked
// worker whose goroutine waits for a P (another goroutine holds it), and
// a goroutine that waits for the garbage collector (an allocation whose
// assist found no work, a stack being scanned). The first is excluded by
// starting spares only while no goroutine waits for a P (runtime/metrics'
// runnable count is 0: a P is free for the spare, and no worker waits for
// one); the second by believing no stall while the GC marks, and starting
// over when a collection ended during one (readGC). A false alarm that
// passes both costs one spare that runs queued tasks and retires
// (BenchmarkSparesWhileComputing counts them).
//
// A spare is an ordinary goroutine, not locked to a thread (spares.go
// says why), so it has no thread to watch: it counts as blocked when it
// has been inside one task for blockedAfter without parking in the
// engine. A spare that computes rather than blocks is counted too; it
// holds a P, so once the Ps are all taken the monitor starts no more
// (the runnable count turns positive), and spares retire when goroutines
// keep waiting for a P (below).
//
// Spares start, once work is queued and a P is free, for the blocked
// workers and spares, up to the registry's size in workers running or
// about to be seen blocked; so the pool runs as many workers as it was
// made with. They retire at a task boundary when goroutines have waited
// for a P for retireAfter (more workers compute than Ps can run: the
// blocked tasks have resumed), or when they find no work for spareIdle.
//
// When it runs. While no call, detached task or group is in progress in
// the registry (its active count is 0) and no spare runs, the monitor
// parks on a channel, so an idle pool stays idle. It is signalled
// (kickMonitor) once the call that made the registry busy hands a job to
// the workers (oweKick, payKick), not when the call starts: a guest's call
// that keeps its work to itself wakes nothing. Its first look comes a tick
// after that signal. Otherwise it looks every monitorTick, or every
// monitorFastTick while workers are blocked or spares run, on a Go timer
// (which wakes an otherwise idle process late, at the netpoller's
// millisecond granularity). After a round that started spares or
// suspects a worker just blocked, and while no goroutine waits for a P,
// it looks again rampTick later, yielding its P meanwhile instead of
// sleeping on the timer. It needs a P to look: while every P runs a
// worker it waits for one, and looks only when a P is free, which is when
// a spare could run at all; so it costs a pure computation almost
// nothing. A round reads one clock per started worker (a system call)
// and, once per stall, the stalled thread's /proc state (a read of a file
// kept open).
//
// Detection needs a thread to watch: it runs only with locked workers, on
// Linux (threadProbe); elsewhere, or with unlocked workers, spares never
// start and pool.Block is the only remedy.
const (
	monitorTick     = 500 * time.Microsecond
	monitorFastTick = 50 * time.Microsecond
	blockedAfter    = 100 * time.Microsecond
	retireAfter     = time.Millisecond
	rampTick        = 150 * time.Microsecond
)

// workerWatch is the monitor's record of one worker.
type workerWatch struct {
	probe   threadProbe
	cpu     time.Duration // the thread's CPU time at the last change seen
	since   time.Time     // when cpu was last seen changing (or watching began)
	last    time.Time     // the last round that saw the worker blocked
	blocked bool          // the stall was confirmed (not runnable)
	valid   bool          // cpu and since hold a reading
	// gcCycles is the count of GC cycles completed at since.
	gcCycles uint64
	// guestTop and guestBottom are a guest slot's public deque's ends at
	// the last round, and guestCalls its call count (noteStaleGuests).
	guestTop, guestBottom int64
	guestCalls            uint64
	// guestStill is when the monitor first saw the guest's deque still
	// (noteStaleGuests), zero while it moves.
	guestStill time.Time
}

// monitor is the monitor goroutine's loop.
func (r *Registry) monitor() {
	sp := &r.spares
	defer close(sp.done)
	timer := time.NewTimer(monitorTick)
	defer timer.Stop()
	watches := make([]workerWatch, len(r.workers))
	defer func() {
		for i := range watches {
			watches[i].probe.close()
		}
	}()
	m := newMonitorMetrics()
	quiet := 0 // rounds in a row that found nothing queued, in a bubble
	for {
		if r.active.Load() == 0 && sp.active.Load() == 0 {
			for i := range watches {
				watches[i].valid, watches[i].blocked = false, false
			}
			sp.blocked.Store(0)
			sp.surplus.Store(0)
			r.sleep.ReleaseP(false)
			r.sleep.SetShared(false) // no guest computes (guest.go, sharedPs)
			r.guests.filled.Store(false)
			sp.crowdedSince = time.Time{}
			select {
			case <-sp.wake:
			case <-sp.stop:
				return
			}
			// The first look a tick after the pool turned busy, not at
			// once: the workers are waking up then, and the monitor would
			// take a P from them (engage).
			if !sp.sleepFor(timer, monitorTick) {
				return
			}
			continue
		}
		blocked, soon := r.monitorRound(watches, m)
		if soon {
			// Spares just started, and may block in their first task (a
			// fan-out doubles its width a round), or a worker may have
			// just blocked: look again soon. Yielding, not sleeping on a
			// timer, which in an idle process wakes a millisecond late.
			if r.inBubble {
				// The fake clock moves only once every goroutine of
				// the bubble waits: a yield loop would never end.
				if !sp.sleepFor(timer, rampTick) {
					return
				}
				continue
			}
			t := time.Now()
			for time.Since(t) < rampTick {
				goruntime.Gosched()
			}
			sp.spun += time.Since(t) // not the tasks' CPU (monitorRound)
			continue
		}
		tick := monitorTick
		if blocked > 0 || sp.active.Load() > 0 {
			tick = monitorFastTick
		}
		if r.inBubble {
			tick = r.bubbleTick(tick, &quiet)
		}
		if !sp.sleepFor(timer, tick) {
			return
		}
	}
}

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

// monitorRound looks at every started worker once, publishes how many are
// blocked, and starts or retires spares. It returns the blocked count and
// whether to look again soon: it started spares, or a worker that ran
// little since the last look sleeps now.
func (r *Registry) monitorRound(watches []workerWatch, m *monitorMetrics) (blocked int, soon bool) {
	sp := &r.spares
	r.guests.rounds.Add(1) // serial calls' clock (guest.go, SerialCall)
	r.checkProcs()         // size.go
	r.wakeWithinCount()    // workers parked while guests ran (size.go)
	r.noteFilled()         // guest.go
	now := time.Now()
	marking := m.readGC()
	// Goroutines waiting for a P: the monitor itself may hold the P a
	// worker wants (it runs when a worker is preempted, with one P always),
	// and a locked worker that waits for a P sleeps like a blocked one. No
	// stall is believed then, and the monitor does not hurry back.
	crowded := m.waitingForP()
	if r.inBubble {
		// The fake clock moves only once every goroutine of the bubble
		// waits: at a round none of them computes or waits for a P,
		// whatever the rest of the process does (bubble.go).
		crowded = 0
	}
	r.noteStaleGuests(watches, now, crowded) // guest.go
	look := r.findBlocked(watches, now, marking, crowded, m.gcCycles)
	sp.blocked.Store(int32(look.blocked))
	r.noteStall(now, look.blocked > 0 && look.blocked == look.watched && r.workQueued(), look.blocked)
	started := r.steerSpares(now, look, crowded)
	return look.blocked, started || look.suspect
}

// blockedLook is what a monitor round found of the workers (findBlocked).
type blockedLook struct {
	blocked      int  // workers and spares blocked in a task
	watched      int  // workers and spares that may be blocked in a task
	othersSpares int  // spares neither blocked nor parked
	suspect      bool // a worker may be blocked: look again soon
}

// findBlocked is the detection half of a monitor round: which started
// workers are blocked in a task, by their thread's CPU clock (a locked
// worker) or their task's age (a spare). Parked workers are not: every
// park of the engine marks itself (sleep.Sleep.Parked).
func (r *Registry) findBlocked(watches []workerWatch, now time.Time, marking bool, crowded int, gcCycles uint64) (look blockedLook) {
	sp := &r.spares
	for i, w := range r.liveWorkers() {
		ws := &watches[i]
		if w.spareState.Load() != spareActive || r.sleep.Parked(i) {
			ws.valid, ws.blocked = false, false
			continue
		}
		look.watched++
		if w.spare {
			start := w.taskStart.Load()
			if start == 0 || marking || crowded > 0 && !ws.blocked || now.Sub(time.Unix(0, start)) < blockedAfter {
				look.othersSpares++
				continue
			}
			if !ws.blocked {
				ws.blocked, ws.last = true, time.Unix(0, start)
			}
		} else {
			tid := int(w.tid.Load())
			if tid == 0 {
				continue
			}
			cpu, ok := ws.probe.cpuTime(tid)
			if !ok {
				continue
			}
			if ws.valid && !ws.blocked && (marking || ws.gcCycles != gcCycles) {
				// The GC marks, or a collection ended during the stall:
				// the worker may wait for it (an assist, a stack scan, a
				// stop). Start over.
				ws.valid = false
			}
			if !ws.valid || cpu != ws.cpu {
				// A thread that ran less than half the time since the
				// last look and sleeps now may have just blocked: look
				// again soon rather than a tick later.
				if crowded == 0 && ws.valid && cpu-ws.cpu < now.Sub(ws.since)/2 && !ws.probe.runnable(tid) {
					look.suspect = true
				}
				ws.cpu, ws.since, ws.valid, ws.blocked = cpu, now, true, false
				ws.gcCycles = gcCycles
				continue
			}
			if !ws.blocked {
				if crowded > 0 {
					ws.since = now // the stall may be a wait for a P
					continue
				}
				if now.Sub(ws.since) < blockedAfter {
					look.suspect = true
					continue
				}
				if ws.probe.runnable(tid) {
					continue
				}
				ws.blocked, ws.last = true, ws.since
			}
		}
		look.blocked++
		sp.blockedNanos.Add(int64(now.Sub(ws.last)))
		ws.last = now
	}
	return look
}

// steerSpares is the policy half of a monitor round: given what
// findBlocked saw, it sets how parked workers give their P back, retires
// spares the machine has no room for, and starts one for every blocked
// worker or spare not yet covered. It reports whether it started any.
func (r *Registry) steerSpares(now time.Time, look blockedLook, crowded int) (started bool) {
	sp := &r.spares
	blocked := look.blocked
	active := int(sp.active.Load())
	// While tasks block, parked workers give their P back at once: the
	// spares and the tasks they run are ordinary goroutines, whose timers
	// a P held in a futex call would delay (sleep.Sleep.ReleaseP).
	r.sleep.ReleaseP(blocked > 0 || active > 0)
	// How much of the machine the process used since the last round: a
	// P's worth or more unused means a spare can run now. Read only while
	// a spare may start or retire (a worker blocked or about to be seen
	// blocked, a spare active): the process's CPU clock is a system call
	// that sums every thread's time, slow on a VM, during which the
	// monitor's P is held from the program's runnable goroutines
	// (docs/runs/server-history.md has the traces). Otherwise the last
	// reading is dropped, and the first round that needs one reads the
	// machine as used, starting no spare until the next round, soon after.
	capacity := min(goruntime.GOMAXPROCS(0), goruntime.NumCPU())
	used := 1.0
	if blocked > 0 || active > 0 || look.suspect {
		cpu := readProcessCPU()
		if elapsed := now.Sub(sp.lastRound); !sp.lastRound.IsZero() && elapsed > 0 {
			used = float64(cpu-sp.lastCPU-sp.spun) / float64(elapsed) / float64(capacity)
		}
		sp.lastRound, sp.lastCPU = now, cpu
	} else {
		sp.lastRound = time.Time{}
	}
	sp.spun = 0
	// In a bubble the process's CPU over the fake clock's elapsed time
	// says nothing: the bubble's goroutines all wait at a round.
	saturated := used >= 1-0.5/float64(capacity) && !r.inBubble
	// Spares retire when the process keeps using every CPU it may while
	// goroutines wait for a P, at every round for retireAfter: more
	// compute than the Ps can run, so blocked tasks have resumed. As many
	// retire, at their next task boundary, as goroutines wait (at least
	// one); spares computing in place of workers still blocked keep the
	// CPUs busy but leave no goroutine waiting, and stay.
	waiting := 0
	if active > 0 && saturated {
		waiting = crowded
	}
	if waiting > 0 {
		if sp.crowdedSince.IsZero() {
			sp.crowdedSince = now
		} else if now.Sub(sp.crowdedSince) >= retireAfter {
			sp.surplus.Store(int32(min(waiting, active)))
		}
	} else {
		sp.crowdedSince = time.Time{}
		sp.surplus.Store(0)
	}
	// A spare for every blocked worker or spare not yet covered by one
	// that runs, while work is queued and the machine has room.
	want := blocked - look.othersSpares
	if want <= 0 || saturated || r.closed.Load() && r.active.Load() == 0 || !r.workQueued() {
		return false
	}
	if crowded > 0 {
		// A locked worker whose goroutine waits for a P sleeps like a
		// blocked one (a P is busy elsewhere, or the machine is loaded):
		// spares start only while no goroutine waits for one.
		return false
	}
	for ; want > 0 && r.activateSpare(); want-- {
		started = true // the spares may block in their first task
	}
	return started
}

// readProcessCPU is processCPU; tests count its calls.
var readProcessCPU = processCPU

// stallReportAfter is how long every worker and spare of a registry must
// have been blocked in tasks, with tasks queued, before the monitor says
// so (noteStall): far longer than any task blocks on I/O while the spares
// keep the pool going, short enough that a hung program says why.
const stallReportAfter = 2 * time.Second

// reportStall prints the monitor's stall report; tests replace it.
var reportStall = func(msg string) { fmt.Fprintln(os.Stderr, msg) }

// noteStall follows whether every worker and spare of the registry is
// blocked in a task while tasks are queued (stalled, with blocked of
// them), and reports it once per registry when it lasts for
// stallReportAfter. Every spare has started then, and blocked too: the
// pool can run nothing until a blocked task resumes. The common cause is
// a task that holds a lock across a fork or a wait, whose worker ran a
// queued task that waits for the same lock (rayon-rs/rayon#592); the
// report names Isolate, the remedy.
func (r *Registry) noteStall(now time.Time, stalled bool, blocked int) {
	sp := &r.spares
	if !stalled {
		sp.stallSince = time.Time{}
		return
	}
	if sp.stallSince.IsZero() {
		sp.stallSince = now
		return
	}
	if sp.stallReported || now.Sub(sp.stallSince) < stallReportAfter {
		return
	}
	sp.stallReported = true
	reportStall(fmt.Sprintf("spindle: pool %q: all %d of its workers and spares have been blocked in tasks for %v while tasks are queued. "+
		"If a task holds a lock while it forks or waits (Join, Scope, Group.Wait, forkjoin), its worker may have started a queued task "+
		"that waits for the same lock: fork under a lock inside pool.Isolate (see its doc).", r.name, blocked, now.Sub(sp.stallSince).Round(time.Second)))
}

// monitorMetrics reads what the monitor asks the Go runtime.
type monitorMetrics struct {
	sched    []metrics.Sample
	gc       []metrics.Sample
	gcCycles uint64 // the GC cycles completed, at the last readGC
}

func newMonitorMetrics() *monitorMetrics {
	return &monitorMetrics{
		sched: []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}},
		gc: []metrics.Sample{
			{Name: "/sched/pauses/total/gc:seconds"},
			{Name: "/gc/cycles/total:gc-cycles"},
		},
	}
}

// waitingForP returns how many goroutines are runnable, waiting for a P.
func (m *monitorMetrics) waitingForP() int {
	metrics.Read(m.sched)
	if v := m.sched[0].Value; v.Kind() == metrics.KindUint64 {
		return int(v.Uint64())
	}
	return 0
}

// readGC reads the GC's progress: it records the cycles completed and
// reports whether a cycle is marking now. Each cycle stops the world
// twice, when marking starts and when it ends, so the pauses counted are
// twice the cycles completed, plus one while a cycle marks. A goroutine
// may wait for the GC off its CPU while it marks, like a blocked task: an
// allocation whose assist found no work parks until the background
// workers catch up, and a goroutine whose stack is being scanned is
// suspended for the scan (milliseconds for a deep recursion).
func (m *monitorMetrics) readGC() (marking bool) {
	metrics.Read(m.gc)
	if m.gc[0].Value.Kind() != metrics.KindFloat64Histogram || m.gc[1].Value.Kind() != metrics.KindUint64 {
		return true
	}
	var pauses uint64
	for _, c := range m.gc[0].Value.Float64Histogram().Counts {
		pauses += c
	}
	m.gcCycles = m.gc[1].Value.Uint64()
	return pauses != 2*m.gcCycles
}
