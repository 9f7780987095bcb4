package main

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// randomSlice returns n ints in one of a few shapes.
func randomSlice(r *rand.Rand, n int) []int {
	s := make([]int, n)
	switch r.IntN(5) {
	case 0: // random
		for i := range s {
			s[i] = r.Int()
		}
	case 1: // few distinct
		for i := range s {
			s[i] = r.IntN(8)
		}
	case 2: // sorted
		for i := range s {
			s[i] = i
		}
	case 3: // reversed
		for i := range s {
			s[i] = n - i
		}
	default: // sorted with a few swaps
		for i := range s {
			s[i] = i
		}
		for range 1 + n/1000 {
			if n > 0 {
				i, j := r.IntN(n), r.IntN(n)
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// keyed is an element with a sort key and its index in the input, so that
// the order of equal keys (stability, the first of equal minima) shows.
type keyed struct{ key, idx int }

// randomKeyed returns n keyed elements, their keys in one of
// randomSlice's shapes, often with many equal keys.
func randomKeyed(r *rand.Rand, n int) []keyed {
	keys := randomSlice(r, n)
	mod := []int{2, 16, 1 << 62}[r.IntN(3)]
	s := make([]keyed, n)
	for i, k := range keys {
		s[i] = keyed{k % mod, i}
	}
	return s
}

// countingCmp is a comparison of keyed elements by key that may panic
// (each call is a task of inj, numbered in call order).
func countingCmp(inj *injector) func(a, b keyed) int {
	var calls atomic.Uint64
	return func(a, b keyed) int {
		inj.maybe(calls.Add(1))
		return cmp.Compare(a.key, b.key)
	}
}

// sort sorts a random slice with forkjoin.Sort, on p or off-pool (then on
// pool.Default()), and compares with slices.Sort.
func (s *soak) sort(r *rand.Rand, p *pool.Pool) {
	in := randomSlice(r, size(r, 200_000))
	want := slices.Clone(in)
	slices.Sort(want)
	got := slices.Clone(in)
	onPoolOrNot(r, p, func() { forkjoin.Sort(got) })
	if !slices.Equal(got, want) {
		s.violate(famSort, "%d ints: result differs from slices.Sort", len(in))
	}
}

// sortFunc sorts with forkjoin.SortFunc, whose comparison may panic: then
// the slice must still be a permutation of its input.
func (s *soak) sortFunc(r *rand.Rand, p *pool.Pool) {
	in := randomSlice(r, size(r, 100_000))
	want := slices.Clone(in)
	slices.Sort(want)
	got := slices.Clone(in)
	inj := s.newInjector(r, famSortFunc, 20*len(in)) // about n log n comparisons
	var calls atomic.Uint64
	compare := func(a, b int) int {
		inj.maybe(calls.Add(1))
		return cmp.Compare(a, b)
	}
	v := onPoolOrNot(r, p, func() { forkjoin.SortFunc(got, compare) })
	if s.outcome(famSortFunc, inj, v) {
		if !slices.Equal(got, want) {
			s.violate(famSortFunc, "%d ints: result differs from slices.Sort", len(in))
		}
		return
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		s.violate(famSortFunc, "%d ints: after a panic, the slice is not a permutation of its input", len(in))
	}
}

// sortStable sorts keyed elements with forkjoin.SortStableFunc: the result
// must be exactly slices.SortStableFunc's (equal keys in input order), or,
// after a panic in the comparison, a permutation of the input.
func (s *soak) sortStable(r *rand.Rand, p *pool.Pool) {
	in := randomKeyed(r, size(r, 100_000))
	want := slices.Clone(in)
	slices.SortStableFunc(want, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	got := slices.Clone(in)
	inj := s.newInjector(r, famSortStable, 20*len(in))
	v := onPoolOrNot(r, p, func() { forkjoin.SortStableFunc(got, countingCmp(inj)) })
	if s.outcome(famSortStable, inj, v) {
		if !slices.Equal(got, want) {
			s.violate(famSortStable, "%d elements: result differs from slices.SortStableFunc", len(in))
		}
		return
	}
	slices.SortFunc(got, func(a, b keyed) int { return cmp.Compare(a.idx, b.idx) })
	if !slices.Equal(got, in) {
		s.violate(famSortStable, "%d elements: after a panic, the slice is not a permutation of its input", len(in))
	}
}

// minMax checks forkjoin.MinFunc and MaxFunc against slices.MinFunc and
// MaxFunc, which return the first of equal extremes; on an empty slice
// both must panic, naming the call.
func (s *soak) minMax(r *rand.Rand, p *pool.Pool) {
	in := randomKeyed(r, size(r, 100_000))
	inj := s.newInjector(r, famMinMax, 2*len(in))
	c := countingCmp(inj)
	var lo, hi keyed
	v := onPoolOrNot(r, p, func() { lo, hi = forkjoin.MinFunc(in, c), forkjoin.MaxFunc(in, c) })
	if len(in) == 0 {
		// From a task the panic comes out of Run as a *pool.PanicError.
		if !strings.Contains(fmt.Sprint(v), "forkjoin.MinFunc") {
			s.violate(famMinMax, "MinFunc of an empty slice panicked with %v, want a message naming it", v)
		}
		if v := catch(func() { forkjoin.MaxFunc(in, c) }); !strings.Contains(fmt.Sprint(v), "forkjoin.MaxFunc") {
			s.violate(famMinMax, "MaxFunc of an empty slice panicked with %v, want a message naming it", v)
		}
		return
	}
	if !s.outcome(famMinMax, inj, v) {
		return
	}
	byKey := func(a, b keyed) int { return cmp.Compare(a.key, b.key) }
	if want := slices.MinFunc(in, byKey); lo != want {
		s.violate(famMinMax, "MinFunc of %d elements: %v, want %v", len(in), lo, want)
	}
	if want := slices.MaxFunc(in, byKey); hi != want {
		s.violate(famMinMax, "MaxFunc of %d elements: %v, want %v", len(in), hi, want)
	}
}
