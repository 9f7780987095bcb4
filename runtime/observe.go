package runtime

import (
	"context"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
)

// Observability: profiler labels on the worker goroutines, per-worker
// counters (Registry.Counts) and an optional event trace (Config.Trace).
// None of it is on the fork path: counters and trace hooks sit where a
// worker steals, fails to steal or sleeps, which only happens when it has
// run out of its own work.

// EventKind says what an entry of the trace (Config.Trace) reports.
type EventKind uint8

const (
	// EventSteal: worker took a job from victim's deque.
	EventSteal EventKind = iota + 1
	// EventSleep: worker found no work and is about to block.
	EventSleep
	// EventWake: worker, which was blocked, was woken by another thread.
	EventWake
	// EventSpareStart: worker, a spare, started in place of a worker
	// whose task blocked (spares.go); on the monitor's goroutine.
	EventSpareStart
	// EventSpareRetire: worker, a spare, retired.
	EventSpareRetire
)

func (k EventKind) String() string {
	switch k {
	case EventSteal:
		return "steal"
	case EventSleep:
		return "sleep"
	case EventWake:
		return "wake"
	case EventSpareStart:
		return "spare start"
	case EventSpareRetire:
		return "spare retire"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// WorkerStats are one worker's cumulative counts (Counts.Workers), or
// their sums (Counts.Total). pool's WorkerStats is a type of the same
// fields, converted from this one: the conversion compiles only while the
// two lists agree, so a counter added here cannot be left out there.
type WorkerStats struct {
	// Executed counts jobs it took from a deque or the injector and ran
	// (forks taken back are not counted), added in batches of
	// executedBatch and whenever it runs out of work.
	Executed    uint64
	Steals      uint64 // jobs it took from another worker's deque
	StealsEmpty uint64 // steal attempts that found the victim's deque empty
	StealsLost  uint64 // steal attempts that lost a race for an item (deque.Retry)
	Sleeps      uint64 // times it blocked
	Wakeups     uint64 // times another thread woke it
	// StealsByLevel splits Steals by priority level.
	StealsByLevel [MaxPriority + 1]uint64
	Inversions    uint64 // tasks it started while a higher level was queued
}

// add adds w's counts to s's.
func (s *WorkerStats) add(w *WorkerStats) {
	s.Executed += w.Executed
	s.Steals += w.Steals
	s.StealsEmpty += w.StealsEmpty
	s.StealsLost += w.StealsLost
	s.Sleeps += w.Sleeps
	s.Wakeups += w.Wakeups
	for l, n := range w.StealsByLevel {
		s.StealsByLevel[l] += n
	}
	s.Inversions += w.Inversions
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
		t(EventSteal, w.index, victim, -1)
	}
}
