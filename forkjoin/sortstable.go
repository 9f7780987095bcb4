package forkjoin

import (
	"slices"
	"sync/atomic"
)

// SortStableFunc sorts s in the order cmp defines, keeping equal elements
// in their original order, possibly in parallel on the current pool: the
// result is exactly slices.SortStableFunc's. cmp must be a strict weak
// ordering, as there; it may be called from several workers at once.
//
// It is a merge sort with a buffer of len(s) elements (allocated once per
// call): pieces of at most 24 elements are insertion-sorted in
// place, then merged level by level, each level moving the data between s
// and the buffer (no copying back); the two halves of a piece are sorted
// in parallel, and a large merge is itself split in two independent
// merges (the middle element of the longer run and its binary-searched
// place in the other), so the last levels are parallel too. Where
// slices.SortStableFunc merges in place in O(n log² n) comparisons and
// moves, this does O(n log n). Inputs of at most 1024 elements are
// sorted by slices.SortStableFunc on the calling goroutine.
//
// A panic in cmp is re-raised as a *pool.PanicError after every piece that
// started has finished; s then holds every one of its elements, in no
// particular order: each piece that a panic goes through copies its
// elements, from wherever they are intact, to where its caller expects
// them.
func SortStableFunc[S ~[]E, E any](s S, cmp func(a, b E) int) {
	if cmp == nil {
		nilFunc("forkjoin.SortStableFunc")
	}
	sortStable([]E(s), cmp, nil)
}

// sortStable is SortStableFunc with a cancellation (nil: none), which
// makes its pieces panic with errSortCancelled (sort_context.go).
func sortStable[E any](s []E, cmp func(a, b E) int, c *sortCancel) {
	if len(s) <= stableSerial {
		defer rethrow()
		slices.SortStableFunc(s, cmp)
		return
	}
	st := &stableSort[E]{cmp: cmp, cancel: c}
	st.sortFn, st.mergeFn = st.sort, st.merge // one closure each per call
	topDo(st.whole, nil, s, true)
}

// whole sorts the whole input s: its check for sortedness first, on the
// pool (a call of its own from outside the pool would cost a second
// admission and wake-up), then, with a buffer, the merge sort.
func (st *stableSort[E]) whole(s []E) {
	if presortedStable(s, st.cmp) {
		return
	}
	st.sort(stableTask[E]{src: s, dst: make([]E, len(s))})
}

// presortedStable sorts s and reports true if s is sorted already, in
// strictly descending order (reversed, then: no two elements are equal,
// so stability holds), or sorted but for a few elements out of place
// (insertFewFunc, whose insertions move an element only past strictly
// greater or smaller ones: stable). Otherwise it reports false, and s
// holds its elements with equal ones in their original order. Each check
// stops at the first pair out of its order or after a few insertions, so
// on unsorted input it costs a few comparisons, and on a sorted,
// reversed, all-equal or nearly sorted input it is the whole sort, as
// with slices.SortStableFunc's insertion sorts of sorted runs.
func presortedStable[E any](s []E, cmp func(a, b E) int) bool {
	defer rethrow()          // cmp's panics come out as *PanicError
	if len(s) > scanSerial { // split over the pool (sort_presorted.go)
		done, sorted := presortedTopFunc(s, cmp, true)
		return done || insertFewFunc(s, cmp, sorted)
	}
	if slices.IsSortedFunc(s, cmp) {
		return true
	}
	for i := 1; i < len(s); i++ {
		if cmp(s[i-1], s[i]) <= 0 {
			return insertFewFunc(s, cmp, 0)
		}
	}
	slices.Reverse(s)
	return true
}

const (
	// stableSerial is the size up to which SortStableFunc is
	// slices.SortStableFunc: below it the buffer's allocation costs more
	// than the in-place merges.
	stableSerial = 1 << 10
	// stableLeaf is the size of the pieces sorted by insertion.
	stableLeaf = 24
	// stableFork is the piece (and merge) size from which the halves are
	// forked: below it a fork's tens of nanoseconds would show.
	stableFork = 1 << 13
)

// stableSort is one SortStableFunc call: the comparison and the two
// recursive functions, built once and passed to every fork.
type stableSort[E any] struct {
	cmp     func(a, b E) int
	cancel  *sortCancel
	sortFn  func(stableTask[E])
	mergeFn func(mergeTask[E])
}

// stableTask sorts src, with dst (as long) as scratch; the result ends in
// dst if toDst, else in src. Every piece's src is its range of the input
// and its dst the same range of the buffer. state, if set, records the
// task's progress (halfStarted, halfDone) for the piece that forked it: a
// fork's second half may never run if the first panics, and either half
// may panic while the other returns.
type stableTask[E any] struct {
	src, dst []E
	toDst    bool
	state    *atomic.Uint32
}

// mergeTask merges the sorted runs a and b (a first on ties) into out.
type mergeTask[E any] struct{ a, b, out []E }

// Progress of a piece, for restore.
const (
	sortingLeft = iota
	sortingRight
	merging
)

// Progress of a forked half (stableTask.state); 0 until it starts.
const (
	halfStarted = 1 + iota
	halfDone
)

// sort sorts piece t. If it panics (a panic of cmp, or errSortCancelled),
// t's elements are in t.src when the panic leaves it, in no particular
// order, wherever the caller expected them: each piece a panic goes
// through moves only the elements of its halves that had finished into
// the buffer, so unwinding costs a copy of each element at most once,
// rather than one per level (which had a cancelled sort of 10M elements
// return 20-220 ms after its context ended).
func (st *stableSort[E]) sort(t stableTask[E]) {
	if t.state != nil {
		t.state.Store(halfStarted)
	}
	if st.cancel.stopped() {
		panic(errSortCancelled) // nothing moved: the elements are in src
	}
	n := len(t.src)
	if n <= stableLeaf {
		// Insertion sort swaps in place: on a panic the elements are in src.
		insertionSortFunc(t.src, st.cmp)
		if t.toDst {
			copy(t.dst, t.src)
		}
		t.finish()
		return
	}
	// The halves are sorted into from, then merged into to, where the
	// caller expects the piece.
	from, to := t.dst, t.src
	if t.toDst {
		from, to = t.src, t.dst
	}
	m := n / 2
	left := stableTask[E]{t.src[:m], t.dst[:m], !t.toDst, nil}
	right := stableTask[E]{t.src[m:], t.dst[m:], !t.toDst, nil}
	step := sortingLeft
	var halves *[2]atomic.Uint32 // a forked piece's: either half may panic
	defer func() {
		if v := recover(); v != nil {
			pe := asPanicError(v)
			restore(t, from, step, halves)
			raise(pe)
		}
	}()
	if n < stableFork {
		st.sort(left)
		step = sortingRight
		st.sort(right)
		step = merging
		mergeRuns(mergeTask[E]{from[:m], from[m:], to}, st.cmp)
		t.finish()
		return
	}
	halves = new([2]atomic.Uint32) // one allocation per parallel piece
	left.state, right.state = &halves[0], &halves[1]
	Do(st.sortFn, left, right)
	step = merging
	st.merge(mergeTask[E]{from[:m], from[m:], to})
	t.finish()
}

// finish records that t returned with its elements where its caller
// expects them.
func (t stableTask[E]) finish() {
	if t.state != nil {
		t.state.Store(halfDone)
	}
}

// restore leaves piece t's elements in t.src after a panic at step: a
// half that panicked left its elements in its src, as did one that never
// started, and a half that finished left them sorted in from (both, at the
// merge: a merge never writes what it reads). halves holds a forked
// piece's progress (nil: the halves ran in order, as step says).
func restore[E any](t stableTask[E], from []E, step int, halves *[2]atomic.Uint32) {
	m := len(t.src) / 2
	leftDone, rightDone := step > sortingLeft, step > sortingRight
	if halves != nil {
		leftDone, rightDone = halves[0].Load() == halfDone, halves[1].Load() == halfDone
	}
	if leftDone {
		copyApart(t.src[:m], from[:m])
	}
	if rightDone {
		copyApart(t.src[m:], from[m:])
	}
}

// copyApart copies src to dst unless they are the same memory.
func copyApart[E any](dst, src []E) {
	if len(dst) > 0 && &dst[0] != &src[0] {
		copy(dst, src)
	}
}

// merge merges t, splitting it into two independent merges run in
// parallel while it is large.
func (st *stableSort[E]) merge(t mergeTask[E]) {
	if st.cancel.stopped() {
		panic(errSortCancelled)
	}
	if len(t.out) < stableFork {
		mergeRuns(t, st.cmp)
		return
	}
	a, b := t.a, t.b
	var i, j int
	if len(a) >= len(b) {
		// a[:i] <= v <= a[i:]; b[:j] < v <= b[j:]: ties between a and b
		// land on the same side with a's first, or a's side first.
		i = len(a) / 2
		j = lowerBound(b, a[i], st.cmp)
	} else {
		// b[:j] <= v <= b[j:]; a[:i] <= v < a[i:].
		j = len(b) / 2
		i = upperBound(a, b[j], st.cmp)
	}
	Do(st.mergeFn, mergeTask[E]{a[:i], b[:j], t.out[:i+j]}, mergeTask[E]{a[i:], b[j:], t.out[i+j:]})
}

// mergeRuns merges t serially, taking from a unless b's element is
// strictly smaller (stability).
func mergeRuns[E any](t mergeTask[E], cmp func(a, b E) int) {
	a, b, out := t.a, t.b, t.out
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}

// lowerBound returns the first index i of sorted s with s[i] >= v.
func lowerBound[E any](s []E, v E, cmp func(a, b E) int) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmp(s[m], v) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// upperBound returns the first index i of sorted s with s[i] > v.
func upperBound[E any](s []E, v E, cmp func(a, b E) int) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmp(s[m], v) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// insertionSortFunc sorts s stably by insertion.
func insertionSortFunc[E any](s []E, cmp func(a, b E) int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && cmp(s[j], s[j-1]) < 0; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
