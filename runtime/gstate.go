package runtime

import (
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Goroutine states: whether a worker's goroutine waits.
//
// The monitor (monitor.go) must tell a worker whose task blocks from one
// that computes or waits for a P; a thread's CPU clock and every progress
// count stop in all three cases (docs/design.md, "Seeing blocked tasks").
// The Go runtime's record of a goroutine (its g) holds a status word:
// waiting while parked (a channel, a lock, a sleep, the netpoller), in a
// system call, runnable while it waits for a P, running. Its offset is not
// exported and has moved between Go releases; the numbering has not since
// Go 1.0. findStatusOffset finds the offset once, by watching a goroutine
// it drives through known states, and accepts it only if every
// observation matches; if none does, goroutineState reports every
// goroutine running, so that no spare starts and no stall is reported (as
// where currentG is no g pointer: gid_other.go), and
// TestGoroutineStatesAreReadable fails on that Go release.
//
// The read is memory-safe: the runtime never frees a g (it reuses dead
// ones), so a pointer taken from Worker.g stays readable after its
// goroutine ends; at worst it reads a later goroutine's state for a round.

// The goroutine states the monitor reads, numbered as in the Go
// runtime's runtime2.go. statusScan is a bit the collector adds while it
// scans a goroutine's stack; the state is the rest.
const (
	statusRunnable = 1
	statusRunning  = 2
	statusSyscall  = 3
	statusWaiting  = 4
	statusScan     = 0x1000
)

// statusOffset is the offset of the status word in a g record, or 0 if
// none was found (0 is the stack's bounds, never the status).
var statusOffset = sync.OnceValue(findStatusOffset)

// A goroutine's state as the monitor sees it (goroutineState).
type gState uint8

const (
	gRunning  gState = iota // running, or anything else (unknown, dead)
	gRunnable               // waiting for a P
	gWaiting                // parked, or in a system call
)

// goroutineState returns the state of the goroutine whose g record is at
// gp (a Worker's g); gRunning where states cannot be read.
func goroutineState(gp uintptr) gState {
	off := statusOffset()
	if off == 0 || gp == 0 {
		return gRunning
	}
	switch loadStatus(gp, off) &^ statusScan {
	case statusWaiting, statusSyscall:
		return gWaiting
	case statusRunnable:
		return gRunnable
	}
	return gRunning
}

// goroutineBlocked reports whether the goroutine whose g record is at gp
// is parked or in a system call.
func goroutineBlocked(gp uintptr) bool { return goroutineState(gp) == gWaiting }

// canSeeGoroutines reports whether goroutineBlocked can tell: the
// monitor starts spares and reports stalls only then.
func canSeeGoroutines() bool { return statusOffset() != 0 }

// maxStatusOffset bounds the search: the word sits in the first few
// hundred bytes of a g record, which is larger than this.
const maxStatusOffset = 320

// findStatusOffset returns the offset of the status word in a g record,
// or 0. It runs once, on the first registry's start, and takes well under
// a millisecond when the offset is found.
func findStatusOffset() uintptr {
	if !haveGPointer {
		return 0
	}
	self := currentG()
	var candidates []uintptr
	for off := uintptr(4); off < maxStatusOffset; off += 4 {
		if loadStatus(self, off) == statusRunning {
			candidates = append(candidates, off)
		}
	}
	// A goroutine that waits on a channel, then spins, then waits on it
	// again; the word must read each state in turn.
	var (
		g       = make(chan uintptr)
		step    = make(chan struct{})
		spin    atomic.Bool
		stopped = make(chan struct{})
	)
	spin.Store(true)
	go func() {
		defer close(stopped)
		g <- currentG()
		<-step
		for spin.Load() {
		}
		<-step
	}()
	gp := <-g
	defer func() { spin.Store(false); close(step); <-stopped }()
	off := observe(gp, candidates, statusWaiting)
	if off == 0 {
		return 0
	}
	step <- struct{}{}
	if observe(gp, []uintptr{off}, statusRunnable, statusRunning) == 0 {
		return 0
	}
	spin.Store(false)
	return observe(gp, []uintptr{off}, statusWaiting)
}

// observe returns the first of offsets at which the status word of gp
// reads one of want, or 0 if none does within observeRounds yields (the
// goroutine observed may take a few turns to get there, or its thread
// may wait for a CPU). Yields, not a clock: in a synctest bubble the
// clock stands still while this runs. The bound is reached only when no
// offset matches, on a Go release that changed the states.
func observe(gp uintptr, offsets []uintptr, want ...uint32) uintptr {
	for range observeRounds {
		for _, off := range offsets {
			if slices.Contains(want, loadStatus(gp, off)&^statusScan) {
				return off
			}
		}
		goruntime.Gosched()
	}
	return 0
}

// observeRounds bounds observe's wait: about a second of yields.
const observeRounds = 5_000_000
