package main

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// matches returns n elements (element i is i) and a predicate is, true on
// about one in every `every` of them, at positions from a hash (every == 0
// matches nothing); pred is is with its calls counted per element in
// calls, and it may panic (each element is a task of inj).
func matches(r *rand.Rand, n int, inj *injector, calls []atomic.Int32) (in []int, is, pred func(int) bool) {
	in = make([]int, n)
	for i := range in {
		in[i] = i
	}
	every := uint64([]int{0, 1, 2, 1000, max(n, 1)}[r.IntN(5)])
	seed := r.Uint64()
	is = func(x int) bool { return every != 0 && splitmix(seed^uint64(x))%every == 0 }
	pred = func(x int) bool {
		calls[x].Add(1)
		inj.maybe(uint64(x))
		return is(x)
	}
	return in, is, pred
}

// find checks forkjoin.Find, Any, All and Count against the serial
// definitions, and that Find calls its predicate at most once per element.
func (s *soak) find(r *rand.Rand, p *pool.Pool) {
	n := size(r, 100_000)
	inj := s.newInjector(r, famFind, n)
	calls := make([]atomic.Int32, n)
	in, is, pred := matches(r, n, inj, calls)
	var i, count int
	var found, anyOf, all bool
	v := onPoolOrNot(r, p, func() { i, found = forkjoin.Find(in, pred) })
	for x := range calls {
		if c := calls[x].Load(); c > 1 {
			s.violate(famFind, "Find over %d elements: predicate called %d times on element %d", n, c, x)
			break
		}
	}
	if !s.outcome(famFind, inj, v) {
		return
	}
	want := slices.IndexFunc(in, is)
	if i != want || found != (want >= 0) {
		s.violate(famFind, "Find over %d elements: %d, %v; want %d", n, i, found, want)
	}
	onPoolOrNot(r, p, func() {
		anyOf, all, count = forkjoin.Any(in, is), forkjoin.All(in, is), forkjoin.Count(in, is)
	})
	wantCount := 0
	for _, x := range in {
		if is(x) {
			wantCount++
		}
	}
	if anyOf != (wantCount > 0) || all != (wantCount == n) || count != wantCount {
		s.violate(famFind, "%d elements, %d match: Any %v, All %v, Count %d", n, wantCount, anyOf, all, count)
	}
}

// filter checks forkjoin.Filter against the serial loop, and that keep is
// called exactly once per element (at most once after a panic).
func (s *soak) filter(r *rand.Rand, p *pool.Pool) {
	n := size(r, 100_000)
	inj := s.newInjector(r, famFilter, n)
	calls := make([]atomic.Int32, n)
	in, is, keep := matches(r, n, inj, calls)
	var got []int
	v := onPoolOrNot(r, p, func() { got = forkjoin.Filter(in, keep) })
	returned := s.outcome(famFilter, inj, v)
	for x := range calls {
		if c := calls[x].Load(); c > 1 || returned && c != 1 {
			s.violate(famFilter, "%d elements: keep called %d times on element %d", n, c, x)
			break
		}
	}
	if !returned {
		return
	}
	var want []int
	for _, x := range in {
		if is(x) {
			want = append(want, x)
		}
	}
	if got == nil || !slices.Equal(got, want) {
		s.violate(famFilter, "%d elements: %d kept, want %d (or nil result)", n, len(got), len(want))
	}
}

// affine is x -> a*x + b over uint64: composition is associative and not
// commutative, so a scan that combines in the wrong order shows.
type affine struct{ a, b uint64 }

// then is f followed by g.
func (f affine) then(g affine) affine { return affine{g.a * f.a, g.a*f.b + g.b} }

// scan checks forkjoin.Scan of affine maps against the serial prefix
// composition.
func (s *soak) scan(r *rand.Rand, p *pool.Pool) {
	n := size(r, 100_000)
	in := make([]affine, n)
	for i := range in {
		in[i] = affine{r.Uint64() | 1, r.Uint64()}
	}
	inj := s.newInjector(r, famScan, 2*n)
	var calls atomic.Uint64
	op := func(f, g affine) affine {
		inj.maybe(calls.Add(1))
		return f.then(g)
	}
	var got []affine
	v := onPoolOrNot(r, p, func() { got = forkjoin.Scan(in, op) })
	if !s.outcome(famScan, inj, v) {
		return
	}
	want := make([]affine, n)
	for i, f := range in {
		if i == 0 {
			want[i] = f
		} else {
			want[i] = want[i-1].then(f)
		}
	}
	if got == nil || !slices.Equal(got, want) {
		s.violate(famScan, "%d elements: result differs from the serial scan", n)
	}
}
