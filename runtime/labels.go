package runtime

import (
	_ "runtime/pprof" // the label hooks below are its
	"unsafe"
)

// Profiler labels: a task runs with the labels of the goroutine that
// started it, as a goroutine does.
//
// A program splits its CPU profile by request with pprof.Do; goroutines
// inherit their creator's labels, so work a handler fans out to
// goroutines stays labelled. A task runs on a worker, whose goroutine
// carries the pool's own labels (setLabels), so without this a profile
// could not say which request a task's samples belong to.
//
// A job records the labels of the goroutine that made it runnable by
// another goroutine (takeLabels): a spawned task, bulk part or future when
// it is queued, a call from outside when it is injected, a join half when
// it is published (its forker's labels at that moment, which differ from
// those at the fork only if the forker changed its labels in between, as
// inside a pprof.Do entered after the fork). Jobs moved from one queue to
// another keep theirs. A worker that runs a job whose labels are not the
// ones it carries sets them for the job and puts its own back afterwards
// (executeAt); a job made by an unlabelled goroutine runs with the
// worker's own. Where no labels are set every job carries the worker's
// labels or none, and the cost is the label load at publication and a
// compare per job run.
//
// Go exports no way to read a goroutine's labels; runtime/pprof reaches
// them through two hooks the Go runtime provides for it (and that Go keeps
// for programs that link to them, as this file does). The alternatives:
// a context carried to every task would reach only the calls given one,
// and pprof.Do around every task costs a context and an allocation.

//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

//go:linkname setProfLabel runtime/pprof.runtime_setProfLabel
func setProfLabel(labels unsafe.Pointer)

// takeLabels records the calling goroutine's labels as j's.
func (j *Job) takeLabels() { j.labels = getProfLabel() }

// adoptLabels makes the calling goroutine's current labels w's own: at a
// worker's start, after setLabels, and when a guest arrives.
func (w *Worker) adoptLabels() {
	w.ownLabels = getProfLabel()
	w.labels = w.ownLabels
}

// executeLabelled runs j with labels set on w's goroutine, then restores
// the labels w carried.
func (w *Worker) executeLabelled(j *Job, level int, labels unsafe.Pointer) {
	prev := w.labels
	setProfLabel(labels)
	w.labels = labels
	w.executeIn(j, level)
	setProfLabel(prev)
	w.labels = prev
}
