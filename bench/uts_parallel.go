package bench

import (
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// The parallel UTS searches count the nodes, each in the style an
// application would write it. Run them on a worker of the pool to measure
// (inside Pool.Run); elsewhere they use pool.Current(), which is
// pool.Default() off-pool.

// utsCounts are per-worker node counts, a cache line pair apart so that
// the workers' increments do not share a line. The task styles count a
// node's children when they spawn them (one pool.WorkerIndex per inner
// node), not each node when it runs (a call per node, which the serial
// search's plain increment does not pay).
type utsCounts []struct {
	n int64
	_ [120]byte
}

func newUTSCounts() utsCounts { return make(utsCounts, pool.Current().MaxWorkers()) }

func (c utsCounts) sum() int64 {
	var s int64
	for i := range c {
		s += c[i].n
	}
	return s
}

// UTSSpawn is a task per node: one scope for the whole tree and a
// Scope.Spawn per child, the closure capturing the child.
func UTSSpawn(t *UTSTree) int64 {
	counts := newUTSCounts()
	var visit func(s *pool.Scope, n UTSNode)
	visit = func(s *pool.Scope, n UTSNode) {
		k := t.Children(&n)
		if k == 0 {
			return
		}
		counts[pool.WorkerIndex()].n += int64(k)
		for i := range k {
			c := t.Child(&n, i)
			s.Spawn(func(s *pool.Scope) { visit(s, c) })
		}
	}
	pool.Current().Scope(func(s *pool.Scope) { visit(s, t.Root()) })
	return 1 + counts.sum()
}

// UTSSpawnArg is UTSSpawn with forkjoin.Spawn: a task per node, the
// child passed as the task's argument instead of captured by a closure,
// so that a spawn allocates nothing.
func UTSSpawnArg(t *UTSTree) int64 {
	counts := newUTSCounts()
	var visit func(s *pool.Scope, n UTSNode)
	visit = func(s *pool.Scope, n UTSNode) {
		k := t.Children(&n)
		if k == 0 {
			return
		}
		counts[pool.WorkerIndex()].n += int64(k)
		for i := range k {
			forkjoin.Spawn(s, visit, t.Child(&n, i))
		}
	}
	pool.Current().Scope(func(s *pool.Scope) { visit(s, t.Root()) })
	return 1 + counts.sum()
}

// UTSSpawnMany is a bulk spawn per node: one scope for the tree, and each
// node spawns its children with one Scope.SpawnMany.
//
// The closure captures a copy of the node that nothing takes the address
// of, so Go copies it into the closure (one allocation per inner node). A
// closure that used &n would capture the parameter n by reference, and Go
// would then move n to the heap on entry to every call, leaves included:
// an allocation per node, which made this search markedly slower
// (docs/performance/irregular-trees.md).
func UTSSpawnMany(t *UTSTree) int64 {
	counts := newUTSCounts()
	var visit func(s *pool.Scope, n UTSNode)
	visit = func(s *pool.Scope, n UTSNode) {
		if k := t.Children(&n); k > 0 {
			counts[pool.WorkerIndex()].n += int64(k)
			parent := n
			s.SpawnMany(k, func(s *pool.Scope, i int) {
				p := parent
				visit(s, t.Child(&p, i))
			})
		}
	}
	pool.Current().Scope(func(s *pool.Scope) { visit(s, t.Root()) })
	return 1 + counts.sum()
}

// utsRange is children [lo, hi) of a node, passed by value to typed forks.
type utsRange struct {
	t      *UTSTree
	parent UTSNode
	lo, hi int
}

// UTSCall forks with forkjoin.Call, halving each node's range of children
// and passing the parent by value: nothing escapes, no allocation.
func UTSCall(t *UTSTree) int64 { return utsCallNode(t, t.Root()) }

func utsCallNode(t *UTSTree, n UTSNode) int64 {
	k := t.Children(&n)
	if k == 0 {
		return 1
	}
	return 1 + utsCallRange(utsRange{t, n, 0, k})
}

func utsCallRange(r utsRange) int64 {
	if r.hi-r.lo == 1 {
		return utsCallNode(r.t, r.t.Child(&r.parent, r.lo))
	}
	mid := r.lo + (r.hi-r.lo)/2
	a, b := r, r
	a.hi, b.lo = mid, mid
	x, y := forkjoin.Call(utsCallRange, a, b)
	return x + y
}

// UTSJoin forks with pool.Join over the same halving, with closures.
func UTSJoin(t *UTSTree) int64 {
	r := t.Root()
	return utsJoinNode(t, &r)
}

func utsJoinNode(t *UTSTree, n *UTSNode) int64 {
	k := t.Children(n)
	if k == 0 {
		return 1
	}
	return 1 + utsJoinRange(t, n, 0, k)
}

func utsJoinRange(t *UTSTree, n *UTSNode, lo, hi int) int64 {
	if hi-lo == 1 {
		c := t.Child(n, lo)
		return utsJoinNode(t, &c)
	}
	mid := lo + (hi-lo)/2
	var a, b int64
	pool.Join(func() { a = utsJoinRange(t, n, lo, mid) }, func() { b = utsJoinRange(t, n, mid, hi) })
	return a + b
}

// UTSGoroutines is a goroutine per child node, one WaitGroup for the tree
// and an atomic count: the peers' go-waitgroup row.
func UTSGoroutines(t *UTSTree) int64 {
	var nodes atomic.Int64
	var wg sync.WaitGroup
	var visit func(n UTSNode)
	visit = func(n UTSNode) {
		defer wg.Done()
		nodes.Add(1)
		k := t.Children(&n)
		wg.Add(k)
		for i := range k {
			go visit(t.Child(&n, i))
		}
	}
	wg.Add(1)
	visit(t.Root())
	wg.Wait()
	return nodes.Load()
}

// UTSClosureFloor is not parallel: the serial search run from a stack of
// closures, one allocated per node as a spawn's closure is. It is the
// floor for a task per node written with closures in Go: whatever runs
// them, each costs at least this allocation (and its share of the
// garbage collector).
func UTSClosureFloor(t *UTSTree) int64 {
	var nodes int64
	var stack []func()
	var visit func(n UTSNode)
	visit = func(n UTSNode) {
		nodes++
		for i := range t.Children(&n) {
			c := t.Child(&n, i)
			stack = append(stack, func() { visit(c) })
		}
	}
	visit(t.Root())
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack[len(stack)-1] = nil
		stack = stack[:len(stack)-1]
		f()
	}
	return nodes
}

// UTSClosureFloorP is UTSClosureFloor's throughput on threads threads:
// that many goroutines, each locked to an OS thread as a pool's workers
// are, search the whole tree at once, each with its own stack and count.
// The time of the whole divided by threads is the time per tree when that
// many threads share the cores and the garbage collector: the floor at
// that many workers for any search that allocates a closure per node,
// whatever schedules the closures. It returns one search's count (-1 if
// they disagree).
//
// An earlier version split the root's children between two goroutines;
// on T1 the halves were uneven, so it measured the split, not the floor.
func UTSClosureFloorP(t *UTSTree, threads int) int64 {
	return floorCopies(threads, func(int) int64 { return UTSClosureFloor(t) })
}
