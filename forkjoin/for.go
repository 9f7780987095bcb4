package forkjoin

import (
	"math"

	"github.com/spindle-go/spindle/runtime"
)

// forTask is one piece of a For: the range [lo, hi) still to cover, and
// what covers it. It is the argument of Do, copied into the worker's frame
// when forked, so For allocates nothing per fork.
type forTask struct {
	lo, hi, grain int
	body          func(lo, hi int)
}

// For calls body on disjoint chunks [l, h) that together cover [lo, hi)
// exactly once, possibly in parallel on the current pool. Chunks are never
// empty and, when grain > 0, hold at most grain indices; grain <= 0 picks
// one that makes about 8 chunks per worker of the current pool. If
// lo >= hi, body is never called.
//
// The chunks are [lo, lo+grain), [lo+grain, lo+2*grain), ... (the last
// may be shorter), queued as one bulk spawn (pool.Scope.SpawnMany): the
// calling worker runs them in order, keeping the upper half of the chunks
// it has left exposed to other workers, and, while some worker is idle,
// queues all of the chunks after the one it starts, in halves, so that
// every idle worker can take some. A range that is a single chunk runs on
// the calling goroutine. Every chunk runs even if body panics in another; once
// all have finished, the panic of the lowest chunk that panicked (the one
// a serial loop would meet first) is re-raised as a *pool.PanicError.
func For(lo, hi, grain int, body func(lo, hi int)) {
	if body == nil {
		nilFunc("forkjoin.For")
	}
	if lo >= hi {
		return
	}
	// hi - lo may not fit in an int (lo = -hi = MinInt/2-ish); as a uint
	// it always does, and the halving below stays in uint.
	n := uint(hi) - uint(lo)
	if grain <= 0 {
		grain = autoGrain(n)
	}
	topDo(forChunks, nil, forTask{lo, hi, grain, body}, n > uint(grain))
}

// forChunks covers t's range as a bulk spawn of its chunks, or as one
// chunk if it holds at most t.grain indices.
func forChunks(t forTask) {
	n := uint(t.hi) - uint(t.lo)
	if n <= uint(t.grain) {
		t.body(t.lo, t.hi)
		return
	}
	if (n-1)/uint(t.grain) >= math.MaxInt {
		// More chunks than an int counts (grain 1 over most of the int
		// range): halve instead.
		forRange(t)
		return
	}
	runtime.CurrentWorker().ForChunks(t.lo, t.hi, t.grain, t.body)
}

// forRange covers t's range by halving: one chunk if it holds at most t.grain
// indices (so every chunk is non-empty and within the grain), else its two
// halves, possibly in parallel.
func forRange(t forTask) {
	n := uint(t.hi) - uint(t.lo)
	if n <= uint(t.grain) {
		t.body(t.lo, t.hi)
		return
	}
	mid := t.lo + int(n/2) // n > grain >= 1, so both halves are non-empty
	left, right := t, t
	left.hi, right.lo = mid, mid
	Do(forRange, left, right)
}
