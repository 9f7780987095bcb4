package pool_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/internal/xorshift"
	"github.com/spindle-go/spindle/pool"
)

// spawnTreeDepth and spawnTreeFanout shape the tree of BenchmarkSpawnTree:
// 4^9 leaves, 349,525 nodes.
const (
	spawnTreeDepth  = 9
	spawnTreeFanout = 4
)

// nodeWork is a few nanoseconds of work per node, so that the tree is
// about spawning.
func nodeWork(x uint64) uint64 {
	for range 4 {
		xorshift.Next(&x)
	}
	return x
}

type paddedCount struct {
	n uint64
	_ [56]byte
}

// BenchmarkSpawnTree is a task per tree node, the way an application
// writes a tree search: one scope for the whole tree and a Scope.Spawn per
// child, each closure capturing its node; per-worker counts on their own
// cache lines. It reports the cost per spawned task (ns/task), with the
// serial recursion's cost per node subtracted, at 1 and 2 workers.
func BenchmarkSpawnTree(b *testing.B) {
	nodes := 0
	for d, n := 0, 1; d <= spawnTreeDepth; d, n = d+1, n*spawnTreeFanout {
		nodes += n
	}
	var serialSink uint64
	var serialVisit func(x uint64, depth int)
	serialVisit = func(x uint64, depth int) {
		serialSink += nodeWork(x)
		if depth == spawnTreeDepth {
			return
		}
		for i := range spawnTreeFanout {
			serialVisit(x*spawnTreeFanout+uint64(i), depth+1)
		}
	}
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			serialVisit(1, 0)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nodes), "ns/task")
	})
	// The floor: the same tree run serially from a stack of closures, one
	// allocated per node as a spawn's closure is. What spawning costs
	// beyond it is the runtime's.
	var floorSink uint64
	var floorStack []func()
	var floorVisit func(x uint64, depth int)
	floorVisit = func(x uint64, depth int) {
		floorSink += nodeWork(x)
		if depth == spawnTreeDepth {
			return
		}
		for i := range spawnTreeFanout {
			c := x*spawnTreeFanout + uint64(i)
			floorStack = append(floorStack, func() { floorVisit(c, depth+1) })
		}
	}
	b.Run("closure-floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			floorVisit(1, 0)
			for len(floorStack) > 0 {
				f := floorStack[len(floorStack)-1]
				floorStack[len(floorStack)-1] = nil
				floorStack = floorStack[:len(floorStack)-1]
				f()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nodes), "ns/task")
	})
	// The floor on two threads: two goroutines, each running the floor
	// kernel over half of the root's subtrees with its own stack and sink
	// (on cache lines of their own): how allocation-bound code of this
	// shape scales on this machine, whatever runs it.
	b.Run("closure-floor/threads=2", func(b *testing.B) {
		type floorState struct {
			sink  uint64
			stack []func()
			_     [32]byte
		}
		var states [2]floorState
		var visit func(st *floorState, x uint64, depth int)
		visit = func(st *floorState, x uint64, depth int) {
			st.sink += nodeWork(x)
			if depth == spawnTreeDepth {
				return
			}
			for i := range spawnTreeFanout {
				c := x*spawnTreeFanout + uint64(i)
				st.stack = append(st.stack, func() { visit(st, c, depth+1) })
			}
		}
		drain := func(st *floorState) {
			for len(st.stack) > 0 {
				f := st.stack[len(st.stack)-1]
				st.stack[len(st.stack)-1] = nil
				st.stack = st.stack[:len(st.stack)-1]
				f()
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			done := make(chan struct{})
			for half := range 2 {
				go func() {
					st := &states[half]
					for i := range spawnTreeFanout / 2 {
						c := uint64(spawnTreeFanout + half*spawnTreeFanout/2 + i)
						visit(st, c, 1)
						drain(st)
					}
					done <- struct{}{}
				}()
			}
			<-done
			<-done
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nodes), "ns/task")
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("spawn/workers=%d", workers), func(b *testing.B) {
			p, err := pool.New(pool.WithWorkers(workers))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			counts := make([]paddedCount, p.MaxWorkers())
			var visit func(s *pool.Scope, x uint64, depth int)
			visit = func(s *pool.Scope, x uint64, depth int) {
				counts[pool.WorkerIndex()].n += nodeWork(x)&1 + 1
				if depth == spawnTreeDepth {
					return
				}
				for i := range spawnTreeFanout {
					c := x*spawnTreeFanout + uint64(i)
					s.Spawn(func(s *pool.Scope) { visit(s, c, depth+1) })
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				p.Scope(func(s *pool.Scope) { visit(s, 1, 0) })
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nodes), "ns/task")
		})
	}
}
