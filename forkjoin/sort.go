package forkjoin

import (
	"cmp"
	"math/bits"
)

// Sort and SortFunc are a parallel quicksort (see sort_ordered.go and
// sort_func.go, the same algorithm with cmp.Less and with a comparison
// function, but for the partition and the cutoffs):
//
//   - a piece of at most sortCutoff (sortFuncCutoff) elements is sorted
//     serially by slices.Sort or slices.SortFunc;
//   - a larger piece that is already sorted is left alone, and a piece in
//     which no element is less than the one before it is reversed (each
//     check stops at the first pair out of its order, so on unsorted
//     input it costs a comparison or two);
//   - otherwise the piece is partitioned around a pivot (the median of
//     three samples, or for large pieces the median of three such medians)
//     and its two sides are sorted by forkjoin.Do, possibly in parallel
//     (Sort's pieces of at most sortSerialPieces*sortCutoff elements by
//     plain recursion);
//   - a piece whose pivot equals the pivot that bounds it on the left
//     (sortTask's low) is split into the copies of that key, which are
//     done, and the rest; a piece whose samples ascend is first given to
//     a bounded insertion sort, which finishes a piece sorted but for a
//     few elements in a linear pass (pdqsort's partial insertion sort);
//   - every piece carries a budget of unbalanced partitions (one side
//     under an eighth of the piece), log2(n)/4 for the whole input: a
//     piece that runs out of it is handed to slices.Sort, whose own worst
//     case is O(n log n). (pdqsort allows log2(n) before its heapsort;
//     here the fallback is pdqsort itself, and on McIlroy's adversary
//     each unbalanced partition costs a pass over the piece: with
//     log2(n) SortFunc made 3.3-3.8x slices.SortFunc's comparisons, with
//     log2(n)/4 1.7-1.8x.) A balanced partition leaves at
//     most 7/8 of its piece to either side, so partitioning does O(n)
//     work per level on O(log n) levels: no input makes the sort
//     quadratic. After an unbalanced partition a few elements of each
//     side are swapped to pseudo-random places (breakPatterns, pdqsort's
//     pattern breaking), so that an input built against the pivot
//     choice (McIlroy's adversary) does not stay bad level after level.
//
// SortFunc's partition is Hoare's with strict comparisons on both sides:
// elements equal to the pivot stop both scans and are swapped, so equal
// keys end up spread over both sides and many equal keys still split
// evenly (and an all-equal input is caught by the sortedness check in
// O(n)). Sort's is a block partition (blockPartitionOrdered) that swaps
// the same elements, those equal to the pivot included, without a branch
// on any comparison, and finishes with the Hoare scans.

// sortCutoff is the size at or below which a piece of Sort's is sorted by
// slices.Sort. Down to a few hundred elements a block partition is
// cheaper per element than the partition of slices.Sort's pdqsort, whose
// scans branch on every comparison; below about 2*blockSize elements
// there is no whole block to classify and pdqsort is as good.
const sortCutoff = 256

// sortSerialPieces times the cutoff is the size at or below which a piece
// of Sort's is sorted without forks: a piece of a few thousand elements
// takes tens of microseconds, next to which a fork costs nothing, and a
// 10M-element input still makes thousands of such pieces for the workers
// to share. An input of at most that size is sorted by slices.Sort.
const sortSerialPieces = 16

// sortFuncCutoff is the size at or below which a piece of SortFunc's is
// sorted by slices.SortFunc. SortFunc keeps the Hoare partition: its
// comparisons are indirect calls into functions that usually branch on
// their operands themselves, so a partition without branches of its own
// would not remove the mispredictions.
const sortFuncCutoff = 4096

// ninther is the piece size from which the pivot is a median of medians.
const ninther = 64

// A piece whose samples ascend gets an insertion sort that gives up after
// it has moved insertionMoves elements (pdqsort's bound): a piece sorted
// but for a few elements is finished in a linear pass, and any other
// costs at most a few passes before it is partitioned anyway.
const insertionMoves = 5

// sortTask is one piece of a sort and the unbalanced partitions it may
// still make (budget).
// It is the argument of Do, so forks allocate nothing. low, when hasLow,
// is the pivot that split s off from what lies left of it: no element of
// s is less than low. A piece whose own pivot equals low holds many
// copies of it (an earlier partition chose it too), and is split into
// the elements equal to it, which are in place, and the rest (pdqsort's
// partition of equal elements): with k distinct keys a sort does O(n*k)
// work at most, not O(n log n).
type sortTask[E any] struct {
	s      []E
	budget int
	low    E
	hasLow bool
	// top marks SortFunc's whole input, whose check for sortedness is
	// split over the pool (sort_presorted.go).
	top bool
	// cancel is the sort's cancellation, nil without a context
	// (sort_context.go).
	cancel *sortCancel
}

// depthBudget is how many unbalanced partitions a sort of n elements may
// make on any path from the whole input to a piece (see Sort's notes
// above). An unbalanced partition of a random input is rare (a ninther
// pivot below the eighth percentile), and a piece that runs out is still
// sorted, serially.
func depthBudget(n int) int { return bits.Len(uint(n)) / 4 }

// splitBudget returns what the two sides of a partition of n elements at
// p may still spend of budget, after breaking the patterns of both sides
// if the partition was unbalanced.
func splitBudget[E any](s []E, p, budget int) int {
	if n := len(s); min(p, n-1-p) < n/8 {
		breakPatterns(s[:p])
		breakPatterns(s[p+1:])
		return budget - 1
	}
	return budget
}

// breakPatterns swaps three elements about the middle of s with elements
// at pseudo-random places (an xorshift seeded by len(s): the same input
// is always sorted the same way).
func breakPatterns[E any](s []E) {
	n := len(s)
	if n < 8 {
		return
	}
	r := uint64(n)
	next := func() int {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		return int(r % uint64(n))
	}
	for i := n/2 - 1; i <= n/2+1; i++ {
		j := next()
		s[i], s[j] = s[j], s[i]
	}
}

// Sort sorts s in ascending order, possibly in parallel on the current
// pool. The result is what slices.Sort gives: the order is cmp.Less's, so
// NaNs come before every other value. Like slices.Sort it is not stable,
// which shows only for floats: -0 and +0 compare equal, and their order is
// unspecified. Inputs of at most a few thousand elements are sorted
// serially on the calling goroutine.
func Sort[S ~[]E, E cmp.Ordered](s S) { sortOrdered([]E(s), sortCutoff) }

// SortFunc sorts s in the order cmp defines, possibly in parallel on the
// current pool, under the contract of slices.SortFunc: cmp(a, b) is
// negative for a < b, positive for a > b and zero otherwise, and must be a
// strict weak ordering. The sort is not stable. cmp may be called from
// several workers at once. A panic in cmp is re-raised as a
// *pool.PanicError after every piece that started has finished; s is
// then a permutation of its input in no particular order.
func SortFunc[S ~[]E, E any](s S, cmp func(a, b E) int) {
	if cmp == nil {
		nilFunc("forkjoin.SortFunc")
	}
	sortFunc([]E(s), cmp, sortFuncCutoff)
}

// blockSize is how many elements the block partition classifies at a time
// at each end of a piece; offsets into a block fit in a uint8.
const blockSize = 128

// b2i is 1 for true and 0 for false; the compiler makes it a flag move,
// not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
