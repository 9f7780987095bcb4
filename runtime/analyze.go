package runtime

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/spindle-go/spindle/deque"
)

// Work-span analysis (pool.Analyze).
//
// Analyze runs a function on a private registry of one worker, the
// analysis worker, whose public deque is an analysisDeque. It uses the
// research hook for deque variants (Research.Deque), so the default fork
// path has no branch for it: a worker with a variant publishes every job
// at once (its offer flag stays set, and the slow path hands the job to
// the variant's TryPush), and takes every job back through
// runOwn, which pops the variant. So every fork and spawn of the
// function reaches analysisDeque.TryPush, and every take-back
// analysisDeque.Pop; the deque runs what it pops in place, serially, and
// times the strands in between, as Cilkview and Cilkscale do.
//
// Strand timing. cur is the length of the longest path of the DAG that
// ends where the program is now; strandStart is when the current strand
// (the code since the last fork, pop or join) began. Closing a strand at
// time t adds t-strandStart to the work and to cur. The bookkeeping
// between two strands falls outside both: a strand is closed with the
// event's first timestamp and the next one opened with its last.
//
// The clock's own cost is subtracted: a strand measured from one reading
// to the next also holds the end of the call that opened it and the start
// of the call that closes it, about one call's time, which is what two
// readings back to back are apart (overhead, the median of 15, measured
// at the start of each analysis; reading the thread's CPU time, a system
// call, costs much more than the wall clock: docs/scale.md). A strand is
// never counted below zero.
//
//   - A push (fork or spawn) ends the strand; the job is recorded with the
//     path length at that point (its start) and the continuation goes on
//     from there.
//   - A pop runs the newest job right there from its start path and
//     merges its end into cur with a max: the join of the job and the
//     code that took it back.
//
// A job whose latch has an owner is a fork's second half (a closureFrame,
// or forkjoin's callFrame or thunkFrame): popping it is its take-back, so after running it Pop
// returns nil, runOwn reports "not found" and the fork reads the
// result from its record, as it does when a thief ran the job (the latch
// is already set, so TakeBack's wait returns at once). Any other job
// (a spawned task, a bulk-spawn part, a future, a detached task) was run
// on the way; Pop returns analysisNoop, which the caller runs as if it had
// been the job, and keeps popping. Joins nest strictly, so the first join
// half a take-back pops is its own.
//
// Waits other than take-backs (a scope's, a group's) must not pop jobs
// older than what they wait for: the analysis worker checks their end
// after every job (waitScope, waitGroup).
//
// Approximation: a spawned task popped by an unrelated take-back (a task
// of an enclosing scope, spawned inside the first half of a fork, is
// newer than the fork's second half) joins that fork's continuation
// rather than its scope's end, which over-estimates the span a little.
//
// Len reports 0 always, so that bulk spawns (batch.go's exposesNothing)
// split before every task: the analysed DAG is the most parallel one the
// runtime's splitting rule allows, not the one-worker schedule.
type analysisDeque struct {
	w     *Worker
	stack []analysisEntry
	epoch time.Time
	// cpu makes strands timed in the thread's CPU time (threadCPUTime)
	// instead of the wall clock's: a preempted strand then counts only
	// the time it ran, at the cost of a system call per timestamp.
	cpu bool
	// overhead is subtracted from every strand (see above).
	overhead int64
	// All in nanoseconds since epoch or as lengths.
	strandStart int64
	cur         int64 // longest path ending here
	curForks    int64 // forks on that path
	work        int64
	forks       int64
}

type analysisEntry struct {
	job   *Job
	start int64 // path length at the fork
	forks int64 // forks on that path, this one included
}

func (d *analysisDeque) now() int64 {
	if d.cpu {
		t, _ := threadCPUTime()
		return t
	}
	return int64(time.Since(d.epoch))
}

// closeStrand ends the current strand now.
func (d *analysisDeque) closeStrand() {
	t := max(0, d.now()-d.strandStart-d.overhead)
	d.work += t
	d.cur += t
}

// openStrand starts a strand now.
func (d *analysisDeque) openStrand() { d.strandStart = d.now() }

func (d *analysisDeque) TryPush(j *Job) bool {
	d.closeStrand()
	d.stack = append(d.stack, analysisEntry{job: j, start: d.cur, forks: d.curForks + 1})
	d.forks++
	d.openStrand()
	return true
}

func (d *analysisDeque) Pop() *Job {
	n := len(d.stack)
	if n == 0 {
		return nil
	}
	d.closeStrand()
	e := d.stack[n-1]
	d.stack[n-1] = analysisEntry{}
	d.stack = d.stack[:n-1]
	join := e.job.Latch.owner != nil // read before the job may release its record
	cur, curForks := d.cur, d.curForks
	d.cur, d.curForks = e.start, e.forks
	d.openStrand()
	d.w.execute(e.job)
	d.closeStrand()
	if d.cur < cur {
		d.cur, d.curForks = cur, curForks
	}
	d.openStrand()
	if join {
		return nil
	}
	return &analysisNoop
}

func (d *analysisDeque) Steal() (*Job, deque.StealResult) {
	panic("runtime: internal error: steal from the analysis worker's deque")
}

func (d *analysisDeque) Len() int { return 0 }

// begin starts an analysis, on the given clock: one strand, from now.
func (d *analysisDeque) begin(cpu bool) {
	_, ok := threadCPUTime()
	d.epoch, d.cpu = time.Now(), cpu && ok
	var deltas [15]int64
	prev := d.now()
	for i := range deltas {
		t := d.now()
		deltas[i], prev = t-prev, t
	}
	slices.Sort(deltas[:])
	d.overhead = deltas[len(deltas)/2]
	d.cur, d.curForks, d.work, d.forks = 0, 0, 0, 0
	d.strandStart = d.now()
}

// end closes the last strand, runs what the function left queued
// (detached tasks, futures nobody waited for: they still belong to its
// DAG), and returns the totals.
func (d *analysisDeque) end() Analysis {
	for len(d.stack) > 0 {
		d.Pop()
	}
	d.closeStrand()
	return Analysis{Work: time.Duration(d.work), Span: time.Duration(d.cur),
		Forks: d.forks, SpanForks: d.curForks}
}

// analysisNoop is what Pop returns after running a job that was not a
// join half: a job that does nothing.
var analysisNoop = Job{runner: noopRunner{}}

type noopRunner struct{}

func (noopRunner) Run(*Worker) {}

// Analysing reports whether w is the analysis worker, on which every call
// made inside Analyze's function, on any registry, runs in place.
func (w *Worker) Analysing() bool { return w.analysing }

// Analysis is what Analyze measured.
type Analysis struct {
	Work  time.Duration // the sum of all strands
	Span  time.Duration // the longest path
	Forks int64         // forks and spawns
	// SpanForks is the number of forks on the longest path: the possible
	// steals that could delay it.
	SpanForks int64
}

var analysis struct {
	once sync.Once
	reg  *Registry
	mu   sync.Mutex // one analysis at a time
}

// AnalysisWorkers is what the analysis registry's Workers reports: code
// that sizes its pieces by the number of workers (forkjoin's Map, Scan,
// Filter, ...) splits as it would on a pool of that many, the most the
// predictions of pool.Analysis are usually asked about, rather than as
// on one worker, which would leave nothing parallel to analyse. Worker
// indices stay 0.
const AnalysisWorkers = 128

// AnalysisRegistry returns the registry of the analysis worker, started on
// first use, with pv for its PanicValue, and never closed (one worker,
// asleep when unused). The worker stands in for every registry, so pv
// must be theirs.
func AnalysisRegistry(pv PanicValue) *Registry {
	analysis.once.Do(func() {
		r, err := NewRegistry(Config{Workers: 1, Name: "spindle-analysis", PanicValue: pv,
			Priority: PriorityOblivious, analysis: true,
			Research: Research{Deque: func() deque.Deque[Job] { return &analysisDeque{} }}})
		if err != nil {
			panic(fmt.Sprintf("runtime: analysis registry: %v", err))
		}
		r.reportWorkers = AnalysisWorkers
		analysis.reg = r
		KeepForGood(r)
	})
	return analysis.reg
}

// Analyze runs f once on the analysis worker with every fork executed
// serially in place, and returns the work and span of its DAG. Strands
// are timed with the wall clock, or, if cpuTime is set and the platform
// has it (Linux), with the analysis thread's CPU time, which a busy
// machine's preemptions do not inflate but which costs a system call per
// timestamp. Calls f
// makes on any registry run on the analysis worker (Worker.analysing).
// f's panic is re-raised as a *PanicError, as pv shows it (see
// AnalysisRegistry). call names the public function
// for the panic of a nested call.
//
// Analyses are serialised; one from inside f panics (it would wait for
// itself). From a worker of another registry the caller serves its own
// registry while f runs, like Registry.Run, but blocks its thread while
// another analysis is in progress.
func Analyze(call string, f func(), cpuTime bool, pv PanicValue) Analysis {
	if w := CurrentWorker(); w != nil && w.analysing {
		panic(call + ": called inside an analysis (Analyze does not nest)")
	}
	r := AnalysisRegistry(pv)
	analysis.mu.Lock()
	defer analysis.mu.Unlock()
	var res Analysis
	r.Run(call, func() {
		d := CurrentWorker().variant.(*analysisDeque)
		d.begin(cpuTime)
		defer func() { res = d.end() }()
		f()
	})
	return res
}
