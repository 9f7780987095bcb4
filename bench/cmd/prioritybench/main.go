// Command prioritybench measures spindle's priority levels and a graph
// exploration, and prints two markdown tables of medians over -reps runs
// (after -warmup untimed ones), with the machine and the command line on
// top.
//
//	go run ./bench/cmd/prioritybench [-reps 5] [-only priority|graph]
//
// Priority scenarios (bench.PriorityScenarios: equal, random, skewed,
// unequal, bulk; -tasks tasks of -micros µs of busy work) run under every
// policy (oblivious, scan-all, sample, strict) on pools of each of
// -workers workers. Columns: the scenario's wall time; when the last task
// of level pool.MaxPriority (3) finished, from the scenario's start; the
// ratio of the two (the median of the per-run ratios); the share of the
// scenario's work in level-3 tasks, which that ratio approaches when
// priorities are followed perfectly; and Stats.Inversions during the run.
//
// Graph exploration (bench.NewGraph with -nodes, -degree, -hubs; -work
// rounds of bench.Spin per visited node) from node 0: serial, spawn,
// spawnmany, local (a stack per task, half spawned every 64 visits) on
// spindle pools of each of -workers workers, and goroutines
// at GOMAXPROCS set to each; every run is checked against the serial
// one's node count and checksum. Columns: median time and its ratio to the
// median serial time.
//
// Each row runs its -warmup + -reps runs back to back on a pool of its
// own, which is closed before the next row's is created: one pool at a
// time. Rows measured round-robin over several live pools would spread a
// change of the machine's speed evenly, but they interfere: a run on one
// pool right after a run on another often lost a worker for a time
// comparable to the run itself, whereas runs repeated on one pool did not
// (docs/bench-notes.md has the figures). The exit status is 1 if a check fails, 2
// for bad flags.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spindle-go/spindle/bench"
	"github.com/spindle-go/spindle/internal/experiment"
	"github.com/spindle-go/spindle/pool"
)

type config struct {
	reps, warmup  int
	workers       []int
	only          string
	tasks         int
	micros        float64
	nodes, degree int
	hubs, work    int
}

func main() {
	// GOMAXPROCS is sized here, in the command: see bench.SizeGOMAXPROCS.
	note := bench.SizeGOMAXPROCS()
	os.Exit(run(os.Args[1:], note, os.Stdout, os.Stderr))
}

func run(args []string, procsNote string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("prioritybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reps := fs.Int("reps", 5, "timed runs per row; medians are reported")
	warmup := fs.Int("warmup", 1, "untimed runs per row before the timed ones")
	workers := fs.String("workers", "1,2", "comma-separated worker counts (pools; GOMAXPROCS for goroutines)")
	only := fs.String("only", "", `"priority" or "graph" to print one table only`)
	tasks := fs.Int("tasks", 2000, "priority: tasks per scenario")
	micros := fs.Float64("micros", 20, "priority: busy work per task in microseconds (the mean for random)")
	nodes := fs.Int("nodes", 1<<20, "graph: nodes")
	degree := fs.Int("degree", 6, "graph: mean out-degree")
	hubs := fs.Int("hubs", 8, "graph: hub nodes with about sqrt(nodes) out-edges (node 0 first)")
	work := fs.Int("work", 0, "graph: busy work per visited node, in rounds of bench.Spin")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg := config{
		reps: *reps, warmup: *warmup, only: *only, tasks: *tasks, micros: *micros,
		nodes: *nodes, degree: *degree, hubs: *hubs, work: *work,
	}
	var err error
	if cfg.workers, err = parseWorkers(*workers); err == nil {
		err = cfg.check(fs.NArg())
	}
	if err != nil {
		fmt.Fprintln(stderr, "prioritybench:", err)
		return 2
	}

	fmt.Fprintf(stdout, "command: %s\n\n", strings.Join(append([]string{"prioritybench"}, args...), " "))
	fmt.Fprintf(stdout, "machine: %s\n\n", bench.Machine())
	if procsNote != "" {
		fmt.Fprintf(stdout, "GOMAXPROCS: %s\n\n", procsNote)
	}
	status := 0
	if cfg.only != "graph" {
		if err := priorityTable(cfg, stdout); err != nil {
			fmt.Fprintln(stderr, "prioritybench:", err)
			status = 1
		}
	}
	if cfg.only != "priority" {
		if err := graphTable(cfg, stdout); err != nil {
			fmt.Fprintln(stderr, "prioritybench:", err)
			status = 1
		}
	}
	return status
}

func parseWorkers(s string) ([]int, error) {
	var ws []int
	for f := range strings.SplitSeq(s, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || w < 1 {
			return nil, fmt.Errorf("-workers %q: want positive integers separated by commas", s)
		}
		ws = append(ws, w)
	}
	return ws, nil
}

func (c config) check(extraArgs int) error {
	switch {
	case extraArgs > 0:
		return fmt.Errorf("unexpected arguments")
	case c.reps < 1 || c.warmup < 0:
		return fmt.Errorf("-reps %d -warmup %d: want reps >= 1, warmup >= 0", c.reps, c.warmup)
	case c.only != "" && c.only != "priority" && c.only != "graph":
		return fmt.Errorf("-only %q: want priority or graph", c.only)
	case c.tasks < 0 || !(c.micros >= 0):
		return fmt.Errorf("-tasks %d -micros %g: want >= 0", c.tasks, c.micros)
	case c.nodes < 1 || c.degree < 0 || c.hubs < 0 || c.work < 0:
		return fmt.Errorf("-nodes %d -degree %d -hubs %d -work %d: want nodes >= 1, others >= 0",
			c.nodes, c.degree, c.hubs, c.work)
	}
	return nil
}

func ms(d time.Duration) string {
	switch m := bench.Ms(d); {
	case m >= 100:
		return fmt.Sprintf("%.0f", m)
	case m >= 10:
		return fmt.Sprintf("%.1f", m)
	default:
		return fmt.Sprintf("%.2f", m)
	}
}

// priorityRow collects the runs of one scenario, policy and worker count.
type priorityRow struct {
	total, high []time.Duration
	ratio, inv  []float64
}

// measurePriority runs sc -warmup + -reps times on a new pool of nw
// workers with policy pol.
func measurePriority(c config, sc *bench.PriorityScenario, nw int, pol pool.PriorityPolicy) (row priorityRow, err error) {
	p, err := pool.New(pool.WithWorkers(nw), experiment.WithPriorityPolicy(pol))
	if err != nil {
		return row, err
	}
	defer p.Close()
	for rep := range c.warmup + c.reps {
		runtime.GC()
		r, err := bench.RunPriority(p, sc)
		if err != nil {
			return row, fmt.Errorf("%s, %s, %d workers: %w", sc.Name, pol, nw, err)
		}
		if rep < c.warmup {
			continue
		}
		row.total = append(row.total, r.Total)
		row.high = append(row.high, r.High)
		row.ratio = append(row.ratio, r.HighRatio())
		row.inv = append(row.inv, float64(r.Inversions))
	}
	return row, nil
}

func priorityTable(c config, w io.Writer) error {
	scs := bench.PriorityScenarios(c.tasks, c.micros, bench.Seed)
	spin := bench.SpinPerMicro()
	fmt.Fprintf(w, "## Priority scenarios\n\n")
	fmt.Fprintf(w, "%d tasks of %g µs of busy work (%.0f rounds of bench.Spin per µs), spawned by %d spawner tasks; "+
		"median of %d runs after %d warmup.\n\n", c.tasks, c.micros, spin, bench.PrioritySpawners, c.reps, c.warmup)
	fmt.Fprintln(w, "| scenario | policy | workers | total ms | L3 done ms | L3 done / total | L3 work share | inversions |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|")

	for _, sc := range scs {
		for _, nw := range c.workers {
			for _, pol := range bench.PriorityPolicies {
				row, err := measurePriority(c, sc, nw, pol)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %.2f | %.2f | %.0f |\n",
					sc.Name, pol, nw, ms(bench.Median(row.total)), ms(bench.Median(row.high)),
					bench.Median(row.ratio), sc.HighShare(), bench.Median(row.inv))
			}
		}
	}
	fmt.Fprintln(w)
	return nil
}

// graphKernel is a row of the graph table.
type graphKernel struct {
	name    string
	workers int
	// onPool, if set, explores on a pool of workers workers, made for the
	// row; otherwise explore runs, with GOMAXPROCS set to workers if
	// procs is set.
	onPool  func(*bench.Explorer, *pool.Pool) bench.GraphResult
	procs   bool
	explore func() bench.GraphResult
}

// measureGraph times -warmup + -reps explorations of k, each from
// cleared marks and checked against want.
func measureGraph(c config, e *bench.Explorer, want bench.GraphResult, k graphKernel) ([]time.Duration, error) {
	explore := k.explore
	if k.onPool != nil {
		p, err := pool.New(pool.WithWorkers(k.workers))
		if err != nil {
			return nil, err
		}
		defer p.Close()
		explore = func() bench.GraphResult { return k.onPool(e, p) }
	}
	if k.procs {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(k.workers))
	}
	var times []time.Duration
	for rep := range c.warmup + c.reps {
		e.Reset()
		runtime.GC()
		t0 := time.Now()
		got := explore()
		d := time.Since(t0)
		if got != want {
			return nil, fmt.Errorf("graph: %s, %d workers: visited %d nodes (checksum %#x), want %d (%#x)",
				k.name, k.workers, got.Nodes, got.Sum, want.Nodes, want.Sum)
		}
		if rep >= c.warmup {
			times = append(times, d)
		}
	}
	return times, nil
}

func graphTable(c config, w io.Writer) error {
	start := time.Now()
	g := bench.NewGraph(c.nodes, c.degree, c.hubs, bench.Seed)
	built := time.Since(start)
	e := bench.NewExplorer(g, c.work)
	want := e.Serial()

	fmt.Fprintf(w, "## Graph exploration\n\n")
	fmt.Fprintf(w, "Random graph of %d nodes and %d edges (mean out-degree %d, %d hubs of %d out-edges; built in %s), "+
		"%d rounds of bench.Spin per visited node; %d nodes reachable from node 0 (checksum %#x); "+
		"median of %d runs after %d warmup.\n\n",
		g.Nodes(), len(g.Edges), c.degree, c.hubs, int(g.Offsets[1]-g.Offsets[0]), built.Round(time.Millisecond),
		c.work, want.Nodes, want.Sum, c.reps, c.warmup)
	fmt.Fprintln(w, "| implementation | workers | ms | x serial |")
	fmt.Fprintln(w, "|---|--:|--:|--:|")

	kernels := []graphKernel{{name: "serial", workers: 1, explore: e.Serial}}
	for _, nw := range c.workers {
		kernels = append(kernels, graphKernel{name: "spindle Scope.Spawn per node", workers: nw, onPool: (*bench.Explorer).Spawn})
	}
	for _, nw := range c.workers {
		kernels = append(kernels, graphKernel{name: "spindle Scope.SpawnMany per node", workers: nw, onPool: (*bench.Explorer).SpawnMany})
		kernels = append(kernels, graphKernel{name: "spindle local stacks, half spawned every 64 visits", workers: nw, onPool: (*bench.Explorer).Local})
	}
	for _, nw := range c.workers {
		kernels = append(kernels, graphKernel{name: "goroutines + channel", workers: nw, procs: true,
			explore: func() bench.GraphResult { return e.Goroutines(nw) }})
	}
	var serial time.Duration
	for _, k := range kernels {
		times, err := measureGraph(c, e, want, k)
		if err != nil {
			return err
		}
		m := bench.Median(times)
		if serial == 0 {
			serial = m // the first row
		}
		fmt.Fprintf(w, "| %s | %d | %s | %.2f |\n", k.name, k.workers, ms(m), float64(m)/float64(serial))
	}
	fmt.Fprintln(w)
	return nil
}
