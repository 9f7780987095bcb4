package runtime

import (
	"context"
	"fmt"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
)

// Observability: profiler labels on the worker goroutines, per-worker
// counters (Stats.PerWorker) and an optional event trace (Config.Trace).
// None of it is on the fork path: counters and trace hooks sit where a
// worker steals, fails to steal or sleeps, which only happens when it has
// run out of its own work.

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventSteal: Worker took a job from Victim's deque.
	EventSteal EventKind = iota + 1
	// EventSleep: Worker found no work and is about to block.
	EventSleep
	// EventWake: Worker, which was blocked, was woken by another thread.
	EventWake
)

func (k EventKind) String() string {
	switch k {
	case EventSteal:
		return "steal"
	case EventSleep:
		return "sleep"
	case EventWake:
		return "wake"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one entry of the trace (Config.Trace).
type Event struct {
	Kind   EventKind
	Worker int // the worker that stole, went to sleep or was woken
	Victim int // for EventSteal, the worker stolen from; otherwise -1
	// Waker is, for EventWake, the worker of the same registry that woke
	// Worker, or -1 when the waker was not one of them (a goroutine
	// outside the pool, Close); otherwise -1. The wake-ups of a burst of
	// work form a tree rooted outside the pool, and a worker's depth in it
	// is how many wake-ups in a row it took to reach it.
	Waker int
}

func (e Event) String() string {
	switch {
	case e.Kind == EventSteal:
		return fmt.Sprintf("worker %d stole from worker %d", e.Worker, e.Victim)
	case e.Kind == EventWake && e.Waker >= 0:
		return fmt.Sprintf("worker %d: wake (by worker %d)", e.Worker, e.Waker)
	}
	return fmt.Sprintf("worker %d: %v", e.Worker, e.Kind)
}

// WorkerStats are one worker's cumulative counts.
type WorkerStats workerStats

// workerStats is WorkerStats's fields, the one list of them: a type whose
// underlying type is this struct (WorkerStats, pool's) can be StatsOf's W.
type workerStats = struct {
	Executed    uint64 // jobs it took from a deque or the injector and ran (see Stats.Executed)
	Steals      uint64 // jobs it took from another worker's deque
	StealsEmpty uint64 // steal attempts that found the victim's deque empty
	StealsLost  uint64 // steal attempts that lost a race for an item (deque.Retry)
	Sleeps      uint64 // times it blocked
	Wakeups     uint64 // times another thread woke it
	// StealsByLevel splits Steals by priority level.
	StealsByLevel [MaxPriority + 1]uint64
	Inversions    uint64 // tasks it started while a higher level was queued
}

// workerCounts is the constraint of StatsOf's W.
type workerCounts interface{ ~workerStats }

// String returns the counts on one line, then a line per worker, for logs.
func (s StatsOf[W]) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d workers: executed %d, steals %d, injected %d, sleeps %d, wakeups %d, max help depth %d",
		s.Workers, s.Executed, s.Steals, s.Injected, s.Sleeps, s.Wakeups, s.MaxHelpDepth)
	if s.Inversions != 0 || s.Steals != s.StealsByLevel[0] {
		fmt.Fprintf(&b, ", steals by level %v, inversions %d", s.StealsByLevel, s.Inversions)
	}
	for i, pw := range s.PerWorker {
		w := workerStats(pw)
		fmt.Fprintf(&b, "\n  worker %d: executed %d, steals %d (failed: %d empty, %d lost), sleeps %d, wakeups %d",
			i, w.Executed, w.Steals, w.StealsEmpty, w.StealsLost, w.Sleeps, w.Wakeups)
	}
	return b.String()
}

// registries numbers registries for their default names.
var registries atomic.Uint64

// setLabels gives the calling worker goroutine the profiler labels
// spindle.pool (the registry's name) and spindle.worker (its index), so a
// CPU profile splits the pool's time by worker. Goroutines the worker
// starts inherit them.
func (w *Worker) setLabels() {
	ctx := pprof.WithLabels(context.Background(),
		pprof.Labels("spindle.pool", w.reg.name, "spindle.worker", strconv.Itoa(w.index)))
	pprof.SetGoroutineLabels(ctx)
}

// traceSteal reports a steal to the trace, if there is one.
func (w *Worker) traceSteal(victim int) {
	if t := w.reg.trace; t != nil {
		t(Event{Kind: EventSteal, Worker: w.index, Victim: victim, Waker: -1})
	}
}
