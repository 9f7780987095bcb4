package pool_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// The helpers of these examples start with "ex", so as not to collide
// with those of the package's tests.

// exNode is a tree node for the walks of the examples.
type exNode struct {
	name     string
	children []*exNode
}

// exTree returns a small directory-like tree of 6 nodes.
func exTree() *exNode {
	return &exNode{name: "/", children: []*exNode{
		{name: "bin", children: []*exNode{{name: "sh"}}},
		{name: "etc", children: []*exNode{{name: "hosts"}, {name: "passwd"}}},
	}}
}

// exSum adds up s by halving it with pool.Join down to pieces of 1000.
func exSum(s []int) int {
	if len(s) <= 1000 {
		total := 0
		for _, x := range s {
			total += x
		}
		return total
	}
	var left, right int
	pool.Join(func() { left = exSum(s[:len(s)/2]) }, func() { right = exSum(s[len(s)/2:]) })
	return left + right
}

// exOneToN returns 1, 2, ..., n.
func exOneToN(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i + 1
	}
	return s
}

// exPool returns a pool of n workers, or stops the example.
func exPool(n int) *pool.Pool {
	p, err := pool.New(pool.WithWorkers(n))
	if err != nil {
		log.Fatal(err)
	}
	return p
}

// A pool, a recursive sum with Join and a tree walk with Scope.
func Example() {
	p, err := pool.New(pool.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	var total int
	p.Run(func() { total = exSum(exOneToN(100_000)) })
	fmt.Println(total)

	var visited atomic.Int32
	var walk func(s *pool.Scope, n *exNode)
	walk = func(s *pool.Scope, n *exNode) {
		visited.Add(1)
		for _, c := range n.children {
			s.Spawn(func(s *pool.Scope) { walk(s, c) })
		}
	}
	p.Scope(func(s *pool.Scope) { walk(s, exTree()) })
	fmt.Println(visited.Load(), "nodes")
	// Output:
	// 5000050000
	// 6 nodes
}

func ExampleNew() {
	p, err := pool.New(pool.WithWorkers(3))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	fmt.Println(p.Workers(), "workers")

	// Invalid options are errors, not panics.
	_, err = pool.New(pool.WithWorkers(0))
	fmt.Println(err)
	// Output:
	// 3 workers
	// pool.WithWorkers(0): want 1 to 4096 workers
}

func ExampleWithWorkers() {
	// Without WithWorkers a pool has runtime.GOMAXPROCS(0) workers; more
	// than that is allowed (the extra threads share the Ps).
	p, err := pool.New(pool.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	fmt.Println(p.Workers())
	// Output: 2
}

func ExampleWithPinning() {
	// Worker i runs on the i-th CPU of the process's affinity set (Linux;
	// the option is ignored elsewhere). Results do not change, only where
	// the threads run.
	p, err := pool.New(pool.WithWorkers(2), pool.WithPinning(true))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	var total int
	p.Run(func() { total = exSum(exOneToN(10_000)) })
	fmt.Println(total)
	// Output: 50005000
}

func ExampleWithLockedThreads() {
	// Workers as ordinary goroutines: for tasks that allocate (a closure
	// per spawned task, say), the garbage collector's preemptions then
	// cost no thread hand-offs. Results do not change.
	p, err := pool.New(pool.WithWorkers(2), pool.WithLockedThreads(false))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	var total int
	p.Run(func() { total = exSum(exOneToN(10_000)) })
	fmt.Println(total)
	// Output: 50005000
}

func ExampleWithPanicHandler() {
	// A detached task has no caller to re-panic in: its panic goes to the
	// handler, as a *pool.PanicError.
	handled := make(chan string, 1)
	p, err := pool.New(pool.WithWorkers(1), pool.WithPanicHandler(func(v any) {
		pe := v.(*pool.PanicError)
		handled <- fmt.Sprint("recovered: ", pe.Value)
	}))
	if err != nil {
		log.Fatal(err)
	}
	p.Spawn(func() { panic("disk full") })
	fmt.Println(<-handled)
	p.Close()
	// Output: recovered: disk full
}

func ExampleWithName() {
	// The name labels the workers in CPU and goroutine profiles, so that
	// a profile splits the time by pool and by worker.
	p, err := pool.New(pool.WithWorkers(2), pool.WithName("indexer"))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	var profile bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&profile, 1); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Contains(profile.String(), `"spindle.pool":"indexer"`))
	// Output: true
}

func ExampleWithTrace() {
	// The trace function runs on the pool's threads: keep it short.
	var mu sync.Mutex
	var events []pool.Event
	p, err := pool.New(pool.WithWorkers(2), pool.WithTrace(func(e pool.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}))
	if err != nil {
		log.Fatal(err)
	}
	p.Run(func() { exSum(exOneToN(1_000_000)) })
	p.Close()

	// Which events happen depends on the schedule; what they say does not.
	fromOthers := true
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		if e.Kind == pool.EventSteal && e.Worker == e.Victim {
			fromOthers = false
		}
	}
	fmt.Println("every steal from another worker:", fromOthers)
	fmt.Println(pool.Event{Kind: pool.EventSteal, Worker: 1, Victim: 0})
	fmt.Println(pool.Event{Kind: pool.EventSleep, Worker: 0, Victim: -1})
	// Output:
	// every steal from another worker: true
	// worker 1 stole from worker 0
	// worker 0: sleep
}

func ExamplePool_Workers() {
	p := exPool(2)
	defer p.Close()
	// One slot per worker index, each written only by its own worker:
	// MaxWorkers counts the spares that may run for blocked workers too.
	perWorker := make([]int, p.MaxWorkers())
	p.Run(func() { perWorker[pool.WorkerIndex()]++ })
	fmt.Println(p.Workers(), slices.Max(perWorker))
	// Output: 2 1
}

func ExamplePool_Run() {
	p := exPool(2)
	defer p.Close()
	// Run blocks until f has returned; inside f, the package-level calls
	// (Join, Spawn, Current) and forkjoin use p.
	var total int
	p.Run(func() { total = exSum(exOneToN(1000)) })
	fmt.Println(total)

	// A panic in f comes back as a *pool.PanicError.
	defer func() {
		pe := recover().(*pool.PanicError)
		fmt.Println("Run panicked:", pe.Value)
	}()
	p.Run(func() { panic("out of range") })
	// Output:
	// 500500
	// Run panicked: out of range
}

func ExamplePool_Join() {
	p := exPool(2)
	defer p.Close()
	words := []string{"steal", "fork", "join", "park"}
	var sorted []string
	var letters int
	p.Join(
		func() { sorted = slices.Sorted(slices.Values(words)) },
		func() {
			for _, w := range words {
				letters += len(w)
			}
		},
	)
	fmt.Println(sorted, letters)
	// Output: [fork join park steal] 17
}

func ExamplePool_Scope() {
	p := exPool(2)
	defer p.Close()
	// Scope returns when its body and everything spawned on the scope,
	// however deep, have finished.
	var mu sync.Mutex
	var names []string
	var walk func(s *pool.Scope, n *exNode)
	walk = func(s *pool.Scope, n *exNode) {
		mu.Lock()
		names = append(names, n.name)
		mu.Unlock()
		for _, c := range n.children {
			s.Spawn(func(s *pool.Scope) { walk(s, c) })
		}
	}
	p.Scope(func(s *pool.Scope) { walk(s, exTree()) })
	slices.Sort(names) // the tasks ran in any order
	fmt.Println(names)
	// Output: [/ bin etc hosts passwd sh]
}

func ExampleScope_Spawn() {
	p := exPool(2)
	defer p.Close()
	// Each task writes its own element, so the results need no lock.
	squares := make([]int, 8)
	p.Scope(func(s *pool.Scope) {
		for i := range squares {
			s.Spawn(func(*pool.Scope) { squares[i] = i * i })
		}
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

func ExamplePool_Spawn() {
	p := exPool(2)
	var done atomic.Int32
	for range 10 {
		p.Spawn(func() { done.Add(1) })
	}
	// Nothing waits for a detached task but Close.
	p.Close()
	fmt.Println(done.Load())
	// Output: 10
}

func ExamplePool_Close() {
	p := exPool(1)
	p.Spawn(func() { fmt.Println("detached task ran") })
	// Close waits for the detached task, then stops the workers.
	fmt.Println(p.Close())
	fmt.Println(p.Close()) // Close is idempotent
	// Output:
	// detached task ran
	// <nil>
	// <nil>
}

func ExampleWithWorkerHooks() {
	// Per-worker state set up on each worker's own thread before it runs
	// a task, and torn down as Close ends it.
	var mu sync.Mutex
	var log []string
	p, err := pool.New(pool.WithWorkers(2), pool.WithWorkerHooks(
		func(worker int) { mu.Lock(); log = append(log, fmt.Sprint("start ", worker)); mu.Unlock() },
		func(worker int) { mu.Lock(); log = append(log, fmt.Sprint("exit ", worker)); mu.Unlock() }))
	if err != nil {
		panic(err)
	}
	p.Close()
	slices.Sort(log)
	fmt.Println(strings.Join(log, ", "))
	// Output: exit 0, exit 1, start 0, start 1
}

func ExamplePool_CloseContext() {
	p := exPool(1)
	release := make(chan struct{})
	p.Spawn(func() { <-release; fmt.Println("detached task ran") })
	// A shutdown with a budget: CloseContext returns when it runs out,
	// and the pool goes on closing, dropping nothing.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := p.CloseContext(ctx)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	close(release)
	fmt.Println(p.Close()) // waits for the rest of the close
	// Output:
	// true
	// detached task ran
	// <nil>
}

func ExamplePool_CloseNow() {
	p, err := pool.New(pool.WithWorkers(1), pool.WithSpares(0))
	if err != nil {
		log.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	p.Spawn(func() { close(started); <-release; fmt.Println("the task under way finished") })
	<-started
	queued := pool.Submit(p, func() int { return 1 }) // behind it: never starts
	go func() {
		for !exClosing(p) {
			time.Sleep(time.Millisecond)
		}
		close(release)
	}()
	fmt.Println(p.CloseNow())
	fmt.Println(queued.Wait(), errors.Is(queued.Err(), pool.ErrClosed))
	// Output:
	// the task under way finished
	// <nil>
	// 0 true
}

// exClosing reports whether p has begun closing: it refuses calls from
// outside.
func exClosing(p *pool.Pool) (closing bool) {
	defer func() { closing = recover() != nil }()
	p.Spawn(func() {})
	return
}

func ExamplePool_Broadcast() {
	p := exPool(3)
	defer p.Close()
	// A scratch buffer per worker, made and first written by the worker's
	// own thread (with WithPinning, the memory then lies on its CPU's
	// NUMA node); tasks find theirs at buffers[pool.WorkerIndex()].
	buffers := make([][]float64, p.MaxWorkers())
	p.Broadcast(func(worker int) {
		b := make([]float64, 1<<16)
		for i := range b {
			b[i] = 1
		}
		buffers[worker] = b
	})
	made := 0
	for _, b := range buffers {
		if b != nil {
			made++
		}
	}
	fmt.Println(made, "buffers")
	// Output: 3 buffers
}

func ExamplePool_Stats() {
	p := exPool(2)
	defer p.Close()
	p.Run(func() { exSum(exOneToN(100_000)) })
	// The counters depend on the schedule; this call from a goroutine
	// that is no worker ran on it, as a guest of the pool.
	st := p.Stats()
	fmt.Println(st.Workers, st.GuestCalls)
	// Output: 2 1
}

func ExamplePerWorker() {
	p, err := pool.New(pool.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	// A task per node returns nothing: each worker counts in its own
	// value, and Combine adds them up once the scope is done.
	leaves := pool.NewPerWorker[int](p)
	var visit func(s *pool.Scope, depth int)
	visit = func(s *pool.Scope, depth int) {
		if depth == 0 {
			leaves.Update(func(n *int) { *n++ })
			return
		}
		for range 3 {
			s.Spawn(func(s *pool.Scope) { visit(s, depth-1) })
		}
	}
	p.Scope(func(s *pool.Scope) { visit(s, 5) })
	fmt.Println(leaves.Combine(func(a, b int) int { return a + b }))
	// Output: 243
}

func ExampleSetDefault() {
	// A program that wants other options for its calls made outside any
	// pool makes its pool and sets it as the default, first thing.
	p, err := pool.New(pool.WithWorkers(2), pool.WithLockedThreads(false))
	if err != nil {
		log.Fatal(err)
	}
	previous := pool.Default()
	pool.SetDefault(p)
	var onP bool
	pool.Join(func() {}, func() {})
	pool.Default().Run(func() { onP = pool.Current() == p })
	fmt.Println(onP, errors.Is(p.Close(), pool.ErrCloseDefault))

	pool.SetDefault(previous) // p is no longer the default: it can be closed
	fmt.Println(p.Close())
	// Output:
	// true true
	// <nil>
}

func ExampleDefault() {
	// The default pool is created on first use (unless SetDefault came
	// first); the package-level calls and forkjoin use it off-pool.
	p := pool.Default()
	var total int
	p.Run(func() { total = exSum(exOneToN(1000)) })
	fmt.Println(total, p == pool.Default())
	// Output: 500500 true
}

func ExampleCurrent() {
	p := exPool(1)
	defer p.Close()
	fmt.Println(pool.Current() == pool.Default()) // not on a worker
	p.Run(func() { fmt.Println(pool.Current() == p) })
	// Output:
	// true
	// true
}

func ExampleWorkerIndex() {
	p := exPool(1)
	defer p.Close()
	fmt.Println(pool.WorkerIndex()) // not on a worker
	// A call from a goroutine runs on it, a guest of the pool for the
	// call: its index is past the workers', below MaxWorkers.
	p.Run(func() { fmt.Println(pool.WorkerIndex() >= p.Workers()) })
	// A task on a worker.
	p.Spawn(func() { fmt.Println(pool.WorkerIndex()) })
	// Output:
	// -1
	// true
	// 0
}

func ExampleJoin() {
	p := exPool(2)
	defer p.Close()
	// Inside p's tasks, pool.Join forks on p; off-pool it would use
	// Default().
	var total int
	p.Run(func() { total = exSum(exOneToN(1_000_000)) })
	fmt.Println(total)
	// Output: 500000500000
}

func ExampleSpawn() {
	p := exPool(2)
	var logged atomic.Int32
	p.Run(func() {
		// From a task of p, Spawn detaches onto p: Close waits for it.
		pool.Spawn(func() { logged.Add(1) })
	})
	p.Close()
	fmt.Println(logged.Load())
	// Output: 1
}

func ExampleBlock() {
	p := exPool(1)
	defer p.Close()
	// One task waits for another. On one worker, waiting outside Block
	// would hold the only thread and the other task would never run;
	// inside Block the worker runs it meanwhile.
	ready := make(chan string, 1)
	p.Scope(func(s *pool.Scope) {
		s.Spawn(func(*pool.Scope) { ready <- "config" })
		s.Spawn(func(*pool.Scope) {
			pool.Block(func() { fmt.Println("got", <-ready) })
		})
	})
	// Output: got config
}

func ExampleIsolate() {
	p := exPool(2)
	defer p.Close()
	// A cache that tasks update under a lock, each update forking. Inside
	// the lock, Isolate keeps the waiting worker from starting another
	// queued update, which would block on the lock its caller holds.
	var mu sync.Mutex
	cache := map[string]int{}
	update := func(key string, values []int) {
		mu.Lock()
		defer mu.Unlock()
		pool.Isolate(func() {
			var left, right int
			half := len(values) / 2
			pool.Join(func() { left = exSum(values[:half]) }, func() { right = exSum(values[half:]) })
			cache[key] = left + right
		})
	}
	p.Scope(func(s *pool.Scope) {
		for i, key := range []string{"a", "b", "c", "d"} {
			s.Spawn(func(*pool.Scope) { update(key, exOneToN(1000*(i+1))) })
		}
	})
	fmt.Println(cache["a"], cache["b"], cache["c"], cache["d"])
	// Output: 500500 2001000 4501500 8002000
}

func ExampleSubmit() {
	p := exPool(2)
	defer p.Close()
	// Submit starts a task at once and returns its future.
	f := pool.Submit(p, func() int { return exSum(exOneToN(100)) })
	fmt.Println(f.Wait())
	// Output: 5050
}

func ExampleFuture_Wait() {
	p := exPool(2)
	defer p.Close()
	sizes := []*pool.Future[int]{
		pool.Submit(p, func() int { return len("spindle") }),
		pool.Submit(p, func() int { return len("pool") }),
	}
	for _, f := range sizes {
		fmt.Println(f.Wait())
	}
	// Wait re-panics with the task's *pool.PanicError, on every call.
	bad := pool.Submit(p, func() int { panic("no input") })
	defer func() { fmt.Println("Wait panicked:", recover().(*pool.PanicError).Value) }()
	bad.Wait()
	// Output:
	// 7
	// 4
	// Wait panicked: no input
}

func ExampleFuture_Done() {
	p := exPool(1)
	defer p.Close()
	release := make(chan struct{})
	f := pool.Submit(p, func() string {
		pool.Block(func() { <-release })
		return "report"
	})
	select {
	case <-f.Done():
		fmt.Println("done too early")
	default:
		fmt.Println("still running")
	}
	close(release)
	<-f.Done()
	fmt.Println(f.Wait())
	// Output:
	// still running
	// report
}

func ExampleFuture_TryGet() {
	p := exPool(1)
	defer p.Close()
	release := make(chan struct{})
	f := pool.Submit(p, func() int {
		pool.Block(func() { <-release })
		return 42
	})
	v, ok := f.TryGet()
	fmt.Println(v, ok)
	close(release)
	f.Wait()
	v, ok = f.TryGet()
	fmt.Println(v, ok)
	// Output:
	// 0 false
	// 42 true
}

func ExamplePanicError() {
	p := exPool(2)
	defer p.Close()
	errBadRecord := errors.New("bad record")
	defer func() {
		err := recover().(error)
		var pe *pool.PanicError
		fmt.Println(errors.As(err, &pe), pe.Value)
		// Unwrap returns the value when it is an error.
		fmt.Println(errors.Is(err, errBadRecord))
		fmt.Println(len(pe.Stack) > 0) // where the task panicked
	}()
	p.Join(func() {}, func() { panic(errBadRecord) })
	// Output:
	// true bad record
	// true
	// true
}

func ExampleErrClosed() {
	p := exPool(1)
	p.Close()
	defer func() {
		err, _ := recover().(error)
		fmt.Println(errors.Is(err, pool.ErrClosed))
	}()
	p.Run(func() {})
	// Output: true
}

func ExampleErrCloseFromWorker() {
	p := exPool(1)
	defer p.Close()
	p.Run(func() {
		fmt.Println(errors.Is(p.Close(), pool.ErrCloseFromWorker))
	})
	// Output: true
}

// The default pool serves every package-level call made outside a pool,
// so it cannot be closed: Close says so and leaves it running.
func ExampleErrCloseDefault() {
	fmt.Println(errors.Is(pool.Default().Close(), pool.ErrCloseDefault))
	ran := false
	pool.Default().Run(func() { ran = true })
	fmt.Println(ran)
	// Output:
	// true
	// true
}

// Analyze runs a computation once, every fork serially, and says how
// parallel it is: the work (all its strands), the span (its critical
// path) and the speedup they predict on any number of workers. Here exSum
// halves 2^20 numbers down to pieces of at most 1000: 2048 leaves of 512,
// 2047 forks. The durations depend on the machine, so the example prints them
// only as a check that the span is shorter than the work.
func ExampleAnalyze() {
	s := exOneToN(1 << 20) // outside: filling s is serial work
	var total int
	a := pool.Analyze(func() { total = exSum(s) })
	fmt.Println("sum:", total)
	fmt.Println("forks:", a.Forks)
	fmt.Println("span < work:", a.Span < a.Work)
	lo, up := a.Speedup(8)
	fmt.Println("8 workers, predicted speedup within [1, 8]:", 1 <= up && lo <= up && up <= 8)
	// In five runs on the 2-core test machine a.Parallelism() was 19 to
	// 64 and the lower bound of a.Speedup(8) 5.6 to 7.1: a span of tens
	// of microseconds (leaves of 512 additions) is sensitive to noise.

	// Output:
	// sum: 549756338176
	// forks: 2047
	// span < work: true
	// 8 workers, predicted speedup within [1, 8]: true
}

// AnalyzeCPU is Analyze timing strands in the analysis thread's CPU time:
// on a busy machine, the time the thread waited for a CPU does not count.
func ExampleAnalyzeCPU() {
	s := exOneToN(1 << 17)
	a := pool.AnalyzeCPU(func() {
		pool.Join(func() { exSum(s[:1<<16]) }, func() { exSum(s[1<<16:]) })
	})
	fmt.Println("forks:", a.Forks)
	// Output:
	// forks: 255
}
