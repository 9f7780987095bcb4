// Command peers times spindle on the fork-join peers' workloads and prints
// rows in their format, for ../shared/peers/run.sh (its EXTRA command):
//
//	go-spindle-call fib n=32 threads=2 ms=12.3 result=2178309
//	go-spindle-join fib n=32 threads=2 ms=45.6 result=2178309
//	go-closure-floor fib n=32 threads=2 ms=150.2 result=2178309
//	go-spindle-do quicksort n=10000000 threads=2 ms=456.7 cutoff=32 sorted=ok
//	go-spindle-spawn uts-t3 threads=2 ms=567.8 nodes=4112897
//	go-spindle-call treesum n=4194303 threads=2 ms=20.1 sum=8796090925056
//	go-spindle filter n=10000000 threads=2 ms=40.1 kept=6664676
//	go-spindle find-first n=10000000 threads=2 ms=6.3 at=9000000
//	go-spindle map-sum n=10000000 threads=2 ms=6.3 sum=331928707760975088
//	go-spindle sort-stable n=10000000 threads=2 ms=557.0 stable=ok
//	go-spindle-for engage threads=2 ms=0.123 first_us=45 middle_us=67 last_us=67 leaf_us=500 idle_ms=20
//
// go-spindle-join-unlocked and go-spindle-spawn-unlocked are go-spindle-join
// and go-spindle-spawn on a pool of workers that are not locked to their
// threads (pool.WithLockedThreads(false)).
//
// UTS rows (uts-t1, uts-t3, the sample trees T1 and T3): go-spindle-spawn
// (a Scope.Spawn per node, one scope), go-spindle-spawnarg (a
// forkjoin.Spawn per node, the child its argument), go-spindle-spawnmany (a
// Scope.SpawnMany per node), go-spindle-call (forkjoin.Call halving child
// ranges), go-spindle-join (pool.Join halving), the closure floor
// (go-closure-floor: a serial search with one closure allocated per node,
// run by as many thread-locked goroutines at once as there are threads,
// its time per tree), the public floors (go-public-floor, a task per
// child, and go-public-part-floor, a task per inner node, pushed on and
// popped from one thread's Chase-Lev deque, bench.UTSPublicFloor and
// bench.UTSPublicPartFloor, as many searches at once as there are threads,
// the time per tree: the least go-spindle-spawnarg and
// go-spindle-spawnmany could cost, their tasks published at once), and at
// threads=1 go-spindle-serial, a serial search that allocates nothing.
//
// treesum (the sum of a balanced tree of TREE_DEPTH levels of pointer
// nodes, a fork per node: Spice's benchmark) prints go-spindle-call
// (forkjoin.Call per node) and the lazy-fork floor; its serial baseline is
// the peers' go-serial row.
//
// The lazy-fork floor rows (go-lazy-fork-floor, fib and treesum) are not
// runtimes: the same recursion with the least a lazy fork costs in Go
// (bench.FibLazyForkFloor: the second call's function and argument stored
// on a per-thread record stack, one load of a word of the thread's own,
// the record popped and called), THREADS copies at once on as many locked
// threads, the time per copy: the floor of go-spindle-call.
//
// The closure floor rows (fib and UTS) are not runtimes: what the heap
// traffic of a closure fork costs by itself with THREADS threads sharing
// the cores and the garbage collector, printed at every thread count
// beside the closure rows (go-spindle-join, go-spindle-spawn) so that
// each has its floor in the same run.
//
// The iterator workloads (filter, find-first, map-sum, sort-stable, over
// ITER_N xorshift64 items) print one row each, go-spindle: bench.IterFilter
// (forkjoin.Filter), bench.IterFindFirst (forkjoin.Find),
// bench.IterMapSum (forkjoin.For with per-chunk sums) and
// bench.IterSortStable (forkjoin.SortStableFunc). Their serial baseline is
// the peers' own go-serial row. Each result is checked against the serial
// kernel's (bench.IterFilterSerial, ...; the sort must be exactly the
// stable sort of its input).
//
// The engage workload (bench.Engage) prints one row per style of
// bench.EngageStyles: go-spindle-for, go-spindle-do, go-spindle-spawn,
// go-spindle-spawnmany and go-spindle-group, with the fields of the peers'
// engage rows in their order (../shared/peers/go/engage.go). After
// IDLE_MS of idleness, THREADS leaves that spin for LEAF_US each are
// handed to the pool; ms is the call's time minus one leaf (what getting
// every worker going cost), first_us, middle_us and last_us the starts of
// the 1st, (THREADS/2+1)th and last leaf after the call: medians over
// ENGAGE_TRIALS trials after bench.EngageWarmups untimed ones. Like the
// peers' engage rows they have no serial baseline; REPS and WARMUP do not
// apply.
//
// Settings come from the environment, with the peers' defaults: THREADS
// (number of CPUs), FIB_N (32), QS_N (10000000), CUTOFF (32; values below
// 3 become 3, as in the peers), ITER_N (10000000, at least 1), REPS (5),
// WARMUP (1), TREE_DEPTH (22, at most 30), LEAF_US (500), IDLE_MS (20), ENGAGE_TRIALS (25, at least
// 1), WORKLOADS (the workloads to run, separated by spaces;
// default all that this command knows; names it does not know are
// ignored, as other peers' workloads may be listed). Each workload runs
// WARMUP untimed times, then REPS timed times, and the best time is
// printed; the inputs are generated once per workload, and the quicksort
// and sort-stable inputs are refilled, untimed, before every run.
// Like the Go peers, it sets GOMAXPROCS to THREADS, and it runs everything
// on one pool of THREADS workers.
//
// Exit status: 2 for a bad setting or argument, 1 for a wrong result.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spindle-go/spindle/bench"
	"github.com/spindle-go/spindle/pool"
)

type settings struct {
	threads, fibN, qsN, cutoff, iterN, reps, warmup int
	treeDepth                                       int
	leaf, idle                                      time.Duration // engage
	engageTrials                                    int
	workloads                                       []string
}

// workloads are this command's workloads by name, in the order they run.
var workloads = []struct {
	name string
	run  func(settings, *pool.Pool) error
}{
	{"fib", runFib},
	{"quicksort", runQuicksort},
	{"uts-t1", func(c settings, p *pool.Pool) error { return runUTS(c, p, "uts-t1", bench.UTST1) }},
	{"uts-t3", func(c settings, p *pool.Pool) error { return runUTS(c, p, "uts-t3", bench.UTST3) }},
	{"treesum", runTreeSum},
	{"filter", runFilter},
	{"find-first", runFindFirst},
	{"map-sum", runMapSum},
	{"sort-stable", runSortStable},
	{"engage", runEngage},
}

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), `usage: peers (no arguments)

Times spindle on the peers' workloads and prints one row per runtime and
workload. Settings, from the environment:
  THREADS  workers and GOMAXPROCS (default: number of CPUs, %d)
  FIB_N    fib argument (default 32)
  QS_N     quicksort length (default 10000000)
  CUTOFF   insertion sort below this length (default 32; at least 3)
  ITER_N   items of filter, find-first, map-sum and sort-stable
           (default 10000000; at least 1)
  TREE_DEPTH  treesum: levels of the tree (default 22; at most 30)
  REPS     timed runs, the best is printed (default 5)
  WARMUP   untimed runs before them (default 1)
  LEAF_US  engage: microseconds each leaf spins (default 500)
  IDLE_MS  engage: milliseconds of idleness before each trial (default 20)
  ENGAGE_TRIALS  engage: trials, the medians are printed (default 25)
  WORKLOADS  workloads to run, space-separated (default: fib quicksort
           uts-t1 uts-t3 treesum filter find-first map-sum sort-stable engage;
           unknown names are ignored)
`, runtime.NumCPU())
	}
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "peers: unexpected argument %q (settings come from the environment)\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	cfg, err := readSettings()
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

// readSettings reads the environment. Unlike the peers, which fall back to
// the default, it rejects a value that is not a number in range.
func readSettings() (settings, error) {
	var c settings
	var err error
	get := func(name string, def, least int) int {
		s := os.Getenv(name)
		if s == "" || err != nil {
			return def
		}
		v, perr := strconv.Atoi(s)
		if perr != nil || v < least {
			err = fmt.Errorf("%s=%q: want an integer >= %d", name, s, least)
		}
		return v
	}
	c.threads = get("THREADS", runtime.NumCPU(), 1)
	c.fibN = get("FIB_N", 32, 0)
	c.qsN = get("QS_N", 10_000_000, 0)
	c.cutoff = max(get("CUTOFF", bench.DefaultCutoff, 0), bench.MinCutoff)
	c.iterN = get("ITER_N", 10_000_000, 1)
	c.treeDepth = get("TREE_DEPTH", 22, 1)
	c.reps = get("REPS", 5, 1)
	c.warmup = get("WARMUP", 1, 0)
	c.leaf = time.Duration(get("LEAF_US", 500, 0)) * time.Microsecond
	c.idle = time.Duration(get("IDLE_MS", 20, 0)) * time.Millisecond
	c.engageTrials = get("ENGAGE_TRIALS", 25, 1)
	c.workloads = strings.Fields(os.Getenv("WORKLOADS"))
	if len(c.workloads) == 0 {
		for _, w := range workloads {
			c.workloads = append(c.workloads, w.name)
		}
	}
	if err == nil && c.fibN > 60 {
		err = fmt.Errorf("FIB_N=%d: too large (fib with a fork per call would run for hours); want <= 60", c.fibN)
	}
	if err == nil && c.treeDepth > 30 {
		err = fmt.Errorf("TREE_DEPTH=%d: too large (2^depth nodes of 24 bytes); want <= 30", c.treeDepth)
	}
	if err == nil && uint64(c.iterN) > 1<<32 {
		err = fmt.Errorf("ITER_N=%d: too large (sort-stable numbers the items with uint32); want <= %d", c.iterN, uint64(1)<<32)
	}
	return c, err
}

func run(c settings) error {
	runtime.GOMAXPROCS(c.threads)
	p, err := pool.New(pool.WithWorkers(c.threads))
	if err != nil {
		return err
	}
	defer p.Close()
	for _, w := range workloads {
		if !slices.Contains(c.workloads, w.name) {
			continue
		}
		if err := w.run(c, p); err != nil {
			return err
		}
	}
	// On stderr, out of the rows: whether the computations made the pool
	// start spare workers (they should not: nothing blocks).
	st := p.Stats()
	fmt.Fprintf(os.Stderr, "peers: pool of %d workers: spares started %d, workers seen blocked %v\n", st.Workers, st.SparesStarted, st.BlockedTime)
	return nil
}

// unlockedPool starts a pool like run's but with
// pool.WithLockedThreads(false), for the -unlocked rows. Each workload
// that has such a row starts its own when it gets there, so that the rows
// before it do not share the machine with its sleeping workers.
func unlockedPool(c settings) (*pool.Pool, error) {
	return pool.New(pool.WithWorkers(c.threads), pool.WithLockedThreads(false))
}

func runFib(c settings, p *pool.Pool) error {
	fibs := []struct {
		name string
		fib  func(int) int64
	}{
		{"go-spindle-call", bench.FibCall},
		{"go-spindle-join", bench.FibJoin},
		// Not a runtime: serial fib with the two allocations per fork
		// that any closure-based fork costs in Go, THREADS copies at once
		// on as many locked threads (bench.FibClosureFloorP), its time
		// per fib(n): the floor of go-spindle-join's time.
		{"go-closure-floor", func(n int) int64 { return bench.FibClosureFloorP(n, c.threads) }},
		// Not a runtime either: fib with a lazy fork at every level by the
		// least steps a fork that a thief could take part of needs in Go
		// (bench.FibLazyForkFloor), THREADS copies at once: the floor of
		// go-spindle-call's time.
		{"go-lazy-fork-floor", func(n int) int64 { return bench.FibLazyForkFloorP(n, c.threads) }},
		// pool.Join on workers that are not locked to their threads
		// (pool.WithLockedThreads(false)), last so that no other row runs
		// beside its pool's sleeping workers.
		{"go-spindle-join-unlocked", bench.FibJoin},
	}
	want := bench.FibExpected(c.fibN)
	for _, f := range fibs {
		floor, runs := strings.HasSuffix(f.name, "-floor"), 1
		if floor {
			runs = c.threads // copies at once: the time per fib(n) is the whole's over them
		}
		on := p
		if strings.HasSuffix(f.name, "-unlocked") {
			up, err := unlockedPool(c)
			if err != nil {
				return err
			}
			defer up.Close()
			on = up
		}
		var got int64
		t, err := bench.Time(c.warmup, c.reps, nil,
			func() {
				if floor {
					got = f.fib(c.fibN) // not on the pool
					return
				}
				on.Run(func() { got = f.fib(c.fibN) })
			},
			func() error {
				if got != want {
					return fmt.Errorf("%s fib(%d) = %d, want %d", f.name, c.fibN, got, want)
				}
				return nil
			})
		if err != nil {
			return err
		}
		fmt.Printf("%s fib n=%d threads=%d ms=%.1f result=%d\n",
			f.name, c.fibN, c.threads, bench.Ms(bench.Best(t))/float64(runs), got)
	}
	return nil
}

func runTreeSum(c settings, p *pool.Pool) error {
	root, want := bench.TreeBuild(c.treeDepth)
	nodes := int64(1)<<c.treeDepth - 1
	rows := []struct {
		name string
		sum  func() int64
		runs int // copies at once: the time per sum is the whole's over them
	}{
		{"go-spindle-call", func() (s int64) { p.Run(func() { s = bench.TreeSumCall(root) }); return s }, 1},
		{"go-lazy-fork-floor", func() int64 { return bench.TreeSumLazyForkFloorP(root, c.threads) }, c.threads},
	}
	for _, r := range rows {
		var got int64
		t, err := bench.Time(c.warmup, c.reps, nil,
			func() { got = r.sum() },
			func() error {
				if got != want {
					return fmt.Errorf("%s treesum = %d, want %d", r.name, got, want)
				}
				return nil
			})
		if err != nil {
			return err
		}
		fmt.Printf("%s treesum n=%d threads=%d ms=%.1f sum=%d\n",
			r.name, nodes, c.threads, bench.Ms(bench.Best(t))/float64(r.runs), got)
	}
	return nil
}

func runQuicksort(c settings, p *pool.Pool) error {
	s := make([]int64, c.qsN)
	var sum int64
	t, err := bench.Time(c.warmup, c.reps,
		func() { sum = bench.Fill(s) },
		func() { p.Run(func() { bench.QuicksortDo(s, c.cutoff) }) },
		func() error { return bench.Check(s, sum) })
	if err != nil {
		return fmt.Errorf("go-spindle-do quicksort: %v", err)
	}
	fmt.Printf("go-spindle-do quicksort n=%d threads=%d ms=%.1f cutoff=%d sorted=ok\n",
		c.qsN, c.threads, bench.Ms(bench.Best(t)), c.cutoff)
	return nil
}

// runUTS times the UTS searches of tree, printed as workload name, and
// checks each count against the published one.
func runUTS(c settings, p *pool.Pool, name string, tree *bench.UTSTree) error {
	type style struct {
		runtime  string
		search   func(*bench.UTSTree) int64
		onPool   bool
		unlocked bool // on a pool of its own with pool.WithLockedThreads(false)
		trees    int  // searches per call of search (its time is divided by it)
	}
	styles := []style{
		{"go-spindle-spawn", bench.UTSSpawn, true, false, 1},
		{"go-spindle-spawnarg", bench.UTSSpawnArg, true, false, 1},
		{"go-spindle-spawnmany", bench.UTSSpawnMany, true, false, 1},
		{"go-spindle-call", bench.UTSCall, true, false, 1},
		{"go-spindle-join", bench.UTSJoin, true, false, 1},
	}
	// The closure floor is not a runtime: what a node's closure
	// allocation costs by itself, THREADS searches at once on as many
	// threads, its time per tree (see the package doc).
	// go-spindle-serial is bench.UTSSerial, a
	// serial search that allocates nothing (the peers' go-serial moves
	// every node to the heap), the fair baseline for the Go rows.
	if c.threads == 1 {
		styles = append(styles, style{"go-spindle-serial", func(t *bench.UTSTree) int64 { return bench.UTSSerial(t).Nodes }, false, false, 1})
	}
	styles = append(styles, style{"go-closure-floor",
		func(t *bench.UTSTree) int64 { return bench.UTSClosureFloorP(t, c.threads) }, false, false, c.threads})
	// The public floors are not runtimes either: a task per child, or per
	// inner node, pushed on and popped from one thread's Chase-Lev deque,
	// THREADS searches at once, the time per tree: the floors of
	// go-spindle-spawnarg and go-spindle-spawnmany (see the package doc).
	styles = append(styles,
		style{"go-public-floor", func(t *bench.UTSTree) int64 { return bench.UTSPublicFloorP(t, c.threads) }, false, false, c.threads},
		style{"go-public-part-floor", func(t *bench.UTSTree) int64 { return bench.UTSPublicPartFloorP(t, c.threads) }, false, false, c.threads})
	// Last, so that no other row runs beside its pool's sleeping workers:
	// a Spawn per node on workers that are not locked to their threads.
	styles = append(styles, style{"go-spindle-spawn-unlocked", bench.UTSSpawn, true, true, 1})
	for _, st := range styles {
		var search func()
		var got int64
		switch {
		case !st.onPool:
			search = func() { got = st.search(tree) }
		case st.unlocked:
			up, err := unlockedPool(c)
			if err != nil {
				return err
			}
			defer up.Close()
			search = func() { up.Run(func() { got = st.search(tree) }) }
		default:
			search = func() { p.Run(func() { got = st.search(tree) }) }
		}
		t, err := bench.Time(c.warmup, c.reps, nil, search,
			func() error {
				if got != tree.Want.Nodes {
					return fmt.Errorf("%s %s: counted %d nodes, published %d", st.runtime, name, got, tree.Want.Nodes)
				}
				return nil
			})
		if err != nil {
			return err
		}
		fmt.Printf("%s %s threads=%d ms=%.1f nodes=%d\n", st.runtime, name, c.threads, bench.Ms(bench.Best(t))/float64(st.trees), got)
	}
	return nil
}

// iterRow prints an iterator workload's row in the peers' format: runtime
// go-spindle, then what (kept=..., at=..., sum=..., stable=ok).
func iterRow(c settings, workload string, t []time.Duration, what string) {
	fmt.Printf("go-spindle %s n=%d threads=%d ms=%.1f %s\n",
		workload, c.iterN, c.threads, bench.Ms(bench.Best(t)), what)
}

func runFilter(c settings, p *pool.Pool) error {
	items := bench.IterInput(c.iterN)
	want := bench.IterFilterSerial(items)
	var got []uint64
	t, err := bench.Time(c.warmup, c.reps, nil,
		func() { p.Run(func() { got = bench.IterFilter(items) }) },
		func() error {
			if !slices.Equal(got, want) {
				return fmt.Errorf("go-spindle filter: kept %d items, the serial filter %d (or other items)", len(got), len(want))
			}
			return nil
		})
	if err != nil {
		return err
	}
	iterRow(c, "filter", t, fmt.Sprintf("kept=%d", len(want)))
	return nil
}

func runFindFirst(c settings, p *pool.Pool) error {
	items := bench.IterInput(c.iterN)
	x := bench.IterTarget(items)
	want := bench.IterFindFirstSerial(items, x)
	var at int
	t, err := bench.Time(c.warmup, c.reps, nil,
		func() { p.Run(func() { at = bench.IterFindFirst(items, x) }) },
		func() error {
			if at != want {
				return fmt.Errorf("go-spindle find-first: at=%d, the serial search %d", at, want)
			}
			return nil
		})
	if err != nil {
		return err
	}
	iterRow(c, "find-first", t, fmt.Sprintf("at=%d", at))
	return nil
}

func runMapSum(c settings, p *pool.Pool) error {
	items := bench.IterInput(c.iterN)
	want := bench.IterMapSumSerial(items)
	var sum uint64
	t, err := bench.Time(c.warmup, c.reps, nil,
		func() { p.Run(func() { sum = bench.IterMapSum(items) }) },
		func() error {
			if sum != want {
				return fmt.Errorf("go-spindle map-sum: sum=%d, the serial loop %d", sum, want)
			}
			return nil
		})
	if err != nil {
		return err
	}
	iterRow(c, "map-sum", t, fmt.Sprintf("sum=%d", sum))
	return nil
}

func runSortStable(c settings, p *pool.Pool) error {
	base := bench.IterPairs(bench.IterInput(c.iterN))
	s := make([]bench.IterPair, len(base))
	t, err := bench.Time(c.warmup, c.reps,
		func() { copy(s, base) },
		func() { p.Run(func() { bench.IterSortStable(s) }) },
		func() error {
			if !bench.IterSortedFrom(base, s) {
				return errors.New("go-spindle sort-stable: the pairs are not the stable sort of the input")
			}
			return nil
		})
	if err != nil {
		return err
	}
	iterRow(c, "sort-stable", t, "stable=ok")
	return nil
}

// runEngage prints the engage rows, one per style, on p (THREADS workers,
// THREADS leaves).
func runEngage(c settings, p *pool.Pool) error {
	for _, st := range bench.EngageStyles {
		m := bench.Engage(p, st, c.threads, c.leaf, c.idle, c.engageTrials)
		fmt.Printf("go-spindle-%s engage threads=%d ms=%.3f first_us=%d middle_us=%d last_us=%d leaf_us=%d idle_ms=%d\n",
			st.Name, c.threads, bench.Ms(m.Lost), m.First.Microseconds(), m.Middle.Microseconds(),
			m.Last.Microseconds(), c.leaf.Microseconds(), c.idle.Milliseconds())
	}
	return nil
}
