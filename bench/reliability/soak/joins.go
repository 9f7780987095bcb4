package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// joinSum adds 0..n-1 by halving with a join at every level (a random
// kind of join per operation), down to pieces of at most cutoff numbers,
// each counted in seen (exactly once) and maybe panicking.
func (s *soak) joinSum(r *rand.Rand, p *pool.Pool) {
	s.sumOn(r, p, famJoinSum, 1+size(r, 1<<14), nil)
}

// sumOn is joinSum's operation for family f, over n numbers, run by
// p.Run (inside around, if not nil, on the worker). If p refused the call
// because it is closed (nothing ran), it returns the panic, for the
// caller to check; else nil.
func (s *soak) sumOn(r *rand.Rand, p *pool.Pool, f fam, n int, around func(body func())) (refused any) {
	cutoff := 1 + r.IntN(64)
	kind := r.IntN(4)
	inj := s.newInjector(r, f, n/cutoff)
	seen := make([]atomic.Int32, n)
	var sum func(lo, hi int) int
	sum = func(lo, hi int) int {
		if hi-lo <= cutoff {
			t := 0
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
				t += i
			}
			inj.maybe(uint64(lo))
			return t
		}
		mid := lo + (hi-lo)/2
		var a, b int
		switch kind {
		case 0:
			pool.Join(func() { a = sum(lo, mid) }, func() { b = sum(mid, hi) })
		case 1:
			p.Join(func() { a = sum(lo, mid) }, func() { b = sum(mid, hi) })
		case 2:
			a, b = forkjoin.Join(func() int { return sum(lo, mid) }, func() int { return sum(mid, hi) })
		default:
			a, b = forkjoin.Call(func(r [2]int) int { return sum(r[0], r[1]) }, [2]int{lo, mid}, [2]int{mid, hi})
		}
		return a + b
	}
	got := -1
	body := func() { got = sum(0, n) }
	if around == nil {
		around = func(body func()) { body() }
	}
	v := catch(func() { p.Run(func() { around(body) }) })
	if isClosed(v) && got == -1 {
		return v // refused before it started: nothing ran
	}
	if s.outcome(f, inj, v) && got != n*(n-1)/2 {
		s.violate(f, "sum of %d numbers: got %d, want %d", n, got, n*(n-1)/2)
	}
	for i := range seen {
		if c := seen[i].Load(); c != 1 {
			s.violate(f, "sum of %d numbers: number %d added %d times", n, i, c)
			break
		}
	}
	return nil
}

// scope runs a random tree of tasks spawned on one scope (closures and
// forkjoin.Spawn's typed tasks mixed): node id's children are 5*id+1 ..
// 5*id+k, k from a hash, so the tree is known in advance and every node
// must run exactly once, panics or not.
func (s *soak) scope(r *rand.Rand, p *pool.Pool) {
	const fan, depth = 5, 5
	treeSeed := r.Uint64()
	children := func(id uint64, d int) int {
		if d >= depth {
			return 0
		}
		return int(splitmix(treeSeed^id) % fan)
	}
	size := 1
	for range depth + 1 {
		size = size*fan + 1
	}
	want := make([]bool, size)
	nodes := 0
	var mark func(id uint64, d int)
	mark = func(id uint64, d int) {
		want[id] = true
		nodes++
		for k := range children(id, d) {
			mark(fan*id+uint64(k)+1, d+1)
		}
	}
	mark(0, 0)
	inj := s.newInjector(r, famScope, nodes)
	ran := make([]atomic.Int32, size)
	// Half the runs are a ScopeContext whose context is cancelled before
	// the call, from the task of a random node, or from a timer.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	cause := &taskErr{-1}
	withContext, moment, cancelAt := r.IntN(2) == 0, r.IntN(3), uint64(size)
	if withContext {
		switch moment {
		case 0:
			cancel(cause)
		case 1:
			k := r.IntN(nodes)
			for id := range want {
				if want[id] {
					if k == 0 {
						cancelAt = uint64(id)
						break
					}
					k--
				}
			}
		}
	}
	// A child is spawned as a closure (Scope.Spawn) or with its id as the
	// argument (forkjoin.Spawn), as a hash says, so that runs of typed
	// siblings, which a worker reorders, meet closures between them.
	type at struct {
		id uint64
		d  int
	}
	var node func(sc *pool.Scope, id uint64, d int)
	typed := func(sc *pool.Scope, a at) { node(sc, a.id, a.d) }
	node = func(sc *pool.Scope, id uint64, d int) {
		ran[id].Add(1)
		for k := range children(id, d) {
			child := fan*id + uint64(k) + 1
			if splitmix(treeSeed^child)>>32%3 == 0 {
				sc.Spawn(func(sc *pool.Scope) { node(sc, child, d+1) })
			} else {
				forkjoin.Spawn(sc, typed, at{child, d + 1})
			}
		}
		inj.maybe(id) // after spawning: the children run anyway
		if id == cancelAt {
			cancel(cause)
		}
	}
	var err error
	v := catch(func() {
		if !withContext {
			p.Scope(func(sc *pool.Scope) { node(sc, 0, 0) })
			return
		}
		if moment == 2 {
			tm := time.AfterFunc(time.Duration(r.IntN(200))*time.Microsecond, func() { cancel(cause) })
			defer tm.Stop()
		}
		err = p.ScopeContext(ctx, func(sc *pool.Scope) { node(sc, 0, 0) })
	})
	returned := s.outcome(famScope, inj, v)
	if withContext {
		s.checkScopeContext(ran, want, nodes, err, cause, returned)
		return
	}
	for id := range ran {
		c, w := ran[id].Load(), int32(0)
		if want[id] {
			w = 1
		}
		if c != w {
			s.violate(famScope, "tree of %d tasks: task %d ran %d times, want %d", nodes, id, c, w)
			break
		}
	}
}

// checkScopeContext checks a ScopeContext's tree: no task ran twice or
// outside the tree; if the call returned nil, every task ran; if it
// returned the cause, some task did not; no other error.
func (s *soak) checkScopeContext(ran []atomic.Int32, want []bool, nodes int, err, cause error, returned bool) {
	missed := 0
	for id := range ran {
		c := ran[id].Load()
		if c > 1 || c == 1 && !want[id] {
			s.violate(famScope, "ScopeContext, tree of %d tasks: task %d ran %d times", nodes, id, c)
			return
		}
		if want[id] && c == 0 {
			missed++
		}
	}
	if !returned {
		return
	}
	switch {
	case err == nil && missed > 0:
		s.violate(famScope, "ScopeContext returned nil, but %d of %d tasks did not run", missed, nodes)
	case err == cause && missed == 0:
		s.violate(famScope, "ScopeContext returned the cause, but every task ran")
	case err != nil && err != cause:
		s.violate(famScope, "ScopeContext returned %v, want nil or the cause", err)
	}
}

// cross calls from a worker of p into another pool and back, with joins
// on both.
func (s *soak) cross(r *rand.Rand, p *pool.Pool) {
	q := s.pools[r.IntN(len(s.pools))]
	const leaves = 64
	inj := s.newInjector(r, famCross, leaves)
	var ran [leaves]atomic.Int32
	// Blocks of 16 leaves go to the other pool, and their blocks of 4
	// back to the first.
	var visit func(pl, other *pool.Pool, lo, hi int, switched bool)
	visit = func(pl, other *pool.Pool, lo, hi int, switched bool) {
		if hi-lo == 1 {
			ran[lo].Add(1)
			inj.maybe(uint64(lo))
			return
		}
		if (hi-lo == 16 || hi-lo == 4) && !switched {
			other.Run(func() { visit(other, pl, lo, hi, true) })
			return
		}
		mid := (lo + hi) / 2
		pl.Join(func() { visit(pl, other, lo, mid, false) }, func() { visit(pl, other, mid, hi, false) })
	}
	v := catch(func() { p.Run(func() { visit(p, q, 0, leaves, false) }) })
	s.outcome(famCross, inj, v)
	for i := range ran {
		if c := ran[i].Load(); c != 1 {
			s.violate(famCross, "leaf %d ran %d times", i, c)
			break
		}
	}
}

// detached spawns tasks that nobody joins, from outside and from workers;
// the injected panics go to the pool's handler.
func (s *soak) detached(r *rand.Rand, p *pool.Pool) {
	n := 1 + r.IntN(32)
	inj := s.newInjector(r, famDetached, n)
	if inj == nil {
		inj = &injector{} // threshold 0: never panics
	}
	var wg sync.WaitGroup
	inj.detached, inj.total, inj.also = &wg, &s.fams[famDetached].injected, &s.detachedInj
	var ran atomic.Int32
	task := func(i int) func() {
		return func() {
			ran.Add(1)
			inj.maybe(uint64(i)) // if it panics, the handler calls Done
			wg.Done()
		}
	}
	wg.Add(n)
	for i := range n {
		if i%2 == 0 {
			p.Spawn(task(i))
		} else {
			p.Run(func() { p.Spawn(task(i)) }) // from a worker: its own deque
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		s.violate(famDetached, "%d tasks spawned, %d ran, not all finished after a minute", n, ran.Load())
		return
	}
	if c := ran.Load(); c != int32(n) {
		s.violate(famDetached, "%d tasks spawned, %d ran", n, c)
	}
}
