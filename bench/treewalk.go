package bench

import (
	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// The tree-walk kernels visit every node of a tree of pointer nodes with
// children slices, doing a few tens of nanoseconds of work per node, as a
// newcomer's tree walk does: a task per node (forkjoin.Spawn per child,
// the promise that no cutoff is needed) against the same walk with a hand
// cutoff (tasks for the top levels, serial below) and the serial walk.

// WalkNode is a node of the tree-walk tree.
type WalkNode struct {
	Seed     uint64
	Children []*WalkNode
}

// WalkTree returns a complete tree of the given fanout whose leaves are
// depth levels below the root, and its number of nodes.
func WalkTree(depth, fanout int) (*WalkNode, int) {
	n := 0
	var build func(d int, seed uint64) *WalkNode
	build = func(d int, seed uint64) *WalkNode {
		n++
		node := &WalkNode{Seed: seed}
		if d < depth {
			node.Children = make([]*WalkNode, fanout)
			for i := range fanout {
				node.Children[i] = build(d+1, seed*uint64(fanout)+uint64(i)+1)
			}
		}
		return node
	}
	return build(0, 1), n
}

// walkWork is the work of a node: 28 dependent xorshift64 steps, a few
// tens of nanoseconds.
func walkWork(seed uint64) uint64 {
	x := seed | 1
	for range 28 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x & 0xff
}

// TreeWalkSerial returns the sum of the nodes' work, serially.
func TreeWalkSerial(n *WalkNode) uint64 {
	s := walkWork(n.Seed)
	for _, c := range n.Children {
		s += TreeWalkSerial(c)
	}
	return s
}

// TreeWalkSpawn is the walk with a forkjoin.Spawn per child, in the
// children's order, on p, summing into a pool.PerWorker. A worker runs a
// task's spawned children in the order they were spawned (the runtime's
// sibling order), so it visits the tree as it was built, first child
// first: forward through memory.
func TreeWalkSpawn(p *pool.Pool, root *WalkNode) uint64 {
	return treeWalkSpawn(p, root, false)
}

// TreeWalkSpawnReversed is TreeWalkSpawn spawning the children last
// first, so that the worker visits the last child first: backwards
// through memory, which is how TreeWalkSpawn ran before the runtime ran
// siblings in spawn order.
func TreeWalkSpawnReversed(p *pool.Pool, root *WalkNode) uint64 {
	return treeWalkSpawn(p, root, true)
}

func treeWalkSpawn(p *pool.Pool, root *WalkNode, reversed bool) uint64 {
	sums := pool.NewPerWorker[uint64](p)
	var visit func(s *pool.Scope, n *WalkNode)
	visit = func(s *pool.Scope, n *WalkNode) {
		w := walkWork(n.Seed)
		sums.Update(func(v *uint64) { *v += w })
		if reversed {
			for i := len(n.Children) - 1; i >= 0; i-- {
				forkjoin.Spawn(s, visit, n.Children[i])
			}
			return
		}
		for _, c := range n.Children {
			forkjoin.Spawn(s, visit, c)
		}
	}
	p.Scope(func(s *pool.Scope) { visit(s, root) })
	return sums.Combine(func(a, b uint64) uint64 { return a + b })
}

// TreeWalkCutoff is TreeWalkSpawn with a hand cutoff: nodes at depth
// cutoff and below are walked serially inside their task.
func TreeWalkCutoff(p *pool.Pool, root *WalkNode, cutoff int) uint64 {
	sums := pool.NewPerWorker[uint64](p)
	type at struct {
		n *WalkNode
		d int
	}
	var visit func(s *pool.Scope, a at)
	visit = func(s *pool.Scope, a at) {
		if a.d >= cutoff {
			w := TreeWalkSerial(a.n)
			sums.Update(func(v *uint64) { *v += w })
			return
		}
		w := walkWork(a.n.Seed)
		sums.Update(func(v *uint64) { *v += w })
		for _, c := range a.n.Children {
			forkjoin.Spawn(s, visit, at{c, a.d + 1})
		}
	}
	p.Scope(func(s *pool.Scope) { visit(s, at{root, 0}) })
	return sums.Combine(func(a, b uint64) uint64 { return a + b })
}
