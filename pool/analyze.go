package pool

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/spindle-go/spindle/runtime"
)

// Analysis is the work and span of a fork-join computation, measured by
// Analyze, and what they predict about its speedup on more workers (the
// work-span model; Cilkview and Cilkscale report the same quantities).
type Analysis struct {
	// Work is the total time of all strands: about the serial running
	// time, plus the cost of spindle's forks.
	Work time.Duration
	// Span is the length of the critical path: the longest chain of
	// strands that must run one after the other. No number of workers
	// runs the computation faster.
	Span time.Duration
	// Forks counts the forks and spawns (Join, Scope.Spawn, each split of
	// a SpawnMany or forkjoin.For, Submit, forkjoin.Call, ...).
	Forks int64
	// SpanForks counts the forks on the critical path: the steals that
	// could delay it.
	SpanForks int64
	// StealCost is what one steal is assumed to cost on the critical path
	// in the burdened figures. Analyze sets it to StealCost, the constant;
	// set it to another value to see the burdened figures for it.
	StealCost time.Duration
}

// String summarises the analysis on one line: work, span, parallelism,
// forks (those on the span) and the burdened parallelism, as in
// "work 3.2ms, span 800µs, parallelism 4.00, 28656 forks (3 on the span),
// burdened parallelism 3.99".
func (a Analysis) String() string {
	return fmt.Sprintf("work %v, span %v, parallelism %.2f, %d forks (%d on the span), burdened parallelism %.2f",
		a.Work, a.Span, a.Parallelism(), a.Forks, a.SpanForks, a.BurdenedParallelism())
}

// Parallelism is Work / Span: the most speedup any number of workers can
// give (1 if nothing was measured).
func (a Analysis) Parallelism() float64 { return ratio(a.Work, a.Span) }

// Speedup bounds the speedup over one worker that a greedy scheduler
// (work stealing is one, within a constant) gets with the given number of
// workers P, from W = Work and S = Span:
//
//	W / (W/P + S) <= speedup <= min(P, W/S)
//
// The lower bound is Brent's: a greedy schedule takes at most W/P + S. It
// ignores the cost of steals; see BurdenedSpeedup. workers < 1 panics.
func (a Analysis) Speedup(workers int) (lower, upper float64) {
	return speedup("pool.Analysis.Speedup", a.Work, a.Span, workers)
}

// BurdenedSpan is Span + StealCost * SpanForks: the critical path if
// every fork on it were stolen, each steal costing StealCost (Cilkscale's
// "burdened span").
func (a Analysis) BurdenedSpan() time.Duration {
	return a.Span + time.Duration(a.SpanForks)*a.StealCost
}

// BurdenedParallelism is Work / BurdenedSpan: the parallelism left once
// steals are paid for. Much below Parallelism, it says the forks are too
// fine to pay for moving them between workers (coarsen the leaves).
func (a Analysis) BurdenedParallelism() float64 { return ratio(a.Work, a.BurdenedSpan()) }

// BurdenedSpeedup is Speedup with BurdenedSpan for Span:
//
//	W / (W/P + B) <= speedup <= min(P, W/B)
//
// a more realistic prediction for computations whose strands are short.
func (a Analysis) BurdenedSpeedup(workers int) (lower, upper float64) {
	return speedup("pool.Analysis.BurdenedSpeedup", a.Work, a.BurdenedSpan(), workers)
}

func ratio(w, s time.Duration) float64 {
	if s <= 0 || w <= 0 {
		return 1
	}
	return float64(w) / float64(s)
}

func speedup(call string, w, s time.Duration, p int) (lower, upper float64) {
	if p < 1 {
		panic(call + ": want at least 1 worker")
	}
	if w <= 0 || s <= 0 {
		return 1, 1
	}
	wf, sf, pf := float64(w), float64(s), float64(p)
	return wf / (wf/pf + sf), math.Min(pf, wf/sf)
}

// Analyze runs f once and measures its work and span: how parallel the
// fork-join computation f performs is, whatever the machine it runs on.
//
// f runs on a worker of its own with every fork executed serially in
// place: pool.Join, Pool.Join, Scope.Spawn, SpawnMany, Submit, Group.Go,
// and the forkjoin functions, on any pool (calls on other pools and on
// Default run there too, and are counted), each strand between two forks
// or joins timed on its own. The analysis knows the DAG of the
// computation, not one schedule of it, so one run predicts the speedup on
// any number of workers (see Analysis). Forks cost more than usual while
// f runs (each is timed), so give the leaves of f some work: per-fork
// cost is counted in Work and Span. Nothing changes outside Analyze:
// forks elsewhere never look at it.
//
// Not analysed: goroutines f starts itself (their forks run on the
// default pool, untimed), and the work of a function given to Block,
// which runs on a goroutine while the analysis worker runs queued forks,
// as a worker does (the span is then approximate). A spawned task taken
// back by a fork it does not belong to (a task of an enclosing scope
// spawned inside the first half of a join) is counted as joining that
// fork, which can over-estimate Span slightly. Inside f, Current and
// Default are the analysis worker's pool (Default does not start there),
// whose Workers reports 128 and WorkerIndex 0:
// code that sizes its pieces by the number of workers (forkjoin's Map,
// Scan, Filter...) splits as for 128 workers, so the analysis sees the
// parallelism such code has on a large machine. Do not keep that pool, or
// close it.
//
// Analyses run one at a time. Analyze inside f panics; from a worker of a
// pool, the worker keeps serving its pool while f runs (like Pool.Run). A
// panic in f is re-raised as a *PanicError after every task f started has
// finished. f's results are f's: Analyze returns once f has returned.
func Analyze(f func()) Analysis {
	if f == nil {
		nilFunc("pool.Analyze")
	}
	return analyze("pool.Analyze", f, false)
}

// AnalyzeCPU is Analyze with every strand timed in the CPU time of the
// analysis thread (on Linux; elsewhere it is Analyze): time the thread
// spent waiting for a CPU while the machine's other work ran does not
// count. Use it on a busy machine. With Analyze, a strand preempted there
// is longer by the time its thread waited, often milliseconds; in a
// parallel computation some strand of nearly every path is preempted in
// a long run, so the span grows by about the longest such wait, whatever
// the computation.
//
// The price is a system call per timestamp, much slower than a reading of
// the wall clock: forks cost more during the analysis, and time spent
// blocked (in Block, on a lock) is not counted. docs/scale.md in the
// repository has the figures. The figures do not
// include the extra cost: strands are timed between the calls.
func AnalyzeCPU(f func()) Analysis {
	if f == nil {
		nilFunc("pool.AnalyzeCPU")
	}
	return analyze("pool.AnalyzeCPU", f, true)
}

// analyze is Analyze, timing strands in the analysis thread's CPU time if
// cpuTime is set (on Linux; see runtime.Analyze).
func analyze(call string, f func(), cpuTime bool) Analysis {
	analysisOnce.Do(func() {
		r := runtime.AnalysisRegistry(panicValue{})
		setOwner(r, &Pool{reg: r})
	})
	a := runtime.Analyze(call, f, cpuTime, panicValue{})
	return Analysis{Work: a.Work, Span: a.Span, Forks: a.Forks, SpanForks: a.SpanForks,
		StealCost: StealCost}
}

var analysisOnce sync.Once

// StealCost is the cost of a steal that Analyze charges per fork on the
// critical path (Analysis.StealCost): the time from a worker publishing a
// job to another worker, already looking for work, starting it, as
// measured on an idle machine and rounded (docs/scale.md has the
// measurement). It is a constant, not measured at Analyze time, because
// on a busy machine the measurement is the scheduler's delay, not a
// steal's; Cilkscale's burden is a constant too.
const StealCost = 1 * time.Microsecond
