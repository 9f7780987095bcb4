package pool_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// BenchmarkIsolate runs fib with a fork at every level, plainly and
// inside pool.Isolate, on 1 and 2 workers: what isolation adds to a fork.
// The forks: pool.Join (fib(25)) and forkjoin.Call, the cheapest
// (fib(27)).
//
//	go test -run '^$' -bench Isolate -count 8 -benchtime 40x ./pool
func BenchmarkIsolate(b *testing.B) {
	forks := []struct {
		name string
		fib  func()
	}{
		{"fork=pool.Join", func() { fib(25) }},
		{"fork=forkjoin.Call", func() { fibCall(27) }},
	}
	for _, workers := range []int{1, 2} {
		p, err := pool.New(pool.WithWorkers(workers))
		if err != nil {
			b.Fatal(err)
		}
		for _, fork := range forks {
			for _, isolated := range []bool{false, true} {
				run, region := fork.fib, "plain"
				if isolated {
					run, region = func() { pool.Isolate(fork.fib) }, "isolated"
				}
				b.Run(fmt.Sprintf("%s/workers=%d/%s", fork.name, workers, region), func(b *testing.B) {
					for b.Loop() {
						p.Run(run)
					}
				})
			}
		}
		p.Close()
	}
}

// BenchmarkIsolateEveryTask estimates what isolation by default would
// cost: every task's waits helping only with that task's own work, as if
// each task ran inside pool.Isolate. Two shapes, on 1 and 2 workers: fib
// forking at every level (forkjoin.Call, fib(24)) and a spawn tree (a
// Scope per node spawning its two children, depth 16). Three variants:
// plain; each task's body through a closure (closure), which is the
// proxy's own cost; and that closure inside pool.Isolate (isolated). The
// cost of isolating every task is isolated over closure: the closure is
// what an engine-level version would not pay, the region and the
// restricted waits are what it would.
//
//	go test -run '^$' -bench IsolateEveryTask -count 6 -benchtime 20x ./pool
func BenchmarkIsolateEveryTask(b *testing.B) {
	type variant struct {
		name string
		wrap func(f func())
	}
	variants := []variant{
		{"plain", nil},
		{"closure", func(f func()) { f() }},
		{"isolated", pool.Isolate},
	}
	for _, workers := range []int{1, 2} {
		p, err := pool.New(pool.WithWorkers(workers))
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range variants {
			b.Run(fmt.Sprintf("shape=fib/workers=%d/%s", workers, v.name), func(b *testing.B) {
				for b.Loop() {
					p.Run(func() { fibWrapped(24, v.wrap) })
				}
			})
			b.Run(fmt.Sprintf("shape=spawn-tree/workers=%d/%s", workers, v.name), func(b *testing.B) {
				for b.Loop() {
					p.Run(func() { spawnTree(16, v.wrap) })
				}
			})
		}
		p.Close()
	}
}

// fibWrapped is fib with forkjoin.Call at every level, each level's fork
// inside wrap when wrap is set.
func fibWrapped(n int, wrap func(func())) int {
	if n < 2 {
		return n
	}
	var a, c int
	fork := func() {
		a, c = forkjoin.Call(func(m int) int { return fibWrapped(m, wrap) }, n-1, n-2)
	}
	if wrap == nil {
		a, c = forkjoin.Call(fibCall, n-1, n-2)
	} else {
		wrap(fork)
	}
	return a + c
}

// spawnTree walks a complete binary tree of the given depth, each node a
// task of a scope of its parent's, each node's body inside wrap when wrap
// is set.
func spawnTree(depth int, wrap func(func())) {
	if depth == 0 {
		return
	}
	body := func() {
		pool.Current().Scope(func(s *pool.Scope) {
			s.Spawn(func(*pool.Scope) { spawnTree(depth-1, wrap) })
			s.Spawn(func(*pool.Scope) { spawnTree(depth-1, wrap) })
		})
	}
	if wrap == nil {
		body()
		return
	}
	wrap(body)
}
