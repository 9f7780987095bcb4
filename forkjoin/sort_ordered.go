package forkjoin

import (
	"cmp"
	"slices"
)

// sortOrdered is Sort with the leaf cutoff as a parameter (tests use
// small ones to exercise the partitioning and the forks on small inputs).
// Pieces of at most sortSerialPieces*cutoff elements are sorted without
// forks; an input that small is sorted by slices.Sort, which on a few
// thousand elements is as fast (and faster with few distinct keys).
func sortOrdered[E cmp.Ordered](s []E, cutoff int) { sortOrderedCancel(s, cutoff, nil) }

// sortOrderedCancel is sortOrdered with a cancellation (nil: none).
func sortOrderedCancel[E cmp.Ordered](s []E, cutoff int, c *sortCancel) {
	serial := sortSerialPieces * cutoff
	if len(s) <= serial {
		slices.Sort(s)
		return
	}
	t := sortTask[E]{s: s, budget: depthBudget(len(s)), cancel: c}
	// One closure per sort, passed to every fork: the forks allocate
	// nothing.
	var sort func(t sortTask[E])
	sort = func(t sortTask[E]) { quickOrdered(t, cutoff, serial, sort) }
	topDo(sort, nil, t, true)
}

// quickOrdered sorts t.s: by slices.Sort if it has at most cutoff
// elements or no budget left, else by partitioning it and sorting both
// sides, with a fork of self if it has more than serial elements and by
// recursion otherwise.
func quickOrdered[E cmp.Ordered](t sortTask[E], cutoff, serial int, self func(sortTask[E])) {
	s := t.s
	if t.cancel.stopped() {
		return
	}
	if len(s) <= cutoff || t.budget <= 0 {
		slices.Sort(s)
		return
	}
	if presortedOrdered(s) {
		return
	}
	if samplesAscendOrdered(s) && insertFewOrdered(s) {
		return
	}
	m := pivotOrdered(s)
	if t.hasLow && !cmp.Less(t.low, s[m]) {
		// The pivot is low's key: its copies go first, and are done.
		t.s = s[equalFirstOrdered(s, s[m]):]
		quickOrdered(t, cutoff, serial, self)
		return
	}
	p := partitionOrdered(s, m, inRunsOrdered(s, s[m]), t.cancel)
	if p < 0 {
		return // cancelled
	}
	budget := splitBudget(s, p, t.budget)
	left := sortTask[E]{s: s[:p], budget: budget, low: t.low, hasLow: t.hasLow, cancel: t.cancel}
	right := sortTask[E]{s: s[p+1:], budget: budget, low: s[p], hasLow: true, cancel: t.cancel}
	if len(s) > serial {
		Do(self, left, right)
		return
	}
	quickOrdered(left, cutoff, serial, self)
	quickOrdered(right, cutoff, serial, self)
}

// equalFirstOrdered moves the elements of s equal to key, none of which
// is less than key, to its front and returns how many there are.
func equalFirstOrdered[E cmp.Ordered](s []E, key E) int {
	i, j := 0, len(s)-1
	for {
		for i <= j && !cmp.Less(key, s[i]) {
			i++
		}
		for i <= j && cmp.Less(key, s[j]) {
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

// insertFewOrdered sorts s by insertion, moving at most insertionMoves
// out-of-order elements, and reports whether that sorted it. Either way
// s is a permutation of what it was.
func insertFewOrdered[E cmp.Ordered](s []E) bool {
	i := 1
	for range insertionMoves {
		for i < len(s) && !cmp.Less(s[i], s[i-1]) {
			i++
		}
		if i == len(s) {
			return true
		}
		// s[i-1] > s[i]: swap them, then move the smaller one left and
		// the greater one right to where they belong.
		s[i-1], s[i] = s[i], s[i-1]
		for j := i - 1; j > 0 && cmp.Less(s[j], s[j-1]); j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
		for j := i; j+1 < len(s) && cmp.Less(s[j+1], s[j]); j++ {
			s[j], s[j+1] = s[j+1], s[j]
		}
	}
	for ; i < len(s); i++ {
		if cmp.Less(s[i], s[i-1]) {
			return false
		}
	}
	return true
}

// presortedOrdered sorts s and reports true if s is sorted already or in
// reverse (no element less than the one before it); otherwise it reports
// false and leaves s alone. Each check stops at the first pair out of its
// order, so on unsorted input it costs a comparison or two.
func presortedOrdered[E cmp.Ordered](s []E) bool {
	if slices.IsSorted(s) {
		return true
	}
	for i := 1; i < len(s); i++ {
		if cmp.Less(s[i-1], s[i]) {
			return false
		}
	}
	slices.Reverse(s)
	return true
}

// inRunsOrdered reports whether the elements of s lie in long runs on
// either side of pivot, as far as 8 pairs of neighbours spread over s
// tell: each pair on one side, and the side changing at most twice from
// pair to pair (a nearly sorted piece, an organ pipe). On such a piece
// the scans of a Hoare partition rarely mispredict and beat the block
// partition, which costs the same per element on any input. It stops at
// the first pair that disagrees, so a random piece costs a few
// comparisons.
func inRunsOrdered[E cmp.Ordered](s []E, pivot E) bool {
	n, changes := len(s), 0
	var prev bool
	for k := range 8 {
		i := k * (n - 2) / 7
		side := cmp.Less(s[i], pivot)
		if side != cmp.Less(s[i+1], pivot) {
			return false
		}
		if k > 0 && side != prev {
			if changes++; changes > 2 {
				return false
			}
		}
		prev = side
	}
	return true
}

// partitionOrdered moves the pivot s[m] to its final index p and returns
// p, with no element of s[:p] greater than the pivot and no element of
// s[p+1:] less than it. len(s) >= 2. Both sides are shorter than s, so
// the recursion always progresses. inRuns is inRunsOrdered(s, s[m]). If
// c stops the sort meanwhile it returns -1, s a permutation of what it
// was.
func partitionOrdered[E cmp.Ordered](s []E, m int, inRuns bool, c *sortCancel) int {
	s[0], s[m] = s[m], s[0]
	pivot := s[0]
	// Invariant: s[1:i] holds no element greater than the pivot, s[j+1:]
	// no element less than it. The block partition establishes it for
	// all but fewer than 3*blockSize elements in the middle; the scans
	// below, whose branches mispredict about once per element that is
	// not where it belongs, finish those. On a piece in runs (inRuns)
	// the scans alone are cheaper.
	i, j := 1, len(s)-1
	if !inRuns {
		if i, j = blockPartitionOrdered(s, pivot, c); i < 0 {
			return -1
		}
	}
	for swaps := 1; ; swaps++ {
		if swaps%(cancelCheckBlocks*blockSize) == 0 && c.stopped() {
			return -1
		}
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

// blockPartitionOrdered partitions s[1:] around pivot (s[0] is the
// pivot's own place) block by block and returns i, j such that no element
// of s[1:i] is greater than the pivot, no element of s[j+1:] is less than
// it and j-i+1 < 3*blockSize, or -1, -1 if c stops the sort meanwhile. It is the block partition of Edelkamp and
// Weiß ("BlockQuicksort", 2016): a block of blockSize elements at each end
// is classified without a branch, the offsets of the elements on the
// wrong side (on the left those not less than the pivot, on the right
// those not greater) going into a buffer whose fill count is bumped by
// the comparison's result; then the two buffers' elements are swapped
// pairwise, and a block whose buffer is used up is replaced by the next
// one inwards. The only branches left depend on counts, not on the
// elements, so they are predicted well however evenly the pivot splits,
// where the scans of a Hoare partition mispredict about once per swap.
//
// Elements equal to the pivot are on the wrong side at both ends and are
// swapped, as with a Hoare partition's strict comparisons, so that many
// equal keys spread over both sides and still split evenly.
func blockPartitionOrdered[E cmp.Ordered](s []E, pivot E, c *sortCancel) (i, j int) {
	var offL, offR [blockSize]uint8
	var startL, numL, startR, numR int
	l, r := 1, len(s) // s[l:r] is not partitioned yet
	for round := 1; r-l >= 2*blockSize; round++ {
		if round%cancelCheckBlocks == 0 && c.stopped() {
			return -1, -1
		}
		if numL == 0 {
			startL = 0
			numL = classifyLeft((*[blockSize]E)(s[l:]), pivot, &offL)
		}
		if numR == 0 {
			startR = 0
			numR = classifyRight((*[blockSize]E)(s[r-blockSize:]), pivot, &offR)
		}
		n := min(numL, numR)
		swapBlocks((*[blockSize]E)(s[l:]), (*[blockSize]E)(s[r-blockSize:]),
			offL[startL:startL+n], offR[startR:startR+n])
		numL -= n
		numR -= n
		startL += n
		startR += n
		if numL == 0 {
			l += blockSize
		}
		if numR == 0 {
			r -= blockSize
		}
	}
	// A block with offsets left over is not partitioned yet: it stays in
	// s[l:r] for the caller's scans.
	return l, r - 1
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

// samplesAscendOrdered reports whether the elements at the places
// pivotOrdered samples strictly ascend: a sign that s is sorted but for a
// few elements (it is false for all but about one random input in 9!,
// and for runs of equal keys).
func samplesAscendOrdered[E cmp.Ordered](s []E) bool {
	n := len(s)
	if n < ninther {
		return cmp.Less(s[0], s[n/2]) && cmp.Less(s[n/2], s[n-1])
	}
	d := n / 8
	for k := 1; k < 8; k++ {
		if !cmp.Less(s[(k-1)*d], s[k*d]) {
			return false
		}
	}
	return cmp.Less(s[7*d], s[n-1])
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

// swapBlocks swaps the elements of left at offsets ol with those of right
// at offsets or, which count from right's end, pairwise. len(or) >=
// len(ol).
func swapBlocks[E any](left, right *[blockSize]E, ol, or []uint8) {
	or = or[:len(ol)]
	for k, o := range ol {
		a, c := &left[o&(blockSize-1)], &right[blockSize-1-or[k]&(blockSize-1)]
		*a, *c = *c, *a
	}
}

// classifyLeft writes to off the offsets of the elements of b that are
// not less than pivot, in increasing order, and returns how many there
// are. The loop is unrolled by four: the compiler does not unroll, and
// the loop's own branch and counter are a third of its instructions.
func classifyLeft[E cmp.Ordered](b *[blockSize]E, pivot E, off *[blockSize]uint8) int {
	n := 0
	for k := 0; k < blockSize; k += 4 {
		q := (*[4]E)(b[k:])
		off[n&(blockSize-1)] = uint8(k)
		n += b2i(!cmp.Less(q[0], pivot))
		off[n&(blockSize-1)] = uint8(k + 1)
		n += b2i(!cmp.Less(q[1], pivot))
		off[n&(blockSize-1)] = uint8(k + 2)
		n += b2i(!cmp.Less(q[2], pivot))
		off[n&(blockSize-1)] = uint8(k + 3)
		n += b2i(!cmp.Less(q[3], pivot))
	}
	return n
}

// classifyRight writes to off the offsets, counted from b's end, of the
// elements of b that are not greater than pivot, in increasing order of
// offset, and returns how many there are.
func classifyRight[E cmp.Ordered](b *[blockSize]E, pivot E, off *[blockSize]uint8) int {
	n := 0
	for k := 0; k < blockSize; k += 4 {
		q := (*[4]E)(b[blockSize-4-k:])
		off[n&(blockSize-1)] = uint8(k)
		n += b2i(!cmp.Less(pivot, q[3]))
		off[n&(blockSize-1)] = uint8(k + 1)
		n += b2i(!cmp.Less(pivot, q[2]))
		off[n&(blockSize-1)] = uint8(k + 2)
		n += b2i(!cmp.Less(pivot, q[1]))
		off[n&(blockSize-1)] = uint8(k + 3)
		n += b2i(!cmp.Less(pivot, q[0]))
	}
	return n
}
