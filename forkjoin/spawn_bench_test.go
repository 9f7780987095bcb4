package forkjoin_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/deque"
	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// benchNode is a node of the implicit tree of BenchmarkSpawnValue.
type benchNode struct {
	x     uint64
	depth int
}

// The tree of BenchmarkSpawnValue: 4^9 leaves, 349,525 nodes.
const (
	spawnDepth  = 9
	spawnFanout = 4
)

// spawnWork is a few nanoseconds of work per node, so that the tree is
// about spawning.
func spawnWork(x uint64) uint64 {
	x |= 1
	for range 4 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// BenchmarkSpawnValue is a forkjoin.Spawn per node of a tree whose nodes
// do a few nanoseconds of work, against the same tree run serially from a
// stack of (function, argument) records that nothing else reads (floor)
// and from a Chase-Lev deque of recycled records (public-floor): what a
// spawned task costs beyond them is the runtime's. It reports the cost per
// node (ns/task) at 1 and 2 workers.
func BenchmarkSpawnValue(b *testing.B) {
	nodes := 0
	for d, n := 0, 1; d <= spawnDepth; d, n = d+1, n*spawnFanout {
		nodes += n
	}
	perTask := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nodes), "ns/task")
	}
	type record struct {
		fn func(benchNode)
		x  benchNode
	}
	var floorStack []record
	var floorSink uint64
	var floorVisit func(n benchNode)
	floorVisit = func(n benchNode) {
		floorSink += spawnWork(n.x)
		if n.depth == spawnDepth {
			return
		}
		for i := range spawnFanout {
			floorStack = append(floorStack, record{floorVisit, benchNode{n.x*spawnFanout + uint64(i), n.depth + 1}})
		}
	}
	b.Run("floor", func(b *testing.B) {
		for b.Loop() {
			floorVisit(benchNode{1, 0})
			for len(floorStack) > 0 {
				r := floorStack[len(floorStack)-1]
				floorStack = floorStack[:len(floorStack)-1]
				r.fn(r.x)
			}
		}
		perTask(b)
	})
	// The floor of a task that other threads can take: the same records
	// recycled through a free list, pushed on and popped from a Chase-Lev
	// deque (the public deque's kind), on one thread. What it adds to the
	// floor above is the price of publishing every task.
	var dequeFree []*record
	deq := deque.NewChaseLev[record](64)
	var dequeSink uint64
	var dequeVisit func(n benchNode)
	dequeVisit = func(n benchNode) {
		dequeSink += spawnWork(n.x)
		if n.depth == spawnDepth {
			return
		}
		for i := range spawnFanout {
			var r *record
			if k := len(dequeFree); k > 0 {
				r, dequeFree = dequeFree[k-1], dequeFree[:k-1]
			} else {
				r = new(record)
			}
			r.fn, r.x = dequeVisit, benchNode{n.x*spawnFanout + uint64(i), n.depth + 1}
			deq.Push(r)
		}
	}
	b.Run("public-floor", func(b *testing.B) {
		for b.Loop() {
			dequeVisit(benchNode{1, 0})
			for r := deq.Pop(); r != nil; r = deq.Pop() {
				fn, x := r.fn, r.x
				dequeFree = append(dequeFree, r)
				fn(x)
			}
		}
		perTask(b)
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("spawn/workers=%d", workers), func(b *testing.B) {
			p := newPool(b, workers)
			sums := pool.NewPerWorker[uint64](p)
			var visit func(s *pool.Scope, n benchNode)
			visit = func(s *pool.Scope, n benchNode) {
				w := spawnWork(n.x)
				sums.Update(func(v *uint64) { *v += w })
				if n.depth == spawnDepth {
					return
				}
				for i := range spawnFanout {
					forkjoin.Spawn(s, visit, benchNode{n.x*spawnFanout + uint64(i), n.depth + 1})
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				p.Scope(func(s *pool.Scope) { visit(s, benchNode{1, 0}) })
			}
			perTask(b)
		})
	}
}
