package pool_test

// Stress tests: random mixes of every way into a pool, from many goroutines
// at once, with random panics; Close racing with callers; pools created and
// closed in a loop; GOMAXPROCS below, above and changing under the pool;
// very deep recursion. Each test runs for a time budget (stressBudget), far
// below the watchdog's limit, so that together they add a few seconds to
// go test -race ./pool on two cores. Failures print the seed; set
// SPINDLE_STRESS_SEED to replay one (the schedule still differs, the random
// trees do not).

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	xorshift64 "github.com/spindle-go/spindle/internal/xorshift"
	"github.com/spindle-go/spindle/pool"
)

// stressBudget is how long one stress test keeps generating work: enough
// for thousands of random calls, short enough for go test on two cores.
func stressBudget() time.Duration {
	switch {
	case testing.Short():
		return 200 * time.Millisecond
	case stressRace:
		return 1500 * time.Millisecond
	default:
		return time.Second
	}
}

// stressSeed is the base seed of a test's random choices, logged so that a
// failure can be replayed with SPINDLE_STRESS_SEED.
func stressSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SPINDLE_STRESS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "SPINDLE_STRESS_SEED")
		seed = v
	}
	t.Logf("seed %d (SPINDLE_STRESS_SEED=%d to replay)", seed, seed)
	return seed
}

// A stress tree is a random program of nested fork-join calls. Internal
// nodes fork (each kind a different entry point); leaves count their runs
// in the tree's counters, keyed by leaf id, and some panic right after
// counting. Every leaf must run exactly once whatever panics: all the
// forks wait for both (all) of their parts, and kFor runs every index of a
// chunk before re-panicking (stressRunAll).
type stressKind int

const (
	kLeaf     stressKind = iota
	kPoolJoin            // p.Join(c0, c1)
	kPkgJoin             // pool.Join(c0, c1): the current pool
	kScope               // p.Scope: children[1:] spawned (every other one from a spawned task), c0 run by the body
	kGoScope             // p.Scope whose children are spawned from plain goroutines
	kRun                 // p.Run(c0)
	kOtherRun            // q.Run(c0): another pool, whose workers call back into p
	kCall                // forkjoin.Call
	kDo                  // forkjoin.Do
	kFJJoin              // forkjoin.Join
	kFor                 // forkjoin.For over the children, with a random grain
	kDetached            // p.Spawn(leaf): counted, its panic goes to p's handler
	kFuture              // pool.Submit(p, c0).Wait()
	kindCount
)

var kindNames = [kindCount]string{"leaf", "p.Join", "pool.Join", "p.Scope", "p.Scope+go", "p.Run", "q.Run", "forkjoin.Call", "forkjoin.Do", "forkjoin.Join", "forkjoin.For", "p.Spawn", "pool.Submit"}

type stressNode struct {
	kind     stressKind
	id       int  // leaf id, an index into the tree's counters
	panics   bool // leaf: panics with stressPanic after counting
	work     int  // leaf: iterations of busy work
	grain    int  // kFor
	children []*stressNode
}

// stressPanic is the value a panicking leaf panics with.
type stressPanic struct {
	tree *stressTree
	id   int
}

// stressEnv is what trees run on: p, the pool under test (its panic
// handler routes detached panics back to their tree), and q, a second pool.
type stressEnv struct {
	p, q       *pool.Pool
	unexpected atomic.Pointer[string] // first bad value seen by p's panic handler
}

func newStressEnv(t *testing.T, pWorkers, qWorkers int) *stressEnv {
	t.Helper()
	env := &stressEnv{}
	// At the test's GOMAXPROCS: the mix must hold with workers parked
	// past it too (TestStressMoreWorkersThanGOMAXPROCS).
	env.p = newPoolAtProcs(t, pool.WithWorkers(pWorkers), pool.WithPanicHandler(env.handleDetachedPanic))
	env.q = newPoolAtProcs(t, pool.WithWorkers(qWorkers))
	return env
}

func (env *stressEnv) handleDetachedPanic(v any) {
	pe, ok := v.(*pool.PanicError)
	if !ok {
		msg := fmt.Sprintf("panic handler got %T %v, want *pool.PanicError", v, v)
		env.unexpected.CompareAndSwap(nil, &msg)
		return
	}
	sp, ok := pe.Value.(stressPanic)
	if !ok {
		msg := fmt.Sprintf("panic handler got value %T %v, want a stressPanic", pe.Value, pe.Value)
		env.unexpected.CompareAndSwap(nil, &msg)
		return
	}
	sp.tree.handled[sp.id].Add(1)
	sp.tree.pending.Done()
}

type stressTree struct {
	env      *stressEnv
	root     *stressNode
	leaves   []*stressNode
	detached map[int]bool    // ids of the leaves under kDetached
	counts   []atomic.Int32  // runs per leaf id
	handled  []atomic.Int32  // panic handler calls per leaf id
	pending  sync.WaitGroup  // detached leaves not yet finished
	sink     atomic.Uint64   // keeps the leaves' busy work alive
	kinds    [kindCount]bool // kinds present, for coverage counts
}

// genStressTree builds a random tree of at most about maxLeaves leaves;
// each leaf panics with probability panicRate.
func genStressTree(env *stressEnv, r *rand.Rand, maxDepth, maxLeaves int, panicRate float64) *stressTree {
	t := &stressTree{env: env, detached: map[int]bool{}}
	// The root forks (a panicking leaf at the top would not be a
	// *PanicError) and is not detached (it would have no result to check).
	t.root = t.gen(r, maxDepth, maxLeaves, panicRate, true)
	t.counts = make([]atomic.Int32, len(t.leaves))
	t.handled = make([]atomic.Int32, len(t.leaves))
	return t
}

func (t *stressTree) leaf(r *rand.Rand, panicRate float64) *stressNode {
	n := &stressNode{kind: kLeaf, id: len(t.leaves), panics: r.Float64() < panicRate, work: r.IntN(200)}
	t.leaves = append(t.leaves, n)
	return n
}

func (t *stressTree) gen(r *rand.Rand, depth, maxLeaves int, panicRate float64, root bool) *stressNode {
	if !root && (depth == 0 || len(t.leaves) >= maxLeaves || r.IntN(4) == 0) {
		return t.leaf(r, panicRate)
	}
	kind := stressKind(1 + r.IntN(int(kindCount)-1))
	if root && kind == kDetached {
		kind = kPoolJoin
	}
	t.kinds[kind] = true
	n := &stressNode{kind: kind}
	children := 0
	switch kind {
	case kPoolJoin, kPkgJoin, kCall, kDo, kFJJoin:
		children = 2
	case kScope:
		children = 1 + r.IntN(4)
	case kGoScope:
		children = 1 + r.IntN(3)
	case kRun, kOtherRun, kFuture:
		children = 1
	case kFor:
		children = 1 + r.IntN(8)
		n.grain = []int{-3, 0, 1, 2, 3, 1 << 30}[r.IntN(6)]
	case kDetached:
		leaf := t.leaf(r, panicRate)
		t.detached[leaf.id] = true
		n.children = []*stressNode{leaf}
		return n
	}
	for range children {
		n.children = append(n.children, t.gen(r, depth-1, maxLeaves, panicRate, false))
	}
	return n
}

// possible returns the ids of the leaves whose panic n may re-raise, or nil
// if n returns normally. Two-way forks and For re-raise their first part's
// panic (For's lowest index), a scope any of its parts' (the first to
// happen), a detached task none.
func possible(n *stressNode) []int {
	switch n.kind {
	case kLeaf:
		if n.panics {
			return []int{n.id}
		}
		return nil
	case kDetached:
		return nil
	case kScope, kGoScope:
		var ids []int
		for _, c := range n.children {
			ids = append(ids, possible(c)...)
		}
		return ids
	default: // the first child that panics
		for _, c := range n.children {
			if ids := possible(c); ids != nil {
				return ids
			}
		}
		return nil
	}
}

// expectedSum is what exec returns for n when nothing panics: the sum of
// id+1 over its leaves that are not detached.
func expectedSum(n *stressNode) int {
	switch n.kind {
	case kLeaf:
		return n.id + 1
	case kDetached:
		return 0
	}
	s := 0
	for _, c := range n.children {
		s += expectedSum(c)
	}
	return s
}

// exec runs n and returns the sum of id+1 over the leaves it ran (detached
// ones excepted).
func (t *stressTree) exec(n *stressNode) int {
	p, q := t.env.p, t.env.q
	c := n.children
	switch n.kind {
	case kLeaf:
		t.counts[n.id].Add(1)
		x := uint64(n.id) + 1
		for range n.work {
			xorshift64.Next(&x)
		}
		t.sink.Add(x & 1)
		if n.panics {
			panic(stressPanic{t, n.id})
		}
		return n.id + 1
	case kPoolJoin:
		var a, b int
		p.Join(func() { a = t.exec(c[0]) }, func() { b = t.exec(c[1]) })
		return a + b
	case kPkgJoin:
		var a, b int
		pool.Join(func() { a = t.exec(c[0]) }, func() { b = t.exec(c[1]) })
		return a + b
	case kScope:
		var sum atomic.Int64
		p.Scope(func(s *pool.Scope) {
			rest := c[1:]
			var spawn func(s *pool.Scope, i int)
			spawn = func(s *pool.Scope, i int) {
				for ; i < len(rest); i++ {
					child := rest[i]
					if i%2 == 1 {
						// Spawned by a spawned task: the scope waits for
						// it all the same.
						s.Spawn(func(s *pool.Scope) {
							spawn(s, i+1)
							sum.Add(int64(t.exec(child)))
						})
						return
					}
					s.Spawn(func(*pool.Scope) { sum.Add(int64(t.exec(child))) })
				}
			}
			spawn(s, 0)
			sum.Add(int64(t.exec(c[0])))
		})
		return int(sum.Load())
	case kGoScope:
		var sum atomic.Int64
		p.Scope(func(s *pool.Scope) {
			var wg sync.WaitGroup
			for _, child := range c {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.Spawn(func(*pool.Scope) { sum.Add(int64(t.exec(child))) })
				}()
			}
			wg.Wait() // the goroutines only spawn: nothing here waits for pool work
		})
		return int(sum.Load())
	case kRun:
		var r int
		p.Run(func() { r = t.exec(c[0]) })
		return r
	case kOtherRun:
		var r int
		q.Run(func() { r = t.exec(c[0]) })
		return r
	case kFuture:
		// Waiting inside a task for a future it submitted itself is
		// allowed (a tree of waits, as with joins).
		return pool.Submit(p, func() int { return t.exec(c[0]) }).Wait()
	case kCall:
		a, b := forkjoin.Call(t.exec, c[0], c[1])
		return a + b
	case kDo:
		var sum atomic.Int64
		forkjoin.Do(func(n *stressNode) { sum.Add(int64(t.exec(n))) }, c[0], c[1])
		return int(sum.Load())
	case kFJJoin:
		a, b := forkjoin.Join(func() int { return t.exec(c[0]) }, func() int { return t.exec(c[1]) })
		return a + b
	case kFor:
		res := make([]int, len(c))
		forkjoin.For(0, len(c), n.grain, func(lo, hi int) {
			stressRunAll(lo, hi, func(i int) { res[i] = t.exec(c[i]) })
		})
		s := 0
		for _, v := range res {
			s += v
		}
		return s
	case kDetached:
		leaf := c[0]
		t.pending.Add(1)
		p.Spawn(func() {
			if !leaf.panics {
				defer t.pending.Done() // a panicking one is Done in the handler
			}
			t.exec(leaf)
		})
		return 0
	}
	panic(fmt.Sprintf("bad kind %d", n.kind))
}

// stressRunAll calls f(i) for every i in [lo, hi) even if some panic, then
// re-panics with the first panic.
func stressRunAll(lo, hi int, f func(i int)) {
	var first any
	for i := lo; i < hi; i++ {
		if v := recoverValue(func() { f(i) }); v != nil && first == nil {
			first = v
		}
	}
	if first != nil {
		panic(first)
	}
}

// check runs the tree from the calling goroutine (not a worker: the root's
// call is injected, or for forkjoin and pool.Join goes to pool.Default())
// and returns an error describing the first broken invariant.
func (t *stressTree) check() (panicked bool, err error) {
	var got int
	v := recoverValue(func() { got = t.exec(t.root) })
	t.pending.Wait() // detached leaves
	want := possible(t.root)
	if want == nil {
		if v != nil {
			return true, fmt.Errorf("%s root: unexpected panic %T: %v", kindNames[t.root.kind], v, v)
		}
		if s := expectedSum(t.root); got != s {
			return false, fmt.Errorf("%s root: result %d, want %d", kindNames[t.root.kind], got, s)
		}
	} else {
		pe, ok := v.(*pool.PanicError)
		if !ok {
			return v != nil, fmt.Errorf("%s root: panic value %T %v, want *pool.PanicError of one of leaves %v", kindNames[t.root.kind], v, v, want)
		}
		sp, ok := pe.Value.(stressPanic)
		if !ok || sp.tree != t || !slices.Contains(want, sp.id) {
			return true, fmt.Errorf("%s root: PanicError value %v, want one of leaves %v", kindNames[t.root.kind], pe.Value, want)
		}
	}
	for _, l := range t.leaves {
		if n := t.counts[l.id].Load(); n != 1 {
			return v != nil, fmt.Errorf("leaf %d (panics=%v, detached=%v) ran %d times, want once", l.id, l.panics, t.detached[l.id], n)
		}
		wantHandled := int32(0)
		if l.panics && t.detached[l.id] {
			wantHandled = 1
		}
		if n := t.handled[l.id].Load(); n != wantHandled {
			return v != nil, fmt.Errorf("leaf %d (panics=%v, detached=%v): panic handler called %d times, want %d", l.id, l.panics, t.detached[l.id], n, wantHandled)
		}
	}
	return v != nil, nil
}

type stressTotals struct {
	trees, panicked, leaves atomic.Int64
	kinds                   [kindCount]atomic.Int64
}

// stressMix runs random trees on env from goroutines goroutines until
// budget has elapsed (each goroutine finishes at least one tree), checking
// every one of them, and logs what it did.
func stressMix(t *testing.T, env *stressEnv, goroutines int, budget time.Duration, seed uint64) *stressTotals {
	t.Helper()
	var tot stressTotals
	deadline := time.Now().Add(budget)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(g)))
			for i := 0; i == 0 || time.Now().Before(deadline); i++ {
				tree := genStressTree(env, r, 2+r.IntN(5), 1+r.IntN(120), 1.0/64)
				panicked, err := tree.check()
				if err != nil {
					t.Errorf("goroutine %d, tree %d (seed %d): %v", g, i, seed, err)
					return
				}
				tot.trees.Add(1)
				tot.leaves.Add(int64(len(tree.leaves)))
				if panicked {
					tot.panicked.Add(1)
				}
				for k, ok := range tree.kinds {
					if ok {
						tot.kinds[k].Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	if msg := env.unexpected.Load(); msg != nil {
		t.Error(*msg)
	}
	var kinds []string
	for k := kPoolJoin; k < kindCount; k++ {
		kinds = append(kinds, fmt.Sprintf("%s:%d", kindNames[k], tot.kinds[k].Load()))
	}
	t.Logf("%d trees (%d re-panicked), %d leaves, from %d goroutines; trees using each kind: %v",
		tot.trees.Load(), tot.panicked.Load(), tot.leaves.Load(), goroutines, kinds)
	return &tot
}

func TestStressRandomMix(t *testing.T) {
	seed := stressSeed(t)
	env := newStressEnv(t, 2, 3)
	watchdog(t, func() {
		tot := stressMix(t, env, 8, stressBudget(), seed)
		assert.Positive(t, tot.panicked.Load(), "no tree panicked: the panic paths went untested")
	})
}

// TestStressCloseRacesCallers closes pools while goroutines keep calling
// them in every way. Each call must either complete, having run all its
// work exactly once, or panic with an error wrapping pool.ErrClosed, having
// run none of it; nothing may hang; detached tasks that were accepted must
// have run by the time Close returns.
func TestStressCloseRacesCallers(t *testing.T) {
	seed := stressSeed(t)
	watchdog(t, func() {
		deadline := time.Now().Add(stressBudget())
		other := newPool(t, pool.WithWorkers(1))
		var rounds, completed, refused int
		r := rand.New(rand.NewPCG(seed, 0))
		for round := 0; round < 3 || time.Now().Before(deadline); round++ {
			p, err := pool.New(pool.WithWorkers(1+r.IntN(3)), pool.WithPanicHandler(func(v any) {
				t.Errorf("unexpected detached panic: %v", v)
			}))
			require.NoError(t, err)
			const callers = 6
			var wg sync.WaitGroup
			results := make([]closeRaceResult, callers)
			for g := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					closeRaceCaller(t, p, other, rand.New(rand.NewPCG(seed, uint64(round*callers+g+1))), &results[g])
				}()
			}
			time.Sleep(time.Duration(r.IntN(2000)) * time.Microsecond)
			var closers sync.WaitGroup
			for range 2 { // Close is idempotent, also when called at once
				closers.Add(1)
				go func() {
					defer closers.Done()
					assert.NoError(t, p.Close())
				}()
			}
			closers.Wait()
			// Close has returned: every accepted detached task has run.
			for g := range callers {
				for _, ran := range results[g].spawnedBeforeClose() {
					assert.EqualValues(t, 1, ran.Load(), "accepted detached task")
				}
			}
			wg.Wait()
			for i := range results {
				res := &results[i]
				completed += res.completed
				refused += res.refused
				for _, ran := range res.spawned {
					assert.EqualValues(t, 1, ran.Load(), "accepted detached task")
				}
			}
			assert.Equal(t, p.Workers(), p.Stats().Workers, "Stats after Close")
			rounds++
		}
		t.Logf("%d rounds: %d calls completed, %d refused with ErrClosed", rounds, completed, refused)
	})
}

type closeRaceResult struct {
	completed, refused int
	mu                 sync.Mutex
	spawned            []*atomic.Int32 // run counts of accepted detached tasks
}

func (r *closeRaceResult) spawnedBeforeClose() []*atomic.Int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spawned)
}

// closeRaceCaller calls p in random ways until a call is refused.
func closeRaceCaller(t *testing.T, p, other *pool.Pool, r *rand.Rand, res *closeRaceResult) {
	for {
		var ran atomic.Int32 // runs of the call's work items
		var nested []*atomic.Int32
		want := int32(1)
		// work is a call's unit of work: a few joins, and sometimes a
		// detached task spawned from the worker (allowed while Close
		// drains, and waited for by Close).
		work := func() {
			ran.Add(1)
			if fib(8) != 21 {
				t.Error("fib(8) != 21")
			}
			if pool.WorkerIndex() < 0 {
				t.Error("work item not on a worker")
			}
		}
		spawnNested := func() {
			n := new(atomic.Int32)
			res.mu.Lock()
			nested = append(nested, n)
			res.spawned = append(res.spawned, n)
			res.mu.Unlock()
			p.Spawn(func() { n.Add(1) })
		}
		op := r.IntN(7)
		v := recoverValue(func() {
			switch op {
			case 0:
				p.Run(func() { work(); spawnNested() })
			case 1:
				want = 2
				p.Join(work, work)
			case 2:
				want = 4
				p.Scope(func(s *pool.Scope) {
					work()
					for range 3 {
						s.Spawn(func(*pool.Scope) { work() })
					}
				})
			case 3:
				n := new(atomic.Int32)
				p.Spawn(func() { n.Add(1); work() })
				// Accepted: Close must wait for it.
				res.mu.Lock()
				res.spawned = append(res.spawned, n)
				res.mu.Unlock()
			case 4:
				// From a worker of another pool: refused calls come back
				// as the other pool's *PanicError wrapping ErrClosed.
				other.Run(func() { p.Run(work) })
			case 5:
				p.Run(func() { p.Join(work, spawnNested) })
			case 6:
				// Accepted futures are done by the time Close returns;
				// Wait works on them after Close too.
				if got := pool.Submit(p, func() int { work(); return 7 }).Wait(); got != 7 {
					t.Errorf("future returned %d, want 7", got)
				}
			}
		})
		if v == nil {
			res.completed++
			if op != 3 {
				if n := ran.Load(); n != want {
					t.Errorf("op %d completed with %d work items run, want %d", op, n, want)
				}
			}
			continue
		}
		err, ok := v.(error)
		if !ok || !errors.Is(err, pool.ErrClosed) {
			t.Errorf("op %d: panic %T %v, want an error wrapping pool.ErrClosed", op, v, v)
			return
		}
		if n := ran.Load(); n != 0 {
			t.Errorf("op %d refused with ErrClosed after running %d work items", op, n)
		}
		if len(nested) != 0 {
			t.Errorf("op %d refused with ErrClosed after spawning", op)
		}
		res.refused++
		return
	}
}

// stressThreads counts the process's OS threads (Linux; -1 elsewhere).
func stressThreads() int {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return -1
	}
	return len(entries)
}

// waitGoroutines waits (bounded) for the goroutine count to fall to at most
// n and returns the last count seen.
func waitGoroutines(n int) int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		g := runtime.NumGoroutine()
		if g <= n || time.Now().After(deadline) {
			return g
		}
		time.Sleep(time.Millisecond)
	}
}

// noteWorkerThread records the calling thread in tids if the caller is
// one of p's own workers, which are locked to their threads (a spare is an
// ordinary goroutine, whose thread Go keeps).
func noteWorkerThread(p *pool.Pool, tids *sync.Map) {
	if i := pool.WorkerIndex(); i >= 0 && i < p.Workers() {
		tids.Store(threadID(), true)
	}
}

// TestStressPoolChurnLeavesNoGoroutineOrThread creates and closes pools in
// a loop, each doing a little of everything (panics and detached tasks
// included), and checks that their goroutines and their threads are gone:
// every thread that ran a task has exited (except the process's main
// thread, which Go parks for good instead), and the number of threads has
// not grown with the number of pools.
func TestStressPoolChurnLeavesNoGoroutineOrThread(t *testing.T) {
	watchdog(t, func() {
		churn := func(workers int, tids *sync.Map) {
			p, err := pool.New(pool.WithWorkers(workers), pool.WithPanicHandler(func(any) {}))
			require.NoError(t, err)
			p.Scope(func(s *pool.Scope) {
				for range 4 * workers {
					s.Spawn(func(*pool.Scope) {
						noteWorkerThread(p, tids)
						time.Sleep(50 * time.Microsecond) // let the other workers take some
					})
				}
			})
			var got int
			p.Run(func() { got = fib(12) })
			assert.Equal(t, 144, got)
			assert.NotNil(t, recoverValue(func() { p.Join(func() {}, panicsWith("x")) }))
			for range 3 {
				p.Spawn(func() { noteWorkerThread(p, tids) })
			}
			p.Spawn(panicsWith("detached")) // to the handler
			require.NoError(t, p.Close())
		}
		goroutines := runtime.NumGoroutine()
		var warm sync.Map
		churn(2, &warm) // let the Go runtime reach its own steady number of threads
		threads := stressThreads()
		rounds := 40
		if testing.Short() {
			rounds = 15
		}
		var tids sync.Map
		workers := 0
		for i := range rounds {
			churn(1+i%4, &tids)
			workers += 1 + i%4
		}
		g := waitGoroutines(goroutines)
		assert.LessOrEqual(t, g, goroutines, "goroutines left after %d pools (%d workers) were closed", rounds, workers)
		deadline := time.Now().Add(10 * time.Second)
		alive, seen := 0, 0
		tids.Range(func(k, _ any) bool {
			tid := k.(int)
			if tid < 0 || tid == os.Getpid() {
				return true // not Linux, or the main thread (see above)
			}
			seen++
			for threadAlive(tid) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if threadAlive(tid) {
				alive++
			}
			return true
		})
		assert.Zero(t, alive, "worker threads still alive after Close")
		if threads > 0 {
			// The Go runtime may start a few threads of its own meanwhile,
			// more at more Ps (idle Ms it keeps for them); leaked workers
			// would add one per worker, here about 100.
			slack := max(8, runtime.GOMAXPROCS(0)/4)
			after := stressThreads()
			for after > threads+slack && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
				after = stressThreads()
			}
			assert.LessOrEqual(t, after, threads+slack, "threads before %d, after %d pools of %d workers in all", threads, rounds, workers)
			t.Logf("%d pools, %d workers: threads %d -> %d, goroutines %d -> %d, %d distinct worker threads seen, all ended", rounds, workers, threads, after, goroutines, g, seen)
		}
	})
}

// stressSortCheck sorts n random ints with forkjoin.Sort (and SortFunc)
// on p and compares with slices.Sort.
func stressSortCheck(t *testing.T, p *pool.Pool, r *rand.Rand, n int) {
	t.Helper()
	in := make([]int, n)
	for i := range in {
		in[i] = r.IntN(n)
	}
	want := slices.Clone(in)
	slices.Sort(want)
	got, gotFunc := slices.Clone(in), slices.Clone(in)
	p.Run(func() {
		forkjoin.Sort(got)
		forkjoin.SortFunc(gotFunc, func(a, b int) int { return a - b })
	})
	assert.True(t, slices.Equal(want, got), "forkjoin.Sort of %d ints differs from slices.Sort", n)
	assert.True(t, slices.Equal(want, gotFunc), "forkjoin.SortFunc of %d ints differs from slices.Sort", n)
}

// stressSumCheck adds 0..n-1 with a pool.Join at every level, on p.
func stressSumCheck(t *testing.T, p *pool.Pool, n int) {
	t.Helper()
	var got int
	p.Run(func() { got = sum(0, n) })
	assert.Equal(t, n*(n-1)/2, got, "sum(0, %d)", n)
	red := make([]int, n)
	for i := range red {
		red[i] = i
	}
	var total int
	p.Run(func() { total = forkjoin.Reduce(red, 0, func(a, b int) int { return a + b }) })
	assert.Equal(t, n*(n-1)/2, total, "forkjoin.Reduce over %d ints", n)
}

// TestStressMoreWorkersThanGOMAXPROCS runs the random mix on pools of 6
// and 3 workers with GOMAXPROCS 2 and 1: workers share Ps, and a worker
// that sleeps or blocks must not hold up the others.
func TestStressMoreWorkersThanGOMAXPROCS(t *testing.T) {
	seed := stressSeed(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{2, 1} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			runtime.GOMAXPROCS(procs)
			env := newStressEnv(t, 6, 3)
			watchdog(t, func() {
				stressMix(t, env, 4, stressBudget()/2, seed)
				r := rand.New(rand.NewPCG(seed, 1))
				stressSortCheck(t, env.p, r, 50_000)
				stressSumCheck(t, env.q, 10_000)
			})
		})
	}
}

// TestStressGOMAXPROCSChangesWhileRunning changes GOMAXPROCS from another
// goroutine, every few hundred microseconds, while long computations and
// the random mix run.
func TestStressGOMAXPROCSChangesWhileRunning(t *testing.T) {
	seed := stressSeed(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	env := newStressEnv(t, 2, 3)
	watchdog(t, func() {
		stop := make(chan struct{})
		var changes atomic.Int64
		var changer sync.WaitGroup
		changer.Add(1)
		go func() {
			defer changer.Done()
			r := rand.New(rand.NewPCG(seed, 99))
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(100+r.IntN(500)) * time.Microsecond):
					runtime.GOMAXPROCS(1 + r.IntN(4))
					changes.Add(1)
				}
			}
		}()
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // long computations, results checked
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 2))
			deadline := time.Now().Add(stressBudget())
			for i := 0; i < 2 || time.Now().Before(deadline); i++ {
				stressSortCheck(t, env.p, r, 100_000)
				stressSumCheck(t, env.q, 1<<14)
			}
		}()
		stressMix(t, env, 4, stressBudget(), seed)
		wg.Wait()
		close(stop)
		changer.Wait()
		t.Logf("GOMAXPROCS changed %d times", changes.Load())
	})
}

// TestStressGOMAXPROCS1 runs everything with a single P: pools of 1, 2 and
// 4 workers, the random mix, sorting, Close.
func TestStressGOMAXPROCS1(t *testing.T) {
	seed := stressSeed(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			env := newStressEnv(t, workers, 1+workers%2)
			watchdog(t, func() {
				stressMix(t, env, 3, stressBudget()/3, seed)
				r := rand.New(rand.NewPCG(seed, 3))
				stressSortCheck(t, env.p, r, 30_000)
				stressSumCheck(t, env.p, 5000)
			})
		})
	}
}

// stressDeepChain is the depth of the deep join chains: 1M, or 100k under
// the race detector, where a 1M chain takes 7 to 9 s per run (it does
// complete). A chain of n nested joins keeps n levels of the recursion on
// one worker's goroutine stack, a few hundred bytes each (a 1M chain
// grows the stack to 256 MB, 512 MB for forkjoin.Do under the race
// detector; Go's limit is 1 GB), plus one reusable join record per level on
// the heap (about 75 MB for 1M pool.Join levels).
func stressDeepChain() int {
	n := 1_000_000
	if stressRace {
		n = 100_000
	}
	if testing.Short() {
		n /= 10
	}
	return n
}

type stressMem struct{ heap, stack uint64 }

// readStressMem reads the memory in use after two garbage collections: a
// stack freed during a collection (a goroutine's old stack, after the
// collection shrank it or it grew) stays counted in StackInuse until the
// next one.
func readStressMem() stressMem {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return stressMem{ms.HeapInuse, ms.StackInuse}
}

func (m stressMem) String() string {
	return fmt.Sprintf("HeapInuse %.1f MB, StackInuse %.1f MB", float64(m.heap)/(1<<20), float64(m.stack)/(1<<20))
}

// TestStressDeepJoinChain runs chains of nested joins (pool.Join, then
// forkjoin.Do) on a pool of 2 workers, twice each, and checks that memory
// does not grow from one run to the next, then that it is released once
// the pool is closed and dropped.
//
// The worker that ran a chain keeps its grown stack and its join records
// (one per level, see runtime.Worker.Enter) for later joins: they are
// reused, not leaked, but they are per worker, so a run on a worker that
// has not run a chain before may add one chain's worth of both.
func TestStressDeepJoinChain(t *testing.T) {
	depth := stressDeepChain()
	watchdog(t, func() {
		goroutines := runtime.NumGoroutine()
		base := readStressMem()
		t.Logf("depth %d; before: %v", depth, base)
		p, err := pool.New(pool.WithWorkers(2))
		require.NoError(t, err)
		defer func() {
			if p != nil {
				p.Close()
			}
		}()
		var n atomic.Int64
		var chain func(d int)
		chain = func(d int) {
			if d == 0 {
				return
			}
			p.Join(func() { chain(d - 1) }, func() { n.Add(1) })
		}
		type deepArg struct {
			d    int
			leaf bool
		}
		var do func(a deepArg)
		do = func(a deepArg) {
			if a.leaf {
				n.Add(1)
				return
			}
			if a.d == 0 {
				return
			}
			forkjoin.Do(do, deepArg{d: a.d - 1}, deepArg{leaf: true})
		}
		for _, tc := range []struct {
			name string
			run  func()
		}{
			{"pool.Join", func() { chain(depth) }},
			{"forkjoin.Do", func() { do(deepArg{d: depth}) }},
		} {
			prev := readStressMem()
			var chainHeap, chainStack uint64 // heap and stacks in use after run 1, over base
			ran := map[int]bool{}
			for i := range 2 {
				n.Store(0)
				start := time.Now()
				worker := -1
				p.Run(func() { worker = pool.WorkerIndex(); tc.run() })
				elapsed := time.Since(start)
				require.EqualValues(t, depth, n.Load(), "%s chain run %d", tc.name, i+1)
				m := readStressMem()
				t.Logf("%s chain of %d, run %d on worker %d: %v; %v", tc.name, depth, i+1, worker, elapsed.Round(time.Millisecond), m)
				if i == 0 {
					// Per worker: a chain of another kind leaves its
					// records garbage and makes its own.
					chainHeap = m.heap - min(m.heap, base.heap)
					chainStack = m.stack - min(m.stack, base.stack)
				} else {
					// A leak proportional to the depth (join records or
					// frames kept per run) would exceed the heap bound.
					// Stacks are only bounded loosely: the collector
					// halves the stack of an idle worker unless it sleeps
					// in a system call, and the next chain regrows it, so
					// a worker's stack is one or two chains' worth; only
					// leaked goroutines could add more (and Close must
					// free them all, checked below).
					// A quarter of a chain's heap: at GOMAXPROCS=1 the
					// second run's heap read up to 7.1 MB above the first's
					// in 8 runs at 717d50e and 7.8 MB in 6 runs later (a
					// chain is 64 MB; an eighth failed one run in six),
					// while a leak of a record per level would add 64 MB.
					heapLimit := prev.heap + max(4<<20, chainHeap/4)
					if !ran[worker] {
						heapLimit += chainHeap
					}
					stackLimit := base.stack + 2*2*max(chainStack, 1<<20) + 4<<20
					assert.LessOrEqual(t, m.heap, heapLimit, "%s run %d: heap grew", tc.name, i+1)
					assert.LessOrEqual(t, m.stack, stackLimit, "%s run %d: stacks grew", tc.name, i+1)
				}
				ran[worker] = true
				prev = m
			}
		}
		require.NoError(t, p.Close())
		p = nil // the closed pool's workers hold their join records until the pool is garbage
		waitGoroutines(goroutines)
		var after stressMem
		for range 100 { // the worker goroutines end just after Close returns
			if after = readStressMem(); after.stack <= base.stack+4<<20 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Logf("after Close: %v", after)
		assert.LessOrEqual(t, after.heap, base.heap+8<<20, "heap not released after Close")
		assert.LessOrEqual(t, after.stack, base.stack+4<<20, "worker stacks not released by Close")
	})
}
