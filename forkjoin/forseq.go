package forkjoin

import (
	"iter"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// ForSeq calls f on every item of seq, possibly in parallel on the current
// pool, and returns when every call has returned (Rayon's par_bridge). seq
// is pulled serially, by one task, and never concurrently with itself; f
// is called exactly once per item, in no particular order, from any
// worker. A panic in f or in seq stops the pulling (seq is not pulled to
// its end) and the starting of calls not yet started, and is re-raised as
// a *pool.PanicError once the running calls have returned, on a worker or
// off the pool alike.
//
// The pulling task hands items out in batches that idle workers take (a
// scope task per batch), sized as MapSeq's: the first
// items go out one by one, so a short sequence of expensive items spreads
// over the workers, and batches grow until computing one takes long
// enough that handing it over, which may wake a sleeping worker, costs
// little next to it. When 4 batches per worker are waiting, the
// pulling task runs its batch itself, so ForSeq holds at most about that
// many batches of items, whatever the length of seq; on a pool of one
// worker it is the serial loop plus a few batches. The batches' slices are
// reused, so a long sequence allocates only a closure per batch.
func ForSeq[T any](seq iter.Seq[T], f func(T)) {
	if seq == nil || f == nil {
		nilFunc("forkjoin.ForSeq")
	}
	p := pool.Current()
	fs := &seqFeeder[T]{f: f, maxWaiting: int64(forSeqQueued * p.Workers())}
	fs.free = make(chan []T, forSeqQueued*p.Workers()+p.Workers()+1)
	p.Scope(func(s *pool.Scope) { fs.pull(s, seq) })
}

// forSeqQueued is how many batches per worker may wait to be taken
// (ForSeq's doc states it).
const forSeqQueued = 4

// seqFeeder is one ForSeq in progress: its pulling task's view of the
// batches it handed out.
type seqFeeder[T any] struct {
	f          func(T)
	maxWaiting int64
	stop       atomic.Bool  // set by a panic: pull and start nothing more
	waiting    atomic.Int64 // batches queued and not yet started
	// took is the last full batch's length and computing time, packed
	// (length<<48 | nanoseconds), or 0 once the puller has read it.
	took atomic.Uint64
	free chan []T // slices of batches that are done, for new batches
}

// pull is the pulling task: it hands seq's items out in batches on s.
//
// It calls seq with its own yield function instead of ranging over it: a
// range over a function keeps a state word of the loop on the heap and
// stores to it at every item, which with a cheap body is a measurable part
// of the pull (docs/performance/slices-and-iterators.md in the repository,
// ForSeq).
func (fs *seqFeeder[T]) pull(s *pool.Scope, seq iter.Seq[T]) {
	defer stopOnPanic(&fs.stop)
	st := &pullState[T]{sizer: newSeqBatchSizer()}
	st.batch = fs.newBatch(st.sizer.size)
	seq(func(x T) bool {
		if st.stopped {
			// An iterator that ignored the first false: take nothing
			// more (the batch is not growing past its size).
			return false
		}
		if st.batch = append(st.batch, x); len(st.batch) < st.sizer.size {
			return true
		}
		if fs.stop.Load() {
			st.stopped = true
			return false
		}
		if v := fs.took.Swap(0); v != 0 {
			st.sizer.observe(int(v>>48), time.Duration(v&(1<<48-1)))
		}
		if fs.waiting.Load() >= fs.maxWaiting {
			fs.run(st.batch)
			st.batch = st.batch[:0]
			return true
		}
		b := st.batch
		fs.waiting.Add(1)
		s.Spawn(func(*pool.Scope) {
			fs.waiting.Add(-1)
			fs.run(b)
			select {
			case fs.free <- b[:0]:
			default:
			}
		})
		st.batch = fs.newBatch(st.sizer.size)
		return true
	})
	if !st.stopped {
		fs.run(st.batch)
	}
}

// pullState is what pull's yield function writes for every item, padded
// to cache lines of its own.
type pullState[T any] struct {
	batch   []T
	sizer   seqBatchSizer
	stopped bool // a panic stopped the ForSeq: the pull ended early
}

// newBatch returns an empty slice for a batch of size items: one that a
// done batch left, or a new one.
func (fs *seqFeeder[T]) newBatch(size int) []T {
	select {
	case b := <-fs.free:
		if cap(b) >= size {
			return b
		}
	default:
	}
	return make([]T, 0, size)
}

// run calls f on the items of batch, unless a panic stopped the ForSeq,
// and reports how long a batch of its length took.
func (fs *seqFeeder[T]) run(batch []T) {
	defer stopOnPanic(&fs.stop)
	start := time.Now()
	f := fs.f
	for _, x := range batch {
		if fs.stop.Load() {
			return
		}
		f(x)
	}
	fs.took.Store(uint64(len(batch))<<48 | uint64(min(time.Since(start), 1<<48-1)))
}

// stopOnPanic, deferred, sets stop if the function panics and lets the
// panic go on (as a *PanicError, with the stack where it happened).
func stopOnPanic(stop *atomic.Bool) {
	if v := recover(); v != nil {
		stop.Store(true)
		raise(asPanicError(v))
	}
}
