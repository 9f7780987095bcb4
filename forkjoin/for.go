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
// the calling goroutine; so do all the chunks, in order, when For is
// called from a goroutine that is no worker while the default pool's
// callers fill its Ps (see Fold). Every chunk runs even if body panics in
// another; once all have finished, the panic of the lowest chunk that panicked (the one
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
	topDo(forChunks, forSerial, forTask{lo, hi, grain, body}, n > uint(grain))
}

// forSerial covers t's range on the calling goroutine, in For's chunks in
// order: For's serial form (see enterSerialCall), which hands the chunks
// left to the pool once c is overdue. Every chunk runs even if body
// panics in another, and the first panic, the lowest chunk's, is
// re-raised once they have all run, as For does.
func forSerial(c runtime.SerialCall, t forTask) {
	left := false
	defer serialLeave(c, &left)
	var first *runtime.PanicError
	n, grain := uint(t.hi)-uint(t.lo), uint(t.grain)
	done := uint(0)
	for done < n && (done == 0 || !c.Overdue()) {
		// Chunk [l, l+size): in uint, as For's halving is, since hi - lo
		// may not fit in an int.
		size := min(grain, n-done)
		l := int(uint(t.lo) + done)
		if pe := runChunk(t.body, l, int(uint(l)+size)); pe != nil && first == nil {
			first = pe
		}
		done += size
	}
	if done < n {
		left = true
		c.Leave()
		rest := t
		rest.lo = int(uint(t.lo) + done)
		if pe := forOffPool(rest); pe != nil && first == nil {
			first = pe
		}
	}
	if first != nil {
		raise(first)
	}
}

// forOffPool covers t's range on pool.Default(), as a call from a
// goroutine that is no worker, and returns the lowest chunk's panic.
func forOffPool(t forTask) (pe *runtime.PanicError) {
	defer recoverPanic(&pe)
	topDoOffPool(forChunks, nil, t)
	return nil
}

// runChunk calls body(lo, hi) and returns its panic, if it panics.
func runChunk(body func(lo, hi int), lo, hi int) (pe *runtime.PanicError) {
	defer recoverPanic(&pe)
	body(lo, hi)
	return nil
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
