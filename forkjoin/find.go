package forkjoin

import (
	"cmp"
	"slices"
	"sync/atomic"
)

// searchGrain bounds the chunks of the searches (Find, Any, All): a match
// early in the slice ends the search after at most one chunk per worker,
// so a chunk is what a search wastes past its answer. 16Ki elements keep
// a chunk's scheduling cost (tens of nanoseconds, For runs the chunks as
// a bulk spawn) far below its scan.
const searchGrain = 1 << 14

// searchChunks is the grain of a search over n elements: For's automatic
// grain, at most searchGrain.
func searchChunks(n int) int { return min(autoGrain(uint(n)), searchGrain) }

// Find returns the lowest index i with pred(s[i]) and true, or -1 and false
// if no element satisfies pred (Rayon's position_first). The slice is
// searched in chunks, possibly in parallel on the current pool; a chunk
// that starts above an index already found is skipped, so the search stops
// shortly after its answer: on one worker the chunks run in order and
// nothing past the chunk of the match is looked at. The check costs an
// atomic load per chunk, none per element. pred may be called on elements
// past the answer (in chunks that were running when it was found), never
// twice on one element. A panic in pred is re-raised as a
// *pool.PanicError after every chunk that started has finished.
func Find[T any](s []T, pred func(T) bool) (int, bool) {
	if pred == nil {
		nilFunc("forkjoin.Find")
	}
	if len(s) == 0 {
		return -1, false
	}
	if i := firstIn(len(s), func(lo, hi int) int { return indexFunc(s[lo:hi], pred) }); i >= 0 {
		return i, true
	}
	return -1, false
}

// firstIn returns the lowest index that search finds in [0, n), or -1,
// searching chunks of For's grain (at most searchGrain) possibly in
// parallel and skipping every chunk that starts above an index already
// found. search(lo, hi) returns the offset from lo of the first match in
// [lo, hi), or -1. n > 0.
func firstIn(n int, search func(lo, hi int) int) int {
	var found atomic.Int64 // the lowest index found so far, n if none
	found.Store(int64(n))
	For(0, n, searchChunks(n), func(lo, hi int) {
		if int64(lo) >= found.Load() {
			return // a match below this chunk is already known
		}
		if i := search(lo, hi); i >= 0 {
			lowerTo(&found, int64(lo+i))
		}
	})
	if i := int(found.Load()); i < n {
		return i
	}
	return -1
}

// indexFunc is the serial search of a chunk: the first index of s whose
// element satisfies pred, or -1. It is kept out of For's closure: inlined
// there, the loop reloads the closure's captured variables after every
// call of pred (which keeps no register), and Find ran slower that way
// than with this one call per chunk (docs/algorithms.md has the
// measurement).
//
//go:noinline
func indexFunc[T any](s []T, pred func(T) bool) int {
	for i, x := range s {
		if pred(x) {
			return i
		}
	}
	return -1
}

// lowerTo sets v to x if x is lower.
func lowerTo(v *atomic.Int64, x int64) {
	for {
		old := v.Load()
		if x >= old || v.CompareAndSwap(old, x) {
			return
		}
	}
}

// Any reports whether some element of s satisfies pred, searching in
// parallel on the current pool and skipping every chunk that starts after
// a match is known (see Find). A panic in pred is re-raised as a
// *pool.PanicError. Any of an empty slice is false.
func Any[T any](s []T, pred func(T) bool) bool {
	if pred == nil {
		nilFunc("forkjoin.Any")
	}
	return anyOf(s, pred, true)
}

// All reports whether every element of s satisfies pred, stopping as Any
// does at the first element that does not. All of an empty slice is true.
func All[T any](s []T, pred func(T) bool) bool {
	if pred == nil {
		nilFunc("forkjoin.All")
	}
	return !anyOf(s, pred, false)
}

// anyOf reports whether pred(x) == want for some x in s.
func anyOf[T any](s []T, pred func(T) bool, want bool) bool {
	if len(s) == 0 {
		return false
	}
	var found atomic.Bool
	For(0, len(s), searchChunks(len(s)), func(lo, hi int) {
		if found.Load() {
			return
		}
		for _, x := range s[lo:hi] {
			if pred(x) == want {
				found.Store(true)
				return
			}
		}
	})
	return found.Load()
}

// Count returns how many elements of s satisfy pred, counting chunks in
// parallel on the current pool (For's automatic grain; one atomic add per
// chunk). A panic in pred is re-raised as a *pool.PanicError.
func Count[T any](s []T, pred func(T) bool) int {
	if pred == nil {
		nilFunc("forkjoin.Count")
	}
	if len(s) == 0 {
		return 0
	}
	var total atomic.Int64
	For(0, len(s), 0, func(lo, hi int) {
		n := 0
		for _, x := range s[lo:hi] {
			if pred(x) {
				n++
			}
		}
		total.Add(int64(n))
	})
	return int(total.Load())
}

// The counterparts of the slices package's scans (Min and Max are in
// minmax.go): Index, Contains, Equal, IsSorted and IsSortedFunc. Each gives exactly what its
// slices function gives, NaNs included, and is that function itself below
// scanSerial elements. Above it the slice is scanned in chunks on the
// current pool; the searches (Index, Contains, Equal, IsSorted,
// IsSortedFunc) skip every chunk that starts past an answer already
// found, as Find does.

// scanSerial is the length up to which the scans are their slices
// functions, run on the caller: a scan reads memory at a few gigabytes a
// second, so a slice of 32Ki int64s takes some 10 µs, about what handing
// chunks to a pool and waiting for them costs when its workers are
// asleep. A variable so that tests can send small inputs through the
// chunks.
var scanSerial = 1 << 15

// Index returns the index of the first occurrence of v in s, or -1, as
// slices.Index does (by ==: a NaN is never found).
func Index[S ~[]E, E comparable](s S, v E) int {
	if len(s) <= scanSerial {
		return slices.Index(s, v)
	}
	return firstIn(len(s), func(lo, hi int) int { return slices.Index(s[lo:hi], v) })
}

// Contains reports whether v is in s, as slices.Contains does.
func Contains[S ~[]E, E comparable](s S, v E) bool { return Index(s, v) >= 0 }

// Equal reports whether s1 and s2 have the same length and equal
// elements in order, as slices.Equal does (by ==: a NaN equals nothing).
func Equal[S ~[]E, E comparable](s1, s2 S) bool {
	if len(s1) != len(s2) {
		return false
	}
	if len(s1) <= scanSerial {
		return slices.Equal(s1, s2)
	}
	return firstIn(len(s1), func(lo, hi int) int {
		if slices.Equal(s1[lo:hi], s2[lo:hi]) {
			return -1
		}
		return 0
	}) < 0
}

// IsSorted reports whether s is sorted in ascending order, as
// slices.IsSorted does (by cmp.Less: NaNs first).
func IsSorted[S ~[]E, E cmp.Ordered](s S) bool {
	if len(s) <= scanSerial {
		return slices.IsSorted(s)
	}
	return firstIn(len(s), func(lo, hi int) int {
		// Each chunk also checks its first element against the one
		// before it, so that every neighbouring pair is checked once.
		if slices.IsSorted(s[max(lo-1, 0):hi]) {
			return -1
		}
		return 0
	}) < 0
}

// IsSortedFunc reports whether s is sorted in the order cmp defines, as
// slices.IsSortedFunc does. cmp may be called from several workers at
// once; a panic in it is re-raised as a *pool.PanicError.
func IsSortedFunc[S ~[]E, E any](s S, cmp func(a, b E) int) bool {
	if cmp == nil {
		nilFunc("forkjoin.IsSortedFunc")
	}
	if len(s) <= scanSerial {
		defer rethrow() // cmp's panics come out as *PanicError regardless of len(s)
		return slices.IsSortedFunc(s, cmp)
	}
	return sortedPrefixFunc(s, cmp) == len(s)
}

// sortedPrefixFunc returns len(s) if s is sorted, else a k < len(s) such
// that s[:k] is sorted: the start of the chunk of the split scan that
// holds the first pair out of order (a sort that goes on from there need
// not look at s[:k] again).
func sortedPrefixFunc[E any](s []E, cmp func(a, b E) int) int {
	if k := firstIn(len(s), func(lo, hi int) int {
		if slices.IsSortedFunc(s[max(lo-1, 0):hi], cmp) {
			return -1
		}
		return 0
	}); k >= 0 {
		return k
	}
	return len(s)
}
