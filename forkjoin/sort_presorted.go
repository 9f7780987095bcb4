package forkjoin

// A sorted, reversed or all-equal input is sorted by the check that finds
// it so: a linear pass, which slices' sorts make too. On a pool of several
// workers a pass on one of them would leave SortFunc and SortStableFunc
// slower than slices' on those inputs, so for a whole input of more than
// scanSerial elements each scan of their check (sorted? descending?) and
// the reversal are split over the pool, as IsSortedFunc is. Sort keeps
// its serial check: its comparison inlines into slices.IsSorted's loop,
// which ran 1.5x slower called from a generic function (docs/algorithms.md,
// "The slices scans") and so gained nothing split over two workers.

// presortedTopFunc is presortedFunc for a whole input of more than
// scanSerial elements; with strict, a descending input is reversed only if
// no two neighbours are equal (presortedStable's rule).
func presortedTopFunc[E any](s []E, cmp func(a, b E) int, strict bool) (done bool, sorted int) {
	sorted = sortedPrefixFunc(s, cmp)
	if sorted == len(s) {
		return true, sorted
	}
	if firstIn(len(s), func(lo, hi int) int {
		for i := max(lo, 1); i < hi; i++ {
			if c := cmp(s[i-1], s[i]); c < 0 || strict && c == 0 {
				return i - lo
			}
		}
		return -1
	}) >= 0 {
		return false, sorted
	}
	reverseChunks(s)
	return true, len(s)
}

// reverseChunks reverses s, swapping chunks of its two halves on the
// current pool.
func reverseChunks[E any](s []E) {
	n := len(s)
	For(0, n/2, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s[i], s[n-1-i] = s[n-1-i], s[i]
		}
	})
}
