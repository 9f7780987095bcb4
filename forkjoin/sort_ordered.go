package forkjoin

import (
	"cmp"
	"slices"
)

// sortOrdered is Sort with the serial cutoff as a parameter (tests use
// small ones to exercise the partitioning on small inputs).
func sortOrdered[E cmp.Ordered](s []E, cutoff int) {
	if len(s) <= cutoff {
		slices.Sort(s)
		return
	}
	// One closure per sort, passed to every fork: the forks allocate
	// nothing.
	var sort func(t sortTask[E])
	sort = func(t sortTask[E]) { quickOrdered(t, cutoff, sort) }
	topDo(sort, sortTask[E]{s, depthBudget(len(s))}, true)
}

// quickOrdered sorts t.s: serially if it is small or out of budget, else
// by partitioning it and forking self on both sides.
func quickOrdered[E cmp.Ordered](t sortTask[E], cutoff int, self func(sortTask[E])) {
	s := t.s
	if len(s) <= cutoff || t.budget <= 0 {
		slices.Sort(s)
		return
	}
	if slices.IsSorted(s) {
		return
	}
	p := partitionOrdered(s)
	Do(self, sortTask[E]{s[:p], t.budget - 1}, sortTask[E]{s[p+1:], t.budget - 1})
}

// partitionOrdered picks a pivot, moves it to its final index p and
// returns p, with no element of s[:p] greater than the pivot and no
// element of s[p+1:] less than it. len(s) >= 2. Both sides are shorter
// than s, so the recursion always progresses.
func partitionOrdered[E cmp.Ordered](s []E) int {
	m := pivotOrdered(s)
	s[0], s[m] = s[m], s[0]
	pivot := s[0]
	// Invariant: s[1:i] holds no element greater than the pivot, s[j+1:]
	// no element less than it.
	i, j := 1, len(s)-1
	for {
		for i <= j && cmp.Less(s[i], pivot) {
			i++
		}
		for i <= j && cmp.Less(pivot, s[j]) {
			j--
		}
		if i >= j {
			break
		}
		s[i], s[j] = s[j], s[i]
		i++
		j--
	}
	// Here s[j] is the pivot itself (j == 0) or an element of s[1:i], not
	// greater than the pivot, and everything after j is not less than it.
	s[0], s[j] = s[j], s[0]
	return j
}

// pivotOrdered returns the index of the pivot for s: the median of the
// first, middle and last elements, or for long pieces the median of the
// medians of three groups of three samples spread over s (Tukey's
// ninther), which makes sorted, reversed and organ-pipe inputs split well
// and random ones split close to the middle.
func pivotOrdered[E cmp.Ordered](s []E) int {
	n := len(s)
	if n < ninther {
		return median3Ordered(s, 0, n/2, n-1)
	}
	d := n / 8
	return median3Ordered(s,
		median3Ordered(s, 0, d, 2*d),
		median3Ordered(s, 3*d, 4*d, 5*d),
		median3Ordered(s, 6*d, 7*d, n-1))
}

// median3Ordered returns whichever of a, b, c indexes the median of their
// elements.
func median3Ordered[E cmp.Ordered](s []E, a, b, c int) int {
	if cmp.Less(s[b], s[a]) {
		a, b = b, a
	}
	// s[a] <= s[b]: the median is s[b] unless s[c] is below it.
	if cmp.Less(s[c], s[b]) {
		if cmp.Less(s[c], s[a]) {
			return a
		}
		return c
	}
	return b
}
