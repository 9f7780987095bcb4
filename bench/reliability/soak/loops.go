package main

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// onPoolOrNot runs f on p (from a task of p) or, at random, from the
// calling goroutine (then forkjoin's calls run on pool.Default()), and
// returns what it panicked with.
func onPoolOrNot(r *rand.Rand, p *pool.Pool, f func()) any {
	if r.IntN(2) == 0 {
		return catch(func() { p.Run(f) })
	}
	return catch(f)
}

// mapReduce maps x to 2x+1 and sums the result, with panics in Map's
// function.
func (s *soak) mapReduce(r *rand.Rand, p *pool.Pool) {
	n := size(r, 50_000)
	in := make([]int, n)
	for i := range in {
		in[i] = i
	}
	inj := s.newInjector(r, famMapReduce, n)
	var out []int
	var total int
	v := onPoolOrNot(r, p, func() {
		out = forkjoin.Map(in, func(x int) int { inj.maybe(uint64(x)); return 2*x + 1 })
		total = forkjoin.Reduce(out, 0, func(a, b int) int { return a + b })
	})
	if !s.outcome(famMapReduce, inj, v) {
		return
	}
	if len(out) != n || total != n*n {
		s.violate(famMapReduce, "%d elements: len %d, sum %d, want %d", n, len(out), total, n*n)
	}
}

// forRange runs forkjoin.For over a random range and grain (negative,
// zero, small, huge; sometimes an empty range) and checks that every index
// is covered exactly once, by non-empty chunks within the grain.
func (s *soak) forRange(r *rand.Rand, p *pool.Pool) {
	lo := r.IntN(2000) - 1000
	hi := lo + size(r, 20_000) - 100 // sometimes hi < lo
	grain := []int{-5, 0, 1, 7, 100, 1 << 40}[r.IntN(6)]
	n := max(hi-lo, 0)
	seen := make([]atomic.Int32, n)
	chunks := 8 * p.Workers() // For's automatic grain
	if grain > 0 {
		chunks = n/grain + 1
	}
	inj := s.newInjector(r, famFor, chunks)
	var bad atomic.Value
	body := func(l, h int) {
		if l >= h || l < lo || h > hi || (grain > 0 && h-l > grain) {
			bad.CompareAndSwap(nil, fmt.Sprintf("bad chunk [%d, %d)", l, h))
		}
		for i := l; i < h; i++ {
			seen[i-lo].Add(1)
		}
		inj.maybe(uint64(l))
	}
	v := onPoolOrNot(r, p, func() { forkjoin.For(lo, hi, grain, body) })
	s.outcome(famFor, inj, v)
	if b := bad.Load(); b != nil {
		s.violate(famFor, "For(%d, %d, %d): %s", lo, hi, grain, b)
	}
	for i := range seen {
		if c := seen[i].Load(); c != 1 {
			s.violate(famFor, "For(%d, %d, %d): index %d covered %d times", lo, hi, grain, lo+i, c)
			break
		}
	}
}
