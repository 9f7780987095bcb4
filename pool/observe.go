package pool

import (
	"fmt"
	"strings"
	"time"

	"github.com/spindle-go/spindle/runtime"
)

// Stats is a snapshot of a pool's counters, cumulative since New (see
// Pool.Stats), and of its gauges (Queued, Idle, SparesRunning: what it
// holds now). None of them is counted on the fork path: they change where
// a worker steals, fails to steal, sleeps or runs a job it found.
type Stats struct {
	Workers int
	Steals  uint64 // jobs taken from another worker's deque
	// Executed counts jobs run that a worker took from a deque or the
	// injector (forks taken back are not counted). Each worker adds its
	// count in batches of 64 and whenever it runs out of work, so a busy
	// worker's count may lag by up to 63.
	Executed uint64
	Injected uint64 // jobs submitted from outside the pool
	// GuestCalls counts the calls from goroutines that are no worker that
	// ran on the calling goroutine (see WithGuests); the others were
	// injected.
	GuestCalls uint64
	Sleeps     uint64 // times a worker blocked
	Wakeups    uint64 // times a blocked worker was woken by another
	// PerWorker has each worker's counts, by index: the pool's workers,
	// then each spare that has run and each guest slot a caller has used
	// (WithSpares, WithGuests), in the order they were first needed.
	PerWorker []WorkerStats
	// MaxHelpDepth is the deepest any worker has nested jobs it took while
	// waiting (its main loop's job counts as 1), or ran in place of a job
	// it claimed because more urgent work was queued. Waits for stolen
	// join halves stop taking other workers' jobs at 64, and from there
	// priorities stop nesting more urgent work.
	MaxHelpDepth int
	// StealsByLevel splits Steals by the priority level of the stolen job
	// (0: joins and plain spawns).
	StealsByLevel [MaxPriority + 1]uint64
	// Inversions counts tasks started while a task of a higher priority
	// level was queued, where a worker could see it (see PriorityPolicy).
	Inversions uint64
	// SparesStarted counts the times a spare worker started (or started
	// again) in place of a worker whose task blocked, SparesRunning how
	// many run now, and BlockedTime is how long, in all, workers were
	// seen blocked in tasks (see WithSpares).
	SparesStarted uint64
	SparesRunning int
	BlockedTime   time.Duration
	// Queued and Idle are gauges, what the pool holds at the reading
	// (each count read once, while it may change): Queued the tasks
	// queued where workers can take them and not started (a bulk spawn's
	// part not yet divided counts as one, and a fork that its worker
	// keeps to itself until another looks counts as none), Idle how many
	// workers and spares are out of work, looking for it or asleep. A
	// pool whose Queued stays up while Idle is 0 runs behind its work.
	Queued, Idle int
}

// WorkerStats are one worker's counts, in Stats.PerWorker.
type WorkerStats struct {
	Executed    uint64 // jobs it took from a deque or the injector and ran (see Stats.Executed)
	Steals      uint64 // jobs it took from another worker's deque
	StealsEmpty uint64 // steal attempts that found the victim's deque empty
	StealsLost  uint64 // steal attempts that lost a race for an item
	Sleeps      uint64 // times it blocked
	Wakeups     uint64 // times another thread woke it
	// StealsByLevel splits Steals by priority level.
	StealsByLevel [MaxPriority + 1]uint64
	Inversions    uint64 // tasks it started while a higher level was queued
}

// String returns the counts on a line, then a line per worker, for logs.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d workers (%d idle, %d tasks queued): executed %d, steals %d, injected %d, sleeps %d, wakeups %d, max help depth %d",
		s.Workers, s.Idle, s.Queued, s.Executed, s.Steals, s.Injected, s.Sleeps, s.Wakeups, s.MaxHelpDepth)
	if s.Inversions != 0 || s.Steals != s.StealsByLevel[0] {
		fmt.Fprintf(&b, ", steals by level %v, inversions %d", s.StealsByLevel, s.Inversions)
	}
	if s.SparesStarted != 0 || s.BlockedTime != 0 {
		fmt.Fprintf(&b, ", spares started %d (running %d), blocked %v", s.SparesStarted, s.SparesRunning, s.BlockedTime)
	}
	for i, w := range s.PerWorker {
		fmt.Fprintf(&b, "\n  worker %d: executed %d, steals %d (failed: %d empty, %d lost), sleeps %d, wakeups %d",
			i, w.Executed, w.Steals, w.StealsEmpty, w.StealsLost, w.Sleeps, w.Wakeups)
	}
	return b.String()
}

// statsOf is the snapshot of r's counters. WorkerStats is converted from
// the engine's worker counts, which compiles only while the two have the
// same fields: a counter the engine adds cannot be left out here.
func statsOf(r *runtime.Registry) Stats {
	c := r.Counts()
	st := Stats{Workers: r.Workers(), Injected: c.Injected, GuestCalls: c.GuestCalls, MaxHelpDepth: c.MaxHelpDepth,
		Steals: c.Total.Steals, Executed: c.Total.Executed, Sleeps: c.Total.Sleeps, Wakeups: c.Total.Wakeups,
		StealsByLevel: c.Total.StealsByLevel, Inversions: c.Total.Inversions,
		PerWorker: make([]WorkerStats, len(c.Workers))}
	for i, w := range c.Workers {
		st.PerWorker[i] = WorkerStats(w)
	}
	st.SparesRunning, st.SparesStarted, st.BlockedTime = r.Spares()
	st.Queued, st.Idle = r.Gauges()
	return st
}

// Event is one entry of a pool's trace (WithTrace).
type Event struct {
	Kind   EventKind
	Worker int // the worker that stole, went to sleep or was woken; the spare that started or retired
	Victim int // for EventSteal, the worker stolen from; otherwise -1
	// Waker is, for EventWake, the worker of the pool that woke Worker,
	// or -1 when the waker was not one of them (a goroutine outside the
	// pool, Close); otherwise -1.
	Waker int
}

// String describes the event in words ("worker 1 stole from worker 0").
func (e Event) String() string {
	switch {
	case e.Kind == EventSteal:
		return fmt.Sprintf("worker %d stole from worker %d", e.Worker, e.Victim)
	case e.Kind == EventWake && e.Waker >= 0:
		return fmt.Sprintf("worker %d: wake (by worker %d)", e.Worker, e.Waker)
	}
	return fmt.Sprintf("worker %d: %v", e.Worker, e.Kind)
}

// EventKind says what an Event reports.
type EventKind uint8

// The kinds of Event.
const (
	EventSteal       EventKind = iota + 1 // Worker took a job from Victim's deque
	EventSleep                            // Worker found no work and is about to block
	EventWake                             // Worker, blocked, was woken
	EventSpareStart                       // Worker, a spare, started in place of a worker whose task blocked (WithSpares)
	EventSpareRetire                      // Worker, a spare, retired
)

// The kinds are the engine's values, which traceOf passes on unconverted:
// these declarations compile only while the two lists agree.
var (
	_ [0]struct{} = [EventSteal - EventKind(runtime.EventSteal)]struct{}{}
	_ [0]struct{} = [EventSleep - EventKind(runtime.EventSleep)]struct{}{}
	_ [0]struct{} = [EventWake - EventKind(runtime.EventWake)]struct{}{}
	_ [0]struct{} = [EventSpareStart - EventKind(runtime.EventSpareStart)]struct{}{}
	_ [0]struct{} = [EventSpareRetire - EventKind(runtime.EventSpareRetire)]struct{}{}
)

// String returns "steal", "sleep", "wake", "spare start" or "spare retire".
func (k EventKind) String() string { return runtime.EventKind(k).String() }

// traceOf adapts a trace function to the engine's events (one closure,
// made once by WithTrace).
func traceOf(f func(Event)) func(kind runtime.EventKind, worker, victim, waker int) {
	if f == nil {
		return nil
	}
	return func(kind runtime.EventKind, worker, victim, waker int) {
		f(Event{Kind: EventKind(kind), Worker: worker, Victim: victim, Waker: waker})
	}
}
