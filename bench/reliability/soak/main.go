// Command soak runs random fork-join workloads on a few pools, from several
// goroutines, for a bounded time, and checks every result:
//
//	go run ./bench/reliability/soak -duration 10s
//
// Every operation belongs to a family, one per public API family (the
// table in families.go): joins, scopes, For, Map and Reduce, the sorts and
// searches, groups (errors, limits, cancellation, nesting), ForErr and
// MapErr, futures, Block, Isolate (forks under a lock), pools closed
// while calls and tasks race with Close, and many goroutines calling one
// pool at once, as a server's handlers do (callers.go). Panics are injected in a share of
// the operations (-panic-rate), at random tasks, and recovered: an
// operation with an injected panic must re-panic with a *pool.PanicError
// carrying one of them; one without must return the right result.
//
// Each family checks its contract: every task handed over ran exactly
// once, or its caller got an error or a panic that says it may not have;
// results equal the serial definition; the error returned is the first
// one, or the cause of the cancelled context; a closed pool refuses calls
// with an error wrapping pool.ErrClosed, leaves no goroutine behind and
// its workers' threads end; no operation runs longer than -stall (the
// goroutine stacks then go to stderr).
//
// The checks are shown to fail with -mutant: the soak's own wrappers
// around the API then misbehave the way a broken library would (mutant.go),
// and the run must report violations; with -fail-fast it ends at the first.
//
// At the end it prints, per family, the operations done, the panics
// injected and the violations, then every violation; the exit status is 1
// if there was any, 2 for bad flags. Each calling goroutine draws its
// operations from a generator seeded with -seed and its number, so a run
// with the same seed, goroutines and duration repeats the same operations
// (the interleavings differ).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

func main() {
	duration := flag.Duration("duration", time.Minute, "how long to generate work")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "workers of the main pool (the others have 1 and workers+1)")
	seed := flag.Uint64("seed", 0, "random seed (0: from the clock; printed)")
	goroutines := flag.Int("goroutines", 6, "goroutines calling the pools")
	panicRate := flag.Float64("panic-rate", 0.05, "share of operations with injected panics")
	stall := flag.Duration("stall", time.Minute, "longest time an operation may take before the run counts as hung")
	mutantName := flag.String("mutant", "", "make the soak's wrappers break a contract, to show the checks catch it: "+strings.Join(mutantNames[1:], ", "))
	failFast := flag.Bool("fail-fast", false, "end the run at the first violation")
	flag.Parse()
	m, ok := parseMutant(*mutantName)
	if !ok || flag.NArg() > 0 || *duration <= 0 || *workers < 1 || *goroutines < 1 || *panicRate < 0 || *panicRate > 1 || *stall <= 0 {
		fmt.Fprintln(os.Stderr, "soak: bad flags")
		flag.Usage()
		os.Exit(2)
	}
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())
	}
	s := &soak{seed: *seed, panicRate: *panicRate, mutant: m, failFast: *failFast}
	os.Exit(s.run(*duration, *workers, *goroutines, *stall))
}

type soak struct {
	seed      uint64
	panicRate float64
	mutant    mutant
	failFast  bool
	pools     []*pool.Pool // main, single-worker, oversubscribed
	start     time.Time

	fams         [famCount]famCounts
	caught       atomic.Int64 // operations that re-panicked as expected
	detachedInj  atomic.Int64 // panics raised by detached tasks
	detachedSeen atomic.Int64 // of those, delivered to a panic handler
	closed       atomic.Int64 // pools created and closed by the close family
	refusedCalls atomic.Int64 // calls of the callers family refused by a closed pool
	callers      []caller
	threads      threadWatch
	locks        sync.Map    // *pool.Pool -> *lockedCount, the isolate family's lock per pool
	over         atomic.Bool // the run is ending: callers finish their operation and return

	mu         sync.Mutex
	violations []string
	first      time.Duration // when the first violation was recorded
}

// famCounts are one family's counters.
type famCounts struct {
	ops, injected, violations atomic.Int64
}

// caller is what the stall detector knows of a calling goroutine: when its
// current operation started (0 between operations) and its family.
type caller struct {
	since atomic.Int64
	fam   atomic.Int32
}

// violate records a broken invariant of family f.
func (s *soak) violate(f fam, format string, args ...any) {
	s.fams[f].violations.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.violations) == 0 {
		s.first = time.Since(s.start)
	}
	s.violations = append(s.violations, families[f].name+": "+fmt.Sprintf(format, args...))
	if s.failFast {
		s.over.Store(true)
	}
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
		s.violate(famDetached, "panic handler: got %T %v, want *pool.PanicError", v, v)
		return
	}
	sp, ok := pe.Value.(soakPanic)
	if !ok {
		s.violate(famDetached, "panic handler: PanicError value %T %v, want an injected panic", pe.Value, pe.Value)
		return
	}
	s.detachedSeen.Add(1)
	sp.inj.detachedDone()
}

func (s *soak) run(duration time.Duration, workers, goroutines int, stall time.Duration) int {
	fmt.Printf("soak: duration %v, seed %d, main pool %d workers, %d goroutines, GOMAXPROCS %d, panic rate %g\n",
		duration, s.seed, workers, goroutines, runtime.GOMAXPROCS(0), s.panicRate)
	if s.mutant != mutNone {
		fmt.Printf("mutant %s: %s\n", mutantNames[s.mutant], mutantDocs[s.mutant])
	}
	pool.Default() // created once for good: not part of the goroutine count below
	baseline := runtime.NumGoroutine()
	for _, n := range []int{workers, 1, workers + 1} {
		opts := []pool.Option{pool.WithWorkers(n), pool.WithPanicHandler(s.handler)}
		if s.mutant == mutNoSpares {
			opts = append(opts, pool.WithSpares(0))
		}
		p, err := pool.New(opts...)
		if err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			return 2
		}
		s.pools = append(s.pools, p)
	}

	s.start = time.Now()
	deadline := s.start.Add(duration)
	s.callers = make([]caller, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(s.seed, uint64(g)))
			c := &s.callers[g]
			for !s.over.Load() && time.Now().Before(deadline) {
				f := pickFamily(r)
				c.fam.Store(int32(f))
				c.since.Store(time.Now().UnixNano())
				s.op(r, f)
				c.since.Store(0)
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
			fmt.Printf("  %v: %d operations, %d violations\n", time.Since(s.start).Round(time.Second), s.total(), s.violationCount())
		case <-check.C:
			s.threads.check(s, 10*time.Second)
			if s.stalled(stall) {
				hung = true
				break wait
			}
		}
	}
	if !hung {
		for i, p := range s.pools {
			if err := p.Close(); err != nil {
				s.violate(famClose, "Close of pool %d: %v", i, err)
			}
		}
		// Spares the default pool started stay, parked, for reuse, as its
		// workers do.
		d := pool.Default().Stats()
		baseline += len(d.PerWorker) - d.Workers
		g := runtime.NumGoroutine()
		for wait := time.Now().Add(10 * time.Second); g > baseline && time.Now().Before(wait); g = runtime.NumGoroutine() {
			time.Sleep(time.Millisecond)
		}
		if g > baseline {
			s.violate(famClose, "%d goroutines after closing every pool, %d before creating them", g, baseline)
			dumpGoroutines()
		}
		s.threads.drain(s, 10*time.Second)
		if inj, seen := s.detachedInj.Load(), s.detachedSeen.Load(); inj != seen {
			s.violate(famDetached, "%d detached tasks panicked, the handler got %d", inj, seen)
		}
	}
	s.report(time.Since(s.start))
	if s.violationCount() > 0 {
		return 1
	}
	return 0
}

// stalled reports whether some caller's operation has run longer than
// stall, and if so records it and dumps every goroutine's stack.
func (s *soak) stalled(stall time.Duration) bool {
	for g := range s.callers {
		c := &s.callers[g]
		since := c.since.Load()
		if since == 0 {
			continue
		}
		if d := time.Since(time.Unix(0, since)); d > stall {
			f := fam(c.fam.Load())
			s.violate(f, "goroutine %d: operation running for %v: hung (goroutine stacks on stderr)", g, d.Round(time.Second))
			dumpGoroutines()
			return true
		}
	}
	return false
}

func dumpGoroutines() {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
	os.Stderr.Write(buf.Bytes())
}

func (s *soak) total() int64 {
	var n int64
	for f := range s.fams {
		n += s.fams[f].ops.Load()
	}
	return n
}

func (s *soak) report(elapsed time.Duration) {
	fmt.Printf("soak: %v, seed %d\n", elapsed.Round(time.Millisecond), s.seed)
	fmt.Printf("%-14s %10s %10s %10s\n", "family", "operations", "panics", "violations")
	var injected int64
	for f := range s.fams {
		c := &s.fams[f]
		injected += c.injected.Load()
		fmt.Printf("%-14s %10d %10d %10d\n", families[f].name, c.ops.Load(), c.injected.Load(), c.violations.Load())
	}
	fmt.Printf("operations: %d; fewest in a family: %d\n", s.total(), s.fewest())
	fmt.Printf("panics injected: %d in tasks of operations (%d of them in detached tasks)\n", injected, s.detachedInj.Load())
	fmt.Printf("panics caught: %d operations re-panicked with an injected panic, %d detached panics reached the handler\n", s.caught.Load(), s.detachedSeen.Load())
	fmt.Printf("pools created and closed while running: %d; worker threads seen to end: %d; calls refused by a closing pool: %d\n",
		s.closed.Load(), s.threads.ended.Load(), s.refusedCalls.Load())
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
	if len(s.violations) > 0 {
		fmt.Printf("first violation after %v\n", s.first.Round(time.Millisecond))
	}
	for i, v := range s.violations {
		if i == 20 {
			fmt.Printf("  ... and %d more\n", len(s.violations)-i)
			break
		}
		fmt.Printf("  %s\n", v)
	}
}

// fewest is the operation count of the least exercised family.
func (s *soak) fewest() int64 {
	n := s.fams[0].ops.Load()
	for f := range s.fams {
		n = min(n, s.fams[f].ops.Load())
	}
	return n
}
