package runtime

import (
	"sync/atomic"
	"unsafe"
)

// Runner is what a job runs. The records that carry jobs (join frames,
// spawned tasks, injected calls) implement it on their pointer type, so
// storing one in a Job does not allocate. Run's argument is the worker
// that runs the job: a task needs it (its free lists, its scope's
// counts), and passing it saves every task a lookup of the current
// worker, a visible part of a spawned task's cost in profiles.
type Runner interface{ Run(w *Worker) }

// Job is the unit the deques and the injector carry: a Runner plus the
// latch its waiter watches, if anyone waits for it.
//
// A Job that another thread may reach must not live on a goroutine stack:
// stacks move when they grow, and the thief would run a stale copy. Jobs
// live in heap records: per-worker frames reused across joins (see
// Worker.Enter), or records allocated per spawn or injection.
type Job struct {
	runner Runner
	// Latch is set by the runner when it finishes, for jobs whose owner
	// waits for them (joins). Others leave it alone.
	//
	// Invariant for reused records: the latch is unset whenever the record
	// is idle. A job taken back by its owner never touches its latch, so
	// only a stolen job's owner resets it, after the thief set it. That
	// keeps an atomic store off the fork path.
	Latch Latch
	// tag is the isolated region of the context that published j, 0 for
	// none (see isolate.go). The publisher writes it before j becomes
	// visible; a thief deciding whether to take j may read a record that
	// is being reused, hence the atomic (a store only when it changes).
	tag atomic.Uint64
	// lineage is, for a published join half, the lineage of the code that
	// forked it (lineage.go); nil otherwise.
	lineage *lineageEntry
	// labels are the profiler labels j runs with, taken from the
	// goroutine that made it runnable elsewhere (labels.go); nil for
	// none. Written before j is queued, read by whoever took it.
	labels unsafe.Pointer
}

// Init makes j run r and wakes owner (if it sleeps) when j's latch is set.
// Records call it once when created; the job can then be reused for any
// number of forks (see Latch for when to reset it).
func (j *Job) Init(r Runner, owner *Worker) {
	j.runner = r
	j.Latch.owner = owner
}

// run runs j on w, the current worker.
func (j *Job) run(w *Worker) { j.runner.Run(w) }

// setTag marks j as published in context tag.
func (j *Job) setTag(tag uint64) {
	if j.tag.Load() != tag {
		j.tag.Store(tag)
	}
}

// level returns j's priority level (0 for joins and plain spawns; see
// priority.go).
func (j *Job) level() int { return int(j.Latch.level) }

// setLevel sets j's priority level, before j is queued.
func (j *Job) setLevel(l int) { j.Latch.level = uint8(l) }
