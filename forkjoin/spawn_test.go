package forkjoin_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// spawnNode is a node of a complete tree walked with a task per node: its
// depth, its index among the nodes of its depth, and padding that makes it
// the size of a small tree node (a closure capturing it would be heap
// allocated at every spawn).
type spawnNode struct {
	depth, index int
	_            [6]int64
}

// spawnWalk walks a complete tree with a task per node, spawned with
// forkjoin.Spawn, counting the nodes: the task function is made once per
// walk, as an application's would be, so that spawns allocate nothing of
// their own.
type spawnWalk struct {
	maxDepth, fanout int
	count            atomic.Int64
	visit            func(s *pool.Scope, n spawnNode)
}

func newSpawnWalk(maxDepth, fanout int) *spawnWalk {
	w := &spawnWalk{maxDepth: maxDepth, fanout: fanout}
	w.visit = func(s *pool.Scope, n spawnNode) {
		w.count.Add(1)
		if n.depth == w.maxDepth {
			return
		}
		for i := range w.fanout {
			forkjoin.Spawn(s, w.visit, spawnNode{depth: n.depth + 1, index: n.index*w.fanout + i})
		}
	}
	return w
}

func TestSpawnRunsEveryTaskWithItsArgument(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p := newPool(t, workers)
			watchdog(t, func() {
				const depth, fanout = 6, 4
				seen := make([]atomic.Int64, 4096) // fanout^depth leaves
				var count atomic.Int64
				var leaf func(s *pool.Scope, n spawnNode)
				leaf = func(s *pool.Scope, n spawnNode) {
					count.Add(1)
					if n.depth == depth {
						seen[n.index].Add(1)
						return
					}
					for i := range fanout {
						forkjoin.Spawn(s, leaf, spawnNode{depth: n.depth + 1, index: n.index*fanout + i})
					}
				}
				p.Scope(func(s *pool.Scope) { leaf(s, spawnNode{}) })
				assert.EqualValues(t, (4096*4-1)/3, count.Load(), "nodes visited")
				for i := range seen {
					require.EqualValues(t, 1, seen[i].Load(), "leaf %d", i)
				}
			})
		})
	}
}

// Once a worker has records to reuse, a spawn allocates nothing: a walk
// of 1365 tasks allocates only its scope. The same walk with Scope.Spawn
// and a closure per node allocates at every spawn, which shows the
// measurement can fail.
func TestSpawnAllocatesNothing(t *testing.T) {
	p := newPool(t, 1, pool.WithSpares(0)) // a spare's start allocates
	watchdog(t, func() {
		sw := newSpawnWalk(5, 4)
		walk := func() { pool.Current().Scope(func(s *pool.Scope) { sw.visit(s, spawnNode{}) }) }
		var count atomic.Int64
		var closure func(s *pool.Scope, n spawnNode)
		closure = func(s *pool.Scope, n spawnNode) {
			count.Add(1)
			if n.depth == 5 {
				return
			}
			for i := range 4 {
				c := spawnNode{depth: n.depth + 1, index: n.index*4 + i}
				s.Spawn(func(s *pool.Scope) { closure(s, c) })
			}
		}
		withClosures := func() { pool.Current().Scope(func(s *pool.Scope) { closure(s, spawnNode{}) }) }
		var allocs, closureAllocs float64
		p.Run(func() {
			walk() // the records exist from here on
			allocs = testing.AllocsPerRun(20, walk)
			closureAllocs = testing.AllocsPerRun(20, withClosures)
		})
		assert.LessOrEqual(t, allocs, 2.0, "allocations per walk of 1365 tasks")
		assert.Greater(t, closureAllocs, 1000.0, "the closure walk's allocations")
	})
}

func TestSpawnMixesArgumentTypes(t *testing.T) {
	p := newPool(t, 2)
	watchdog(t, func() {
		var ints, strs atomic.Int64
		p.Scope(func(s *pool.Scope) {
			for i := range 500 {
				forkjoin.Spawn(s, func(_ *pool.Scope, v int) { ints.Add(int64(v)) }, i)
				forkjoin.Spawn(s, func(_ *pool.Scope, v string) { strs.Add(int64(len(v))) }, "ab")
			}
		})
		assert.EqualValues(t, 499*500/2, ints.Load())
		assert.EqualValues(t, 1000, strs.Load())
	})
}

func TestSpawnPanicsAndBadInput(t *testing.T) {
	p := newPool(t, 2)
	watchdog(t, func() {
		var ran atomic.Int64
		var pe *pool.PanicError
		func() {
			defer func() { pe, _ = recover().(*pool.PanicError) }()
			p.Scope(func(s *pool.Scope) {
				for i := range 100 {
					forkjoin.Spawn(s, func(_ *pool.Scope, i int) {
						ran.Add(1)
						if i == 37 {
							panic("task 37")
						}
					}, i)
				}
			})
		}()
		require.NotNil(t, pe, "the scope re-raises the task's panic")
		assert.Equal(t, "task 37", pe.Value)
		assert.EqualValues(t, 100, ran.Load(), "every task ran")

		pe = nil
		func() {
			defer func() { pe, _ = recover().(*pool.PanicError) }()
			p.Scope(func(s *pool.Scope) { forkjoin.Spawn[int](s, nil, 1) })
		}()
		require.NotNil(t, pe)
		assert.Equal(t, "forkjoin.Spawn: nil function", pe.Value)
		var kept *pool.Scope
		p.Scope(func(s *pool.Scope) { kept = s })
		v := func() (v any) {
			defer func() { v = recover() }()
			forkjoin.Spawn(kept, func(*pool.Scope, int) {}, 1)
			return nil
		}()
		assert.Contains(t, fmt.Sprint(v), "forkjoin.Spawn", "a spawn on a finished scope")
		assert.PanicsWithValue(t, "forkjoin.Spawn: nil *pool.Scope", func() {
			forkjoin.Spawn(nil, func(*pool.Scope, int) {}, 1)
		})
	})
}
