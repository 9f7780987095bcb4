package forkjoin

import (
	"iter"
	"sync/atomic"

	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// ForSeq calls f on every item of seq, possibly in parallel on the current
// pool, and returns when every call has returned (Rayon's par_bridge). seq
// is pulled serially, by one task, and never concurrently with itself; f
// is called exactly once per item, in no particular order, from any
// worker. A panic in f stops the pulling (seq is not pulled to its end)
// and the starting of calls not yet started, and is re-raised as a
// *pool.PanicError once the running calls have returned.
//
// The pulling task hands items out in batches that idle workers take (a
// scope task per batch). A batch holds 1/(8*workers) of the items pulled
// so far, at least 1 and at most 1024: the first items go out
// one by one, so a short sequence of expensive items spreads over the
// workers, and a long one soon moves in batches large enough that handing
// one over costs little per item (as For's grain is 1/8 of a worker's
// share, chosen here as the length becomes known). When 4 batches per
// worker are waiting, the pulling task runs its batch itself,
// so ForSeq holds at most about that many batches of items, whatever the
// length of seq; on a pool of one worker it is the serial loop plus a few
// batches.
func ForSeq[T any](seq iter.Seq[T], f func(T)) {
	if seq == nil || f == nil {
		nilFunc("forkjoin.ForSeq")
	}
	var stop atomic.Bool     // set by a panic: pull and start nothing more
	var waiting atomic.Int64 // batches queued and not yet started
	run := func(batch []T) {
		defer stopOnPanic(&stop)
		for _, x := range batch {
			if stop.Load() {
				return
			}
			f(x)
		}
	}
	p := pool.Current()
	maxWaiting := int64(forSeqQueued * p.Workers())
	perBatch := chunksPerWorker * p.Workers()
	p.Scope(func(s *pool.Scope) {
		defer stopOnPanic(&stop)
		size, pulled := 1, 0
		batch := make([]T, 0, size)
		for x := range seq {
			if stop.Load() {
				return
			}
			pulled++
			if batch = append(batch, x); len(batch) < size {
				continue
			}
			size = min(max(pulled/perBatch, 1), forSeqMaxBatch)
			if waiting.Load() >= maxWaiting {
				run(batch)
				batch = batch[:0]
				continue
			}
			b := batch
			waiting.Add(1)
			s.Spawn(func(*pool.Scope) {
				waiting.Add(-1)
				run(b)
			})
			batch = make([]T, 0, size)
		}
		run(batch)
	})
}

const (
	// forSeqMaxBatch bounds ForSeq's batches: large enough that handing a
	// batch over costs little per item, small enough to spread a short
	// sequence over the workers.
	forSeqMaxBatch = 1 << 10
	// forSeqQueued is how many batches per worker may wait to be taken.
	forSeqQueued = 4
)

// stopOnPanic, deferred, sets stop if the function panics and lets the
// panic go on (as a *PanicError, with the stack where it happened).
func stopOnPanic(stop *atomic.Bool) {
	if v := recover(); v != nil {
		stop.Store(true)
		runtime.Raise(runtime.AsPanicError(v))
	}
}
