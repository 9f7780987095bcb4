package bench

import (
	goruntime "runtime"
	"sync"

	"github.com/sourcegraph/conc"
	"golang.org/x/sync/errgroup"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// The fib kernels compute the n-th Fibonacci number by plain double
// recursion (fib(n) = n for n < 2). Every parallel variant forks at every
// level, with no sequential cutoff, so the work per fork is a single add:
// what they measure is the cost of a fork and its join.

// FibSerial is the baseline: the same recursion without forks.
func FibSerial(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	return FibSerial(n-1) + FibSerial(n-2)
}

// FibCall forks with forkjoin.Call. Run it on a worker of the pool to
// measure (inside Pool.Run); from any other goroutine forkjoin.Call uses
// pool.Default().
func FibCall(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	a, b := forkjoin.Call(FibCall, n-1, n-2)
	return a + b
}

// FibJoin forks with pool.Join and two closures. Like FibCall, it runs on
// the pool of the worker that calls it.
func FibJoin(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	var a, b int64
	pool.Join(func() { a = FibJoin(n - 1) }, func() { b = FibJoin(n - 2) })
	return a + b
}

// FibClosureFloor is serial fib with the heap traffic that Go imposes on
// a closure-based fork, and nothing else: at every level it allocates the
// closure for the second call and the variable that closure writes (the
// two allocations left in FibJoin; see pool.Join), then makes both calls
// itself. No runtime can fork closures for less in Go, since a closure that
// another thread may run must live on the heap; FibJoin's distance from
// this floor is what spindle adds.
func FibClosureFloor(n int) int64 { return fibClosureFloor(n, &floorSink) }

// FibClosureFloorP is FibClosureFloor's throughput on threads threads:
// that many goroutines, each locked to an OS thread as a pool's workers
// are and each publishing to a sink of its own (one shared sink would
// measure the contention on its cache line), compute fib(n) at once. The
// time of the whole divided by threads is the time per fib(n) when that
// many threads share the cores and the garbage collector: the floor of a
// closure fork's time at that many workers. It returns one result (-1 if
// the copies disagree).
func FibClosureFloorP(n, threads int) int64 {
	sinks := make([]closureSink, threads)
	return floorCopies(threads, func(i int) int64 { return fibClosureFloor(n, &sinks[i]) })
}

// floorCopies runs copies copy(0) .. copy(copies-1) at once, each on a
// goroutine locked to its OS thread, and returns their common result, or
// -1 if they disagree.
func floorCopies(copies int, copy func(i int) int64) int64 {
	got := make([]struct {
		v int64
		_ [120]byte // each copy writes a line of its own
	}, copies)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			got[i].v = copy(i)
		})
	}
	wg.Wait()
	for i := range got {
		if got[i].v != got[0].v {
			return -1
		}
	}
	return got[0].v
}

func fibClosureFloor(n int, sink *closureSink) int64 {
	if n < 2 {
		return int64(n)
	}
	var a, b int64
	first := func() { a = fibClosureFloor(n-1, sink) }
	second := func() { b = fibClosureFloor(n-2, sink) }
	sink.publish(second)
	first()
	second()
	return a + b
}

// closureSink keeps a published closure reachable, so that the compiler
// must heap-allocate it as a fork's job would be. The padding keeps the
// sinks of different threads off each other's cache lines.
type closureSink struct {
	//lint:ignore U1000 written only: the store is what forces the allocation
	f func()
	_ [120]byte
}

var floorSink closureSink

//go:noinline
func (s *closureSink) publish(f func()) { s.f = f }

// FibWaitGroup starts a goroutine for fib(n-1) at every level, computes
// fib(n-2) itself and waits on a sync.WaitGroup. Its parallelism is
// GOMAXPROCS.
func FibWaitGroup(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	var wg sync.WaitGroup
	var a int64
	wg.Go(func() { a = FibWaitGroup(n - 1) })
	b := FibWaitGroup(n - 2)
	wg.Wait()
	return a + b
}

// FibErrgroup is FibWaitGroup with an errgroup.Group per fork.
func FibErrgroup(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	var g errgroup.Group
	var a int64
	g.Go(func() error { a = FibErrgroup(n - 1); return nil })
	b := FibErrgroup(n - 2)
	_ = g.Wait() // the function above never fails
	return a + b
}

// FibConc is FibWaitGroup with a conc.WaitGroup (which also carries
// panics to Wait) per fork.
func FibConc(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	var wg conc.WaitGroup
	var a int64
	wg.Go(func() { a = FibConc(n - 1) })
	b := FibConc(n - 2)
	wg.Wait()
	return a + b
}

// FibExpected returns fib(n) computed by iteration, to check the kernels'
// results. It wraps around for n > 92, as the kernels do.
func FibExpected(n int) int64 {
	var a, b int64 = 0, 1
	for range max(n, 0) {
		a, b = b, a+b
	}
	return a
}

// FibForks returns how many forks the parallel fib kernels make for n:
// one per call with n >= 2, that is fib(n+1) - 1.
func FibForks(n int) int64 {
	if n < 2 {
		return 0
	}
	return FibExpected(n+1) - 1
}
