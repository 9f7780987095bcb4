// Command soak runs random fork-join workloads on a few pools, from several
// goroutines, for a bounded time, and checks every result:
//
//	go run ./bench/cmd/soak -duration 10s
//
// Workloads: sums by nested joins (pool.Join, Pool.Join, forkjoin.Join,
// forkjoin.Call), trees of scoped spawns, forkjoin.Sort and SortFunc of
// random slices (checked against slices.Sort), Map and Reduce, For over
// random ranges and grains, calls between pools, detached tasks, futures,
// and pools created and closed on the way. Panics are injected in a small
// share of the operations, at random tasks, and recovered: an operation
// with an injected panic must re-panic with a *pool.PanicError carrying one
// of them (and, except where noted, every task must still have run exactly
// once); one without must return the right result.
//
// At the end it prints the operations done, the panics injected and
// caught, and every invariant violated; the exit status is 1 if there was
// any (a wrong result, a lost or duplicated task, a panic of the wrong
// kind, an operation that did not finish within -stall, goroutines left
// after the pools closed), 2 for bad flags.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

func main() {
	duration := flag.Duration("duration", time.Minute, "how long to generate work")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "workers of the main pool (the others have 1 and workers+1)")
	seed := flag.Uint64("seed", 0, "random seed (0: from the clock; printed)")
	goroutines := flag.Int("goroutines", 6, "goroutines calling the pools")
	panicRate := flag.Float64("panic-rate", 0.05, "share of operations with injected panics")
	stall := flag.Duration("stall", time.Minute, "longest time without any operation finishing before the run counts as hung")
	flag.Parse()
	if flag.NArg() > 0 || *duration <= 0 || *workers < 1 || *goroutines < 1 || *panicRate < 0 || *panicRate > 1 || *stall <= 0 {
		fmt.Fprintln(os.Stderr, "soak: bad flags")
		flag.Usage()
		os.Exit(2)
	}
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())
	}
	s := &soak{seed: *seed, panicRate: *panicRate}
	os.Exit(s.run(*duration, *workers, *goroutines, *stall))
}

type soak struct {
	seed      uint64
	panicRate float64
	pools     []*pool.Pool // main, single-worker, oversubscribed

	ops          [opCount]atomic.Int64
	injected     atomic.Int64 // panics raised by tasks of operations
	caught       atomic.Int64 // operations that re-panicked as expected
	detachedInj  atomic.Int64 // panics raised by detached tasks
	detachedSeen atomic.Int64 // of those, delivered to a panic handler
	churned      atomic.Int64 // pools created and closed by opChurn
	lastOp       atomic.Int64 // time of the last finished operation (UnixNano)

	mu         sync.Mutex
	violations []string
}

// violate records a broken invariant.
func (s *soak) violate(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.violations = append(s.violations, fmt.Sprintf(format, args...))
}

func (s *soak) violationCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.violations)
}

// handler is every soak pool's panic handler: detached tasks' panics land
// here.
func (s *soak) handler(v any) {
	pe, ok := v.(*pool.PanicError)
	if !ok {
		s.violate("panic handler: got %T %v, want *pool.PanicError", v, v)
		return
	}
	sp, ok := pe.Value.(soakPanic)
	if !ok {
		s.violate("panic handler: PanicError value %T %v, want an injected panic", pe.Value, pe.Value)
		return
	}
	s.detachedSeen.Add(1)
	sp.inj.detachedDone()
}

func (s *soak) run(duration time.Duration, workers, goroutines int, stall time.Duration) int {
	fmt.Printf("soak: duration %v, seed %d, main pool %d workers, %d goroutines, GOMAXPROCS %d, panic rate %g\n",
		duration, s.seed, workers, goroutines, runtime.GOMAXPROCS(0), s.panicRate)
	pool.Default() // created once for good: not part of the goroutine count below
	baseline := runtime.NumGoroutine()
	for _, n := range []int{workers, 1, workers + 1} {
		p, err := pool.New(pool.WithWorkers(n), pool.WithPanicHandler(s.handler))
		if err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			return 2
		}
		s.pools = append(s.pools, p)
	}

	start := time.Now()
	deadline := start.Add(duration)
	s.lastOp.Store(start.UnixNano())
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(s.seed, uint64(g)))
			for time.Now().Before(deadline) {
				s.op(r)
				s.lastOp.Store(time.Now().UnixNano())
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	check := time.NewTicker(time.Second)
	defer check.Stop()
	hung := false
wait:
	for {
		select {
		case <-finished:
			break wait
		case <-tick.C:
			fmt.Printf("  %v: %d operations, %d violations\n", time.Since(start).Round(time.Second), s.total(), s.violationCount())
		case <-check.C:
			if idle := time.Since(time.Unix(0, s.lastOp.Load())); idle > stall {
				s.violate("no operation finished for %v: hung (goroutine stacks on stderr)", idle.Round(time.Second))
				dumpGoroutines()
				hung = true
				break wait
			}
		}
	}
	if !hung {
		for i, p := range s.pools {
			if err := p.Close(); err != nil {
				s.violate("Close of pool %d: %v", i, err)
			}
		}
		g := runtime.NumGoroutine()
		for wait := time.Now().Add(10 * time.Second); g > baseline && time.Now().Before(wait); g = runtime.NumGoroutine() {
			time.Sleep(time.Millisecond)
		}
		if g > baseline {
			s.violate("%d goroutines after closing every pool, %d before creating them", g, baseline)
			dumpGoroutines()
		}
		if inj, seen := s.detachedInj.Load(), s.detachedSeen.Load(); inj != seen {
			s.violate("%d detached tasks panicked, the handler got %d", inj, seen)
		}
	}
	s.report(time.Since(start))
	if s.violationCount() > 0 {
		return 1
	}
	return 0
}

func dumpGoroutines() {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
	os.Stderr.Write(buf.Bytes())
}

func (s *soak) total() int64 {
	var n int64
	for i := range s.ops {
		n += s.ops[i].Load()
	}
	return n
}

func (s *soak) report(elapsed time.Duration) {
	fmt.Printf("soak: %v, seed %d\n", elapsed.Round(time.Millisecond), s.seed)
	var parts []string
	for op := range opCount {
		parts = append(parts, fmt.Sprintf("%s %d", opNames[op], s.ops[op].Load()))
	}
	fmt.Printf("operations: %d (%s)\n", s.total(), strings.Join(parts, ", "))
	fmt.Printf("panics injected: %d in tasks of operations, %d in detached tasks\n", s.injected.Load(), s.detachedInj.Load())
	fmt.Printf("panics caught: %d operations re-panicked with an injected panic, %d detached panics reached the handler\n", s.caught.Load(), s.detachedSeen.Load())
	fmt.Printf("pools created and closed while running: %d\n", s.churned.Load())
	var stats []string
	for i, p := range s.pools {
		st := p.Stats()
		stats = append(stats, fmt.Sprintf("pool %d (%d workers): %d executed, %d stolen, %d injected, %d sleeps",
			i, st.Workers, st.Executed, st.Steals, st.Injected, st.Sleeps))
	}
	fmt.Printf("%s\n", strings.Join(stats, "\n"))
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Printf("invariant violations: %d\n", len(s.violations))
	for i, v := range s.violations {
		if i == 20 {
			fmt.Printf("  ... and %d more\n", len(s.violations)-i)
			break
		}
		fmt.Printf("  %s\n", v)
	}
}

// soakPanic is the value of every injected panic.
type soakPanic struct {
	inj  *injector
	task uint64
}

// injector decides which tasks of an operation panic: a task panics if a
// hash of the operation's seed and the task's id falls below a threshold,
// so that the decision is the same whichever worker runs the task, and
// tasks can decide concurrently. A nil injector never panics.
type injector struct {
	seed      uint64
	threshold uint64
	raised    atomic.Int64
	total     *atomic.Int64   // the soak's count of injected panics
	detached  *sync.WaitGroup // detached tasks not yet finished
}

func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// newInjector returns an injector for an operation of about tasks tasks:
// with probability panicRate one that panics about one to three of them,
// else nil.
func (s *soak) newInjector(r *rand.Rand, tasks int) *injector {
	if r.Float64() >= s.panicRate {
		return nil
	}
	per := float64(1+r.IntN(3)) / float64(max(tasks, 1))
	return &injector{seed: r.Uint64(), threshold: uint64(min(per, 1) * (1 << 63) * 2), total: &s.injected}
}

// maybe panics if task is one of the injected ones.
func (inj *injector) maybe(task uint64) {
	if inj == nil || splitmix(inj.seed^splitmix(task)) >= inj.threshold {
		return
	}
	inj.raised.Add(1)
	inj.total.Add(1)
	panic(soakPanic{inj, task})
}

func (inj *injector) detachedDone() { inj.detached.Done() }

// outcome checks how an operation ended: v is what it panicked with (nil
// if it returned). An operation with injected panics must re-panic with
// one of them as a *pool.PanicError; one without must return. It reports
// whether the operation returned normally.
func (s *soak) outcome(op int, inj *injector, v any) (returned bool) {
	raised := int64(0)
	if inj != nil {
		raised = inj.raised.Load()
	}
	switch {
	case v == nil && raised == 0:
		return true
	case v == nil:
		s.violate("%s: %d tasks panicked, the operation returned normally", opNames[op], raised)
	case raised == 0:
		s.violate("%s: unexpected panic %T: %v", opNames[op], v, v)
	default:
		pe, ok := v.(*pool.PanicError)
		if !ok {
			s.violate("%s: panicked with %T %v, want *pool.PanicError", opNames[op], v, v)
			break
		}
		if sp, ok := pe.Value.(soakPanic); !ok || sp.inj != inj {
			s.violate("%s: PanicError value %v is not one of the operation's injected panics", opNames[op], pe.Value)
			break
		}
		s.caught.Add(1)
	}
	return false
}

func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

const (
	opJoinSum = iota
	opScope
	opSort
	opSortFunc
	opMapReduce
	opFor
	opCross
	opDetached
	opFuture
	opChurn
	opCount
)

var opNames = [opCount]string{"joinsum", "scope", "sort", "sortfunc", "mapreduce", "for", "cross-pool", "detached", "future", "churn"}

// op runs one random operation on a random pool, from the calling
// goroutine (never a worker).
func (s *soak) op(r *rand.Rand) {
	p := s.pools[r.IntN(len(s.pools))]
	op := r.IntN(opCount)
	if op == opChurn && r.IntN(8) != 0 {
		op = opJoinSum // pool churn is slow: keep it rare
	}
	switch op {
	case opJoinSum:
		s.joinSum(r, p)
	case opScope:
		s.scope(r, p)
	case opSort:
		s.sort(r, p)
	case opSortFunc:
		s.sortFunc(r, p)
	case opMapReduce:
		s.mapReduce(r, p)
	case opFor:
		s.forRange(r, p)
	case opCross:
		s.cross(r, p, s.pools[r.IntN(len(s.pools))])
	case opDetached:
		s.detached(r, p)
	case opFuture:
		s.future(r, p)
	case opChurn:
		s.churn(r)
	}
	s.ops[op].Add(1)
}

// joinSum adds lo..hi-1 by halving with a join at every level (a random
// kind of join per operation), down to pieces of at most cutoff numbers,
// each counted in seen (exactly once) and maybe panicking.
func (s *soak) joinSum(r *rand.Rand, p *pool.Pool) {
	n := 1 + r.IntN(1<<14)
	cutoff := 1 + r.IntN(64)
	kind := r.IntN(4)
	inj := s.newInjector(r, n/cutoff)
	seen := make([]atomic.Int32, n)
	var sum func(lo, hi int) int
	sum = func(lo, hi int) int {
		if hi-lo <= cutoff {
			t := 0
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
				t += i
			}
			inj.maybe(uint64(lo))
			return t
		}
		mid := lo + (hi-lo)/2
		var a, b int
		switch kind {
		case 0:
			pool.Join(func() { a = sum(lo, mid) }, func() { b = sum(mid, hi) })
		case 1:
			p.Join(func() { a = sum(lo, mid) }, func() { b = sum(mid, hi) })
		case 2:
			a, b = forkjoin.Join(func() int { return sum(lo, mid) }, func() int { return sum(mid, hi) })
		default:
			a, b = forkjoin.Call(func(r [2]int) int { return sum(r[0], r[1]) }, [2]int{lo, mid}, [2]int{mid, hi})
		}
		return a + b
	}
	var got int
	v := catch(func() { p.Run(func() { got = sum(0, n) }) })
	if s.outcome(opJoinSum, inj, v) && got != n*(n-1)/2 {
		s.violate("joinsum(%d): got %d, want %d", n, got, n*(n-1)/2)
	}
	for i := range seen {
		if c := seen[i].Load(); c != 1 {
			s.violate("joinsum(%d): number %d added %d times", n, i, c)
			break
		}
	}
}

// scope runs a random tree of tasks spawned on one scope: node id's
// children are 5*id+1 .. 5*id+k, k from a hash, so the tree is known in
// advance and every node must run exactly once, panics or not.
func (s *soak) scope(r *rand.Rand, p *pool.Pool) {
	const fan, depth = 5, 5
	treeSeed := r.Uint64()
	children := func(id uint64, d int) int {
		if d >= depth {
			return 0
		}
		return int(splitmix(treeSeed^id) % fan)
	}
	size := 1
	for range depth + 1 {
		size = size*fan + 1
	}
	want := make([]bool, size)
	nodes := 0
	var mark func(id uint64, d int)
	mark = func(id uint64, d int) {
		want[id] = true
		nodes++
		for k := range children(id, d) {
			mark(fan*id+uint64(k)+1, d+1)
		}
	}
	mark(0, 0)
	inj := s.newInjector(r, nodes)
	ran := make([]atomic.Int32, size)
	var node func(sc *pool.Scope, id uint64, d int)
	node = func(sc *pool.Scope, id uint64, d int) {
		ran[id].Add(1)
		for k := range children(id, d) {
			child := fan*id + uint64(k) + 1
			sc.Spawn(func(sc *pool.Scope) { node(sc, child, d+1) })
		}
		inj.maybe(id) // after spawning: the children run anyway
	}
	v := catch(func() { p.Scope(func(sc *pool.Scope) { node(sc, 0, 0) }) })
	s.outcome(opScope, inj, v)
	for id := range ran {
		c, w := ran[id].Load(), int32(0)
		if want[id] {
			w = 1
		}
		if c != w {
			s.violate("scope tree of %d tasks: task %d ran %d times, want %d", nodes, id, c, w)
			break
		}
	}
}

// randomSlice returns n ints in one of a few shapes.
func randomSlice(r *rand.Rand, n int) []int {
	s := make([]int, n)
	switch r.IntN(5) {
	case 0: // random
		for i := range s {
			s[i] = r.Int()
		}
	case 1: // few distinct
		for i := range s {
			s[i] = r.IntN(8)
		}
	case 2: // sorted
		for i := range s {
			s[i] = i
		}
	case 3: // reversed
		for i := range s {
			s[i] = n - i
		}
	default: // sorted with a few swaps
		for i := range s {
			s[i] = i
		}
		for range 1 + n/1000 {
			if n > 0 {
				i, j := r.IntN(n), r.IntN(n)
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// sort sorts a random slice with forkjoin.Sort, on p or off-pool (then on
// pool.Default()), and compares with slices.Sort.
func (s *soak) sort(r *rand.Rand, p *pool.Pool) {
	in := randomSlice(r, r.IntN(200_000))
	want := slices.Clone(in)
	slices.Sort(want)
	got := slices.Clone(in)
	if r.IntN(2) == 0 {
		p.Run(func() { forkjoin.Sort(got) })
	} else {
		forkjoin.Sort(got)
	}
	if !slices.Equal(got, want) {
		s.violate("sort of %d ints: result differs from slices.Sort", len(in))
	}
}

// sortFunc sorts with forkjoin.SortFunc, whose comparison may panic: then
// the slice must still be a permutation of its input.
func (s *soak) sortFunc(r *rand.Rand, p *pool.Pool) {
	in := randomSlice(r, r.IntN(100_000))
	want := slices.Clone(in)
	slices.Sort(want)
	got := slices.Clone(in)
	inj := s.newInjector(r, 20*len(in)) // about n log n comparisons
	var calls atomic.Uint64
	cmp := func(a, b int) int {
		inj.maybe(calls.Add(1))
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	}
	v := catch(func() { p.Run(func() { forkjoin.SortFunc(got, cmp) }) })
	if s.outcome(opSortFunc, inj, v) {
		if !slices.Equal(got, want) {
			s.violate("sortfunc of %d ints: result differs from slices.Sort", len(in))
		}
		return
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		s.violate("sortfunc of %d ints: after a panic, the slice is not a permutation of its input", len(in))
	}
}

// mapReduce maps x to 2x+1 and sums the result, with panics in Map's
// function.
func (s *soak) mapReduce(r *rand.Rand, p *pool.Pool) {
	n := r.IntN(50_000)
	in := make([]int, n)
	for i := range in {
		in[i] = i
	}
	inj := s.newInjector(r, n)
	var out []int
	var total int
	v := catch(func() {
		p.Run(func() {
			out = forkjoin.Map(in, func(x int) int { inj.maybe(uint64(x)); return 2*x + 1 })
			total = forkjoin.Reduce(out, 0, func(a, b int) int { return a + b })
		})
	})
	if !s.outcome(opMapReduce, inj, v) {
		return
	}
	if len(out) != n || total != n*n {
		s.violate("mapreduce(%d): len %d, sum %d, want %d", n, len(out), total, n*n)
	}
}

// forRange runs forkjoin.For over a random range and grain (negative,
// zero, small, huge; sometimes an empty range) and checks that every index
// is covered exactly once, by non-empty chunks within the grain.
func (s *soak) forRange(r *rand.Rand, p *pool.Pool) {
	lo := r.IntN(2000) - 1000
	hi := lo + r.IntN(20_000) - 100 // sometimes hi < lo
	grain := []int{-5, 0, 1, 7, 100, 1 << 40}[r.IntN(6)]
	n := max(hi-lo, 0)
	seen := make([]atomic.Int32, n)
	chunks := 8 * p.Workers() // For's automatic grain
	if grain > 0 {
		chunks = n/grain + 1
	}
	inj := s.newInjector(r, chunks)
	var bad atomic.Value
	body := func(l, h int) {
		if l >= h || l < lo || h > hi || (grain > 0 && h-l > grain) {
			bad.CompareAndSwap(nil, fmt.Sprintf("bad chunk [%d, %d)", l, h))
		}
		for i := l; i < h; i++ {
			seen[i-lo].Add(1)
		}
		inj.maybe(uint64(l))
	}
	var v any
	if r.IntN(2) == 0 {
		v = catch(func() { p.Run(func() { forkjoin.For(lo, hi, grain, body) }) })
	} else {
		v = catch(func() { forkjoin.For(lo, hi, grain, body) })
	}
	s.outcome(opFor, inj, v)
	if b := bad.Load(); b != nil {
		s.violate("For(%d, %d, %d): %s", lo, hi, grain, b)
	}
	for i := range seen {
		if c := seen[i].Load(); c != 1 {
			s.violate("For(%d, %d, %d): index %d covered %d times", lo, hi, grain, lo+i, c)
			break
		}
	}
}

// cross calls from a worker of p into q and back, with joins on both.
func (s *soak) cross(r *rand.Rand, p, q *pool.Pool) {
	const leaves = 64
	inj := s.newInjector(r, leaves)
	var ran [leaves]atomic.Int32
	// Blocks of 16 leaves go to the other pool, and their blocks of 4
	// back to the first.
	var visit func(pl, other *pool.Pool, lo, hi int, switched bool)
	visit = func(pl, other *pool.Pool, lo, hi int, switched bool) {
		if hi-lo == 1 {
			ran[lo].Add(1)
			inj.maybe(uint64(lo))
			return
		}
		if (hi-lo == 16 || hi-lo == 4) && !switched {
			other.Run(func() { visit(other, pl, lo, hi, true) })
			return
		}
		mid := (lo + hi) / 2
		pl.Join(func() { visit(pl, other, lo, mid, false) }, func() { visit(pl, other, mid, hi, false) })
	}
	v := catch(func() { p.Run(func() { visit(p, q, 0, leaves, false) }) })
	s.outcome(opCross, inj, v)
	for i := range ran {
		if c := ran[i].Load(); c != 1 {
			s.violate("cross-pool: leaf %d ran %d times", i, c)
			break
		}
	}
}

// detached spawns tasks that nobody joins, from outside and from workers;
// the injected panics go to the pool's handler.
func (s *soak) detached(r *rand.Rand, p *pool.Pool) {
	n := 1 + r.IntN(32)
	inj := s.newInjector(r, n)
	if inj == nil {
		inj = &injector{} // threshold 0: never panics
	}
	var wg sync.WaitGroup
	inj.detached, inj.total = &wg, &s.detachedInj
	var ran atomic.Int32
	task := func(i int) func() {
		return func() {
			ran.Add(1)
			inj.maybe(uint64(i)) // if it panics, the handler calls Done
			wg.Done()
		}
	}
	wg.Add(n)
	for i := range n {
		if i%2 == 0 {
			p.Spawn(task(i))
		} else {
			p.Run(func() { p.Spawn(task(i)) }) // from a worker: its own deque
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		s.violate("detached: %d tasks spawned, %d ran, not all finished after a minute", n, ran.Load())
		return
	}
	if c := ran.Load(); c != int32(n) {
		s.violate("detached: %d tasks spawned, %d ran", n, c)
	}
}

// future submits tasks and waits for them, from outside and from inside
// tasks (a task waits for the futures it submitted).
func (s *soak) future(r *rand.Rand, p *pool.Pool) {
	n := 1 + r.IntN(16)
	inj := s.newInjector(r, 2*n)
	var got int
	v := catch(func() {
		futs := make([]*pool.Future[int], n)
		for i := range futs {
			futs[i] = pool.Submit(p, func() int {
				inner := pool.Submit(p, func() int { inj.maybe(uint64(2*i + 1)); return i })
				inj.maybe(uint64(2 * i))
				return inner.Wait() + i
			})
		}
		// Wait for all before re-panicking, so that no task outlives the
		// operation.
		var first any
		for _, f := range futs {
			if v := catch(func() { got += f.Wait() }); v != nil && first == nil {
				first = v
			}
		}
		if first != nil {
			panic(first)
		}
	})
	if s.outcome(opFuture, inj, v) && got != n*(n-1) {
		s.violate("future: %d tasks summed to %d, want %d", n, got, n*(n-1))
	}
}

// churn creates a pool, uses it a little (joins, a scope, a detached
// task), closes it, and checks that it refuses calls afterwards.
func (s *soak) churn(r *rand.Rand) {
	p, err := pool.New(pool.WithWorkers(1+r.IntN(4)), pool.WithPanicHandler(s.handler))
	if err != nil {
		s.violate("churn: pool.New: %v", err)
		return
	}
	s.joinSum(r, p)
	s.scope(r, p)
	var ran atomic.Bool
	p.Spawn(func() { ran.Store(true) })
	if err := p.Close(); err != nil {
		s.violate("churn: Close: %v", err)
	}
	if !ran.Load() {
		s.violate("churn: Close returned before a detached task ran")
	}
	v := catch(func() { p.Run(func() {}) })
	if err, ok := v.(error); !ok || !errors.Is(err, pool.ErrClosed) {
		s.violate("churn: Run on a closed pool panicked with %v, want ErrClosed", v)
	}
	s.churned.Add(1)
}
