// Command scale asks "will it scale?" of spindle's benchmark workloads: it
// runs each once under pool.Analyze, which executes every fork serially
// and times the strands between them, and prints the work, the span (the
// critical path), the parallelism (work/span), the burdened parallelism
// (each fork on the critical path charged one measured steal) and the
// speedup the work-span model predicts at 2, 8, 32 and 128 workers (a
// range: Brent's lower bound W/(W/P+S) to min(P, W/S)). It also times each
// workload on real pools of 1 and 2 workers, and draws the predicted
// curves with those measured points as an SVG (-svg).
//
//	go run ./bench/tools/scale [-fib 30] [-qsort 1000000] [-uts T1] [-graphn 262144] [-analyses 3] [-reps 2] [-svg docs/scale.svg]
//
// Each workload is analysed -analyses times and the smallest work and span
// kept: on a busy machine a preempted strand is longer by the time its
// thread waited, and preemptions only lengthen. Timed runs keep the best
// of -reps.
//
// Workloads:
//
//	fib       forkjoin.Call at every level (bench.FibCall): each strand is
//	          an add, so the analysis mostly measures the cost of a fork
//	fib-cut   the same with a serial cutoff (FibSerial below n=-fibcut)
//	quicksort forkjoin.Do on both halves of every partition (bench.QuicksortDo)
//	uts-T1... Unbalanced Tree Search with forkjoin.Call (bench.UTSCall)
//	graph     exploration of a random graph, a Scope.Spawn per node
//	          (bench.Explorer.Spawn)
//
// The first lines of the output say what the analysis costs: the analysed
// run's time (the best of the analyses) over the serial kernel's (the best
// of -reps), for fib with and without a cutoff.
// To look at the chart as a picture: rsvg-convert -z 1.5 docs/scale.svg -o
// /tmp/scale.png (Debian package librsvg2-bin).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spindle-go/spindle/bench"
	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// predictAt are the worker counts of the table's predicted speedups.
var predictAt = []int{2, 8, 32, 128}

// analyze is pool.AnalyzeCPU or pool.Analyze (-clock).
var analyze func(func()) pool.Analysis

// measureAt are the pool sizes timed for the chart's points.
var measureAt = []int{1, 2}

// workload is one row: a kernel to analyse and to time on pools.
type workload struct {
	name string
	what string // for the chart's panel heading
	// prep resets the input before every run (may be nil); run runs the
	// kernel on the calling worker (under Analyze, or inside Pool.Run);
	// serial is the kernel without forks, for the cost of the analysis.
	prep, run, serial func()
	check             func() error
}

// result is what scale reports for a workload.
type result struct {
	w        workload
	a        pool.Analysis
	analysed time.Duration         // the analysed run's wall time
	serial   time.Duration         // the serial kernel's best time
	measured map[int]time.Duration // best time on a pool of P workers
}

func main() {
	procsNote := bench.SizeGOMAXPROCS()
	fibN := flag.Int("fib", 30, "fib(n) for the fib workloads")
	fibCut := flag.Int("fibcut", 20, "serial cutoff of the fib-cut workload")
	qsortN := flag.Int("qsort", 1_000_000, "elements sorted by the quicksort workload")
	utsTrees := flag.String("uts", "T1", "UTS sample trees to analyse (comma-separated, T1 to T5; empty for none)")
	graphN := flag.Int("graphn", 1<<18, "nodes of the graph workload's random graph (mean degree 6, 8 hubs)")
	reps := flag.Int("reps", 2, "timed runs per measurement; the best is kept")
	analyses := flag.Int("analyses", 1, "analysed runs per workload; the smallest work and span are kept (worth more than 1 with -clock wall on a busy machine)")
	clock := flag.String("clock", "cpu", "what times the strands: cpu (pool.AnalyzeCPU, the analysis thread's CPU time) or wall (pool.Analyze)")
	svg := flag.String("svg", "", "write the chart to this SVG file")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: scale [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || *reps < 1 || *analyses < 1 || *fibN < 2 || *fibN > 40 || *fibCut < 2 || *qsortN < bench.MinCutoff || *graphN < 1 {
		flag.Usage()
		os.Exit(2)
	}
	analyze = pool.AnalyzeCPU
	switch *clock {
	case "cpu":
	case "wall":
		analyze = pool.Analyze
	default:
		fmt.Fprintf(os.Stderr, "scale: -clock %q: want cpu or wall\n", *clock)
		os.Exit(2)
	}
	var trees []*bench.UTSTree
	for _, name := range strings.Split(*utsTrees, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		t := lookupTree(name)
		if t == nil {
			fmt.Fprintf(os.Stderr, "scale: -uts: no sample tree %q (want T1 to T5)\n", name)
			os.Exit(2)
		}
		trees = append(trees, t)
	}

	workloads := []workload{fibWorkload(*fibN), fibCutWorkload(*fibN, *fibCut), quicksortWorkload(*qsortN)}
	for _, t := range trees {
		workloads = append(workloads, utsWorkload(t))
	}
	workloads = append(workloads, graphWorkload(*graphN))

	machine := bench.Machine()
	fmt.Printf("# machine: %s\n", machine)
	fmt.Printf("# strands timed with the %s clock (-clock)\n", *clock)
	if procsNote != "" {
		fmt.Printf("# %s\n", procsNote)
	}
	pools := make(map[int]*pool.Pool)
	for _, p := range measureAt {
		pl, err := pool.New(pool.WithWorkers(p))
		if err != nil {
			fail(err)
		}
		pools[p] = pl
	}
	var results []result
	for _, w := range workloads {
		r, err := measure(w, pools, *reps, *analyses)
		if err != nil {
			fail(fmt.Errorf("%s: %w", w.name, err))
		}
		results = append(results, r)
	}
	if len(results) > 0 {
		fmt.Printf("# steal cost charged per fork on the critical path (pool.StealCost): %v\n", results[0].a.StealCost)
	}
	for _, r := range results[:2] {
		fmt.Printf("# analysis cost, %s: %.1f ms analysed / %.1f ms serial = %.1fx\n",
			r.w.name, bench.Ms(r.analysed), bench.Ms(r.serial), float64(r.analysed)/float64(r.serial))
	}
	printTable(os.Stdout, results)
	if *svg != "" {
		name := "pool.AnalyzeCPU"
		if *clock == "wall" {
			name = "pool.Analyze"
		}
		if err := writeChart(*svg, results, machine, name); err != nil {
			fail(err)
		}
	}
}

// measure times w serially (after a warm-up run, which also warms the
// caches for what follows), analyses it and times it on each pool.
//
// A strand that the machine's other work preempts is longer by the time
// the thread waited, which can be milliseconds, and a preempted strand on
// the critical path lengthens the span by as much. Preemptions only
// lengthen, so of several analyses the smallest work and span are kept
// (the span's critical path with its number of forks).
func measure(w workload, pools map[int]*pool.Pool, reps, analyses int) (result, error) {
	r := result{w: w, measured: make(map[int]time.Duration)}
	times, err := bench.Time(1, reps, w.prep, w.serial, w.check)
	if err != nil {
		return r, fmt.Errorf("serial: %w", err)
	}
	r.serial = bench.Best(times)
	for i := range analyses {
		if w.prep != nil {
			w.prep()
		}
		start := time.Now()
		a := analyze(w.run)
		d := time.Since(start)
		if err := w.check(); err != nil {
			return r, fmt.Errorf("analysed: %w", err)
		}
		if i == 0 {
			r.a, r.analysed = a, d
			continue
		}
		r.analysed = min(r.analysed, d)
		r.a.Work = min(r.a.Work, a.Work)
		if a.Span < r.a.Span {
			r.a.Span, r.a.SpanForks = a.Span, a.SpanForks
		}
	}
	for p, pl := range pools {
		times, err := bench.Time(0, reps, w.prep, func() { pl.Run(w.run) }, w.check)
		if err != nil {
			return r, fmt.Errorf("%d workers: %w", p, err)
		}
		r.measured[p] = bench.Best(times)
	}
	return r, nil
}

func printTable(out io.Writer, results []result) {
	fmt.Fprintf(out, "%-10s %10s %10s %10s %10s %8s %8s", "workload", "forks", "work ms", "span ms", "parallel", "burdened", "T2/T1")
	for _, p := range predictAt {
		fmt.Fprintf(out, " %13s", fmt.Sprintf("P=%d", p))
	}
	fmt.Fprintln(out)
	for _, r := range results {
		a := r.a
		fmt.Fprintf(out, "%-10s %10d %10.2f %10.4f %10.1f %8.1f %8.2f", r.w.name, a.Forks,
			bench.Ms(a.Work), bench.Ms(a.Span), a.Parallelism(), a.BurdenedParallelism(),
			float64(r.measured[1])/float64(r.measured[2]))
		for _, p := range predictAt {
			lo, up := a.Speedup(p)
			fmt.Fprintf(out, " %13s", fmt.Sprintf("%.1f-%.1f", lo, up))
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, "parallel = work/span; burdened = work/(span + steal cost x forks on the critical path);")
	fmt.Fprintln(out, "T2/T1 = measured speedup of a 2-worker pool over a 1-worker pool; P=n: predicted speedup, lower-upper bound.")
}

func lookupTree(name string) *bench.UTSTree {
	for _, t := range bench.UTSSampleTrees {
		if strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

func fibWorkload(n int) workload {
	var got int64
	return workload{
		name: "fib", what: fmt.Sprintf("fib(%d), forkjoin.Call at every level", n),
		run:    func() { got = bench.FibCall(n) },
		serial: func() { got = bench.FibSerial(n) },
		check:  checkFib(n, &got),
	}
}

// fibCut forks with forkjoin.Call down to cutoff, then recurses serially.
func fibCut(n, cutoff int) int64 {
	if n < cutoff {
		return bench.FibSerial(n)
	}
	a, b := forkjoin.Call(func(m int) int64 { return fibCut(m, cutoff) }, n-1, n-2)
	return a + b
}

func fibCutWorkload(n, cutoff int) workload {
	var got int64
	return workload{
		name: "fib-cut", what: fmt.Sprintf("fib(%d), forkjoin.Call down to n=%d, serial below", n, cutoff),
		run:    func() { got = fibCut(n, cutoff) },
		serial: func() { got = bench.FibSerial(n) },
		check:  checkFib(n, &got),
	}
}

func checkFib(n int, got *int64) func() error {
	want := bench.FibExpected(n)
	return func() error {
		if *got != want {
			return fmt.Errorf("fib(%d) = %d, want %d", n, *got, want)
		}
		return nil
	}
}

func quicksortWorkload(n int) workload {
	s := make([]int64, n)
	var sum int64
	return workload{
		name: "quicksort", what: fmt.Sprintf("quicksort of %d int64s, forkjoin.Do on both halves", n),
		prep:   func() { sum = bench.Fill(s) },
		run:    func() { bench.QuicksortDo(s, bench.DefaultCutoff) },
		serial: func() { bench.QuicksortSerial(s, bench.DefaultCutoff) },
		check:  func() error { return bench.Check(s, sum) },
	}
}

func utsWorkload(t *bench.UTSTree) workload {
	var got int64
	return workload{
		name: "uts-" + t.Name, what: fmt.Sprintf("UTS %s (%d nodes), forkjoin.Call", t.Name, t.Want.Nodes),
		run:    func() { got = bench.UTSCall(t) },
		serial: func() { got = bench.UTSSerial(t).Nodes },
		check: func() error {
			if got != t.Want.Nodes {
				return fmt.Errorf("UTS %s: %d nodes, want %d", t.Name, got, t.Want.Nodes)
			}
			return nil
		},
	}
}

func graphWorkload(n int) workload {
	e := bench.NewExplorer(bench.NewGraph(n, 6, 8, bench.Seed), 0)
	e.Serial()
	want := e.Serial
	var got, ref bench.GraphResult
	e.Reset()
	ref = want()
	return workload{
		name: "graph", what: fmt.Sprintf("graph exploration, %d nodes, a Scope.Spawn per node", n),
		prep:   e.Reset,
		run:    func() { got = e.Spawn(pool.Current()) },
		serial: func() { got = e.Serial() },
		check: func() error {
			if got != ref {
				return fmt.Errorf("graph: %+v, want %+v", got, ref)
			}
			return nil
		},
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "scale:", err)
	os.Exit(1)
}
