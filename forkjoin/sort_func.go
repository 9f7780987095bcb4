package forkjoin

import "slices"

// This file is sort_ordered.go with cmp(a, b) < 0 in place of cmp.Less
// (the standard library duplicates its sorts the same way: going through a
// function value for the ordered case would cost Sort the inlined
// comparisons that keep it level with slices.Sort).

// sortFunc is SortFunc with the serial cutoff as a parameter. It keeps
// the Hoare partition and sortFuncCutoff: see sortFuncCutoff.
func sortFunc[E any](s []E, cmp func(a, b E) int, cutoff int) { sortFuncCancel(s, cmp, cutoff, nil) }

// sortFuncCancel is sortFunc with a cancellation (nil: none).
func sortFuncCancel[E any](s []E, cmp func(a, b E) int, cutoff int, c *sortCancel) {
	if len(s) <= cutoff {
		defer rethrow() // cmp's panics come out as *PanicError regardless of len(s)
		slices.SortFunc(s, cmp)
		return
	}
	var sort func(t sortTask[E])
	sort = func(t sortTask[E]) { quickFunc(t, cmp, cutoff, sort) }
	topDo(sort, nil, sortTask[E]{s: s, budget: depthBudget(len(s)), top: len(s) > scanSerial, cancel: c}, true)
}

// quickFunc is quickOrdered with cmp.
func quickFunc[E any](t sortTask[E], cmp func(a, b E) int, cutoff int, self func(sortTask[E])) {
	s := t.s
	if t.cancel.stopped() {
		return
	}
	if len(s) <= cutoff || t.budget <= 0 {
		slices.SortFunc(s, cmp)
		return
	}
	var done bool
	sorted := 0 // s[:sorted] is sorted
	if t.top {
		done, sorted = presortedTopFunc(s, cmp, false)
	} else {
		done, sorted = presortedFunc(s, cmp)
	}
	if done || samplesAscendFunc(s, cmp) && insertFewFunc(s, cmp, sorted) {
		return
	}
	m := pivotFunc(s, cmp)
	if t.hasLow && cmp(t.low, s[m]) >= 0 {
		t.s, t.top = s[equalFirstFunc(s, s[m], cmp):], false
		quickFunc(t, cmp, cutoff, self)
		return
	}
	p := partitionFunc(s, m, cmp, t.cancel)
	if p < 0 {
		return // cancelled
	}
	budget := splitBudget(s, p, t.budget)
	Do(self, sortTask[E]{s: s[:p], budget: budget, low: t.low, hasLow: t.hasLow, cancel: t.cancel},
		sortTask[E]{s: s[p+1:], budget: budget, low: s[p], hasLow: true, cancel: t.cancel})
}

// equalFirstFunc is equalFirstOrdered with cmp.
func equalFirstFunc[E any](s []E, key E, cmp func(a, b E) int) int {
	i, j := 0, len(s)-1
	for {
		for i <= j && cmp(key, s[i]) >= 0 {
			i++
		}
		for i <= j && cmp(key, s[j]) < 0 {
			j--
		}
		if i >= j {
			return i
		}
		s[i], s[j] = s[j], s[i]
		i++
		j--
	}
}

// insertFewFunc is insertFewOrdered with cmp.
func insertFewFunc[E any](s []E, cmp func(a, b E) int, sorted int) bool {
	i := max(sorted, 1)
	for range insertionMoves {
		for i < len(s) && cmp(s[i], s[i-1]) >= 0 {
			i++
		}
		if i == len(s) {
			return true
		}
		s[i-1], s[i] = s[i], s[i-1]
		for j := i - 1; j > 0 && cmp(s[j], s[j-1]) < 0; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
		for j := i; j+1 < len(s) && cmp(s[j+1], s[j]) < 0; j++ {
			s[j], s[j+1] = s[j+1], s[j]
		}
	}
	for ; i < len(s); i++ {
		if cmp(s[i], s[i-1]) < 0 {
			return false
		}
	}
	return true
}

// samplesAscendFunc is samplesAscendOrdered with cmp.
func samplesAscendFunc[E any](s []E, cmp func(a, b E) int) bool {
	n := len(s)
	if n < ninther {
		return cmp(s[0], s[n/2]) < 0 && cmp(s[n/2], s[n-1]) < 0
	}
	d := n / 8
	for k := 1; k < 8; k++ {
		if cmp(s[(k-1)*d], s[k*d]) >= 0 {
			return false
		}
	}
	return cmp(s[7*d], s[n-1]) < 0
}

// presortedFunc is presortedOrdered with cmp. Like presortedTopFunc it
// returns the length of a prefix known to be sorted: 0, as its check
// scans from the end (slices.IsSortedFunc's order, which the adversary's
// comparison count depends on: scanning from the front made it 1.2-1.6x
// larger).
func presortedFunc[E any](s []E, cmp func(a, b E) int) (done bool, sorted int) {
	if slices.IsSortedFunc(s, cmp) {
		return true, len(s)
	}
	for i := 1; i < len(s); i++ {
		if cmp(s[i-1], s[i]) < 0 {
			return false, 0
		}
	}
	slices.Reverse(s)
	return true, len(s)
}

// partitionFunc is partitionOrdered with cmp, always by the scans.
func partitionFunc[E any](s []E, m int, cmp func(a, b E) int, c *sortCancel) int {
	s[0], s[m] = s[m], s[0]
	pivot := s[0]
	i, j := 1, len(s)-1
	for swaps := 1; ; swaps++ {
		if swaps%(cancelCheckBlocks*blockSize) == 0 && c.stopped() {
			return -1
		}
		for i <= j && cmp(s[i], pivot) < 0 {
			i++
		}
		for i <= j && cmp(pivot, s[j]) < 0 {
			j--
		}
		if i >= j {
			break
		}
		s[i], s[j] = s[j], s[i]
		i++
		j--
	}
	s[0], s[j] = s[j], s[0]
	return j
}

// pivotFunc is pivotOrdered with cmp.
func pivotFunc[E any](s []E, cmp func(a, b E) int) int {
	n := len(s)
	if n < ninther {
		return median3Func(s, cmp, 0, n/2, n-1)
	}
	d := n / 8
	return median3Func(s, cmp,
		median3Func(s, cmp, 0, d, 2*d),
		median3Func(s, cmp, 3*d, 4*d, 5*d),
		median3Func(s, cmp, 6*d, 7*d, n-1))
}

// median3Func is median3Ordered with cmp.
func median3Func[E any](s []E, cmp func(a, b E) int, a, b, c int) int {
	if cmp(s[b], s[a]) < 0 {
		a, b = b, a
	}
	if cmp(s[c], s[b]) < 0 {
		if cmp(s[c], s[a]) < 0 {
			return a
		}
		return c
	}
	return b
}
