package forkjoin

import "sync/atomic"

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
	var found atomic.Int64 // the lowest index found so far, len(s) if none
	found.Store(int64(len(s)))
	For(0, len(s), searchChunks(len(s)), func(lo, hi int) {
		if int64(lo) >= found.Load() {
			return // a match below this chunk is already known
		}
		if i := indexFunc(s[lo:hi], pred); i >= 0 {
			lowerTo(&found, int64(lo+i))
		}
	})
	if i := int(found.Load()); i < len(s) {
		return i, true
	}
	return -1, false
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
