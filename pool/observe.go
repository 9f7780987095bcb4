package pool

import "github.com/spindle-go/spindle/runtime"

// Stats is a snapshot of a pool's counters, cumulative since New (see
// Pool.Stats). None of them is counted on the fork path: they change where
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
	Sleeps   uint64 // times a worker blocked
	Wakeups  uint64 // times a blocked worker was woken by another
	// PerWorker has each worker's counts, by index.
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
func (s Stats) String() string { return engineStats(s).String() }

// engineStats is the engine's snapshot type under pool's WorkerStats.
// Stats converts to and from it, and WorkerStats is the engine's worker
// counts type: both conversions compile only while pool's fields are the
// engine's, so a counter the engine adds cannot be left out here.
type engineStats = runtime.StatsOf[WorkerStats]

// statsOf is the snapshot of r's counters.
func statsOf(r *runtime.Registry) Stats { return Stats(runtime.ReadStats[WorkerStats](r)) }

// Event is one entry of a pool's trace (WithTrace).
type Event struct {
	Kind   EventKind
	Worker int // the worker that stole, went to sleep or was woken
	Victim int // for EventSteal, the worker stolen from; otherwise -1
	// Waker is, for EventWake, the worker of the pool that woke Worker,
	// or -1 when the waker was not one of them (a goroutine outside the
	// pool, Close); otherwise -1.
	Waker int
}

// String describes the event in words ("worker 1 stole from worker 0").
func (e Event) String() string {
	return runtime.Event{Kind: runtime.EventKind(e.Kind), Worker: e.Worker, Victim: e.Victim, Waker: e.Waker}.String()
}

// EventKind says what an Event reports.
type EventKind uint8

// The kinds of Event.
const (
	EventSteal EventKind = iota + 1 // Worker took a job from Victim's deque
	EventSleep                      // Worker found no work and is about to block
	EventWake                       // Worker, blocked, was woken
)

// The kinds are the engine's values, which traceOf passes on unconverted:
// these declarations compile only while the two lists agree.
var (
	_ [0]struct{} = [EventSteal - EventKind(runtime.EventSteal)]struct{}{}
	_ [0]struct{} = [EventSleep - EventKind(runtime.EventSleep)]struct{}{}
	_ [0]struct{} = [EventWake - EventKind(runtime.EventWake)]struct{}{}
)

// String returns "steal", "sleep" or "wake".
func (k EventKind) String() string { return runtime.EventKind(k).String() }

// traceOf adapts a trace function to the engine's events (one closure,
// made once by WithTrace).
func traceOf(f func(Event)) func(runtime.Event) {
	if f == nil {
		return nil
	}
	return func(e runtime.Event) {
		f(Event{Kind: EventKind(e.Kind), Worker: e.Worker, Victim: e.Victim, Waker: e.Waker})
	}
}
