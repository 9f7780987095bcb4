package forkjoin

import (
	"iter"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// MapSeq returns an iterator over f(x) for every item x of seq, in seq's
// order, with the calls of f running in parallel on the current pool (the
// pool of the goroutine that ranges over the result). Each range over the
// result ranges over seq once.
//
// The consumer's goroutine pulls seq, serially, and hands its items to
// the pool in batches; results come out in input order as soon as every
// batch before theirs has completed. Memory stays bounded: at most 4
// batches per worker of the pool are in flight (pulled and not yet
// consumed), of at most 4096 items each, so at most 16384 items and their
// results per worker. Batches start at one item, so a short sequence of
// expensive items spreads over the workers, and double while a batch
// computes in less than 50 µs, so that handing one over, which may wake a
// sleeping worker, costs little next to computing it (400 µs when the
// consumer is no worker, since each hand-over then costs more).
//
// Where to range: the consumer pulls seq and takes the results serially,
// so it is part of the pipeline. Inside a task (Pool.Run), the consumer is
// a worker and computes batches itself while it waits. From a goroutine
// that is no worker, it needs a P of its own between batches, which the
// pool's workers hold while they compute, which slows the whole, the more
// so the cheaper the items; an ordered pipeline written with goroutines
// pays the same for its consumer (docs/performance/slices-and-iterators.md,
// "MapSeq with the consumer outside the pool", has figures of both). So
// range inside p.Run when the items are cheap.
//
// Breaking out of the consumer's loop (or a panic in it) stops the
// pulling, skips the items not yet started and returns once the calls of f
// already started have returned. A panic in f or in seq stops the same way
// and comes out of the consumer's range loop as a *pool.PanicError (for f,
// the panic of the earliest item that panicked among the batches waited
// for), on a worker or off the pool alike; a panic in the loop's own body
// goes on as it is. No goroutine is left behind in any case.
func MapSeq[T, U any](seq iter.Seq[T], f func(T) U) iter.Seq[U] {
	if seq == nil || f == nil {
		nilFunc("forkjoin.MapSeq")
	}
	return func(yield func(U) bool) {
		m := &mapper[T, U]{f: f}
		m.run(seq, yield)
	}
}

// mapSeqQueued is how many batches per worker a MapSeq keeps in flight:
// more than one, so that a worker finds the next batch queued when it
// finishes one, and the consumer finds results ready. MapSeq's doc
// states it.
const mapSeqQueued = 4

// mapper is one range over a MapSeq's result: the ring of batches in
// flight, oldest first, and what stops them.
type mapper[T, U any] struct {
	f       func(T) U
	stop    atomic.Bool // the consumer is leaving: start no more items
	ring    []*mapBatch[T, U]
	head, n int // ring[head] is the oldest of n batches in flight
	sizer   seqBatchSizer
}

// mapBatch is a batch of items and their results. Its record, with its
// slices, is reused for later batches once the consumer has taken its
// results.
type mapBatch[T, U any] struct {
	in   []T
	out  []U
	took time.Duration // how long computing the batch took
	fut  *pool.Future[struct{}]
}

// waitDroppingPanic waits for the batch's computation and ignores its
// panic.
func (b *mapBatch[T, U]) waitDroppingPanic() {
	defer func() { _ = recover() }()
	b.fut.Wait()
}

// run pulls seq and yields the results in order, until seq ends, yield
// returns false or something panics.
func (m *mapper[T, U]) run(seq iter.Seq[T], yield func(U) bool) {
	p := pool.Current()
	m.ring = make([]*mapBatch[T, U], mapSeqQueued*p.Workers())
	m.sizer = newSeqBatchSizer()
	if runtime.WorkerOf(runtime.CurrentG()) == nil {
		m.sizer.target = seqBatchTargetOutside
	}
	defer m.finish()
	// inSeq is true while seq runs its own code, not the loop's body: a
	// panic then is seq's, and leaves MapSeq as f's do, as a
	// *pool.PanicError, wherever the consumer runs. A panic in the body
	// (the consumer's own, or f's already converted) goes on as it is.
	inSeq := true
	defer func() {
		if inSeq {
			if v := recover(); v != nil {
				raise(asPanicError(v))
			}
		}
	}()
	cur := m.free()
	for x := range seq {
		inSeq = false
		cur.in = append(cur.in, x)
		if len(cur.in) >= m.sizer.size {
			m.submit(p, cur)
			// Hand over what is ready; wait only when the ring is full.
			for m.n == len(m.ring) || m.oldestReady() {
				if !m.yieldOldest(yield) {
					return
				}
			}
			cur = m.free()
		}
		inSeq = true
	}
	inSeq = false
	if len(cur.in) > 0 {
		m.submit(p, cur)
	}
	for m.n > 0 {
		if !m.yieldOldest(yield) {
			return
		}
	}
}

// free returns an empty batch record for the next slot of the ring.
func (m *mapper[T, U]) free() *mapBatch[T, U] {
	i := (m.head + m.n) % len(m.ring)
	b := m.ring[i]
	if b == nil {
		b = new(mapBatch[T, U])
		m.ring[i] = b
	}
	b.in = b.in[:0]
	return b
}

// submit starts computing b, the record at the ring's next slot, on p.
func (m *mapper[T, U]) submit(p *pool.Pool, b *mapBatch[T, U]) {
	if cap(b.out) < len(b.in) {
		b.out = make([]U, len(b.in), cap(b.in))
	}
	b.out = b.out[:len(b.in)]
	b.fut = pool.Submit(p, func() struct{} {
		start := time.Now()
		f, out := m.f, b.out
		for i, x := range b.in {
			if m.stop.Load() {
				return struct{}{}
			}
			out[i] = f(x)
		}
		b.took = time.Since(start)
		return struct{}{}
	})
	m.n++
}

// oldestReady reports whether the oldest batch in flight is computed.
func (m *mapper[T, U]) oldestReady() bool {
	if m.n == 0 {
		return false
	}
	_, ok := m.ring[m.head].fut.TryGet() // re-raises f's panic, as Wait
	return ok
}

// yieldOldest waits for the oldest batch in flight and yields its
// results; it returns false if yield did.
func (m *mapper[T, U]) yieldOldest(yield func(U) bool) bool {
	b := m.ring[m.head]
	b.fut.Wait() // re-raises f's panic; finish then waits for the rest
	b.fut = nil
	m.head = (m.head + 1) % len(m.ring)
	m.n--
	m.sizer.observe(len(b.in), b.took)
	out := b.out
	defer clear(out) // the record outlives the results: let the GC have them
	for _, y := range out {
		if !yield(y) {
			return false
		}
	}
	return true
}

// finish, deferred by run, stops the batches still in flight and waits
// for them: on a break, or a panic from f, seq or the consumer's loop.
// Their own panics are dropped: the consumer gets the first one run met.
func (m *mapper[T, U]) finish() {
	m.stop.Store(true)
	for ; m.n > 0; m.n-- {
		b := m.ring[m.head]
		b.waitDroppingPanic()
		b.fut = nil
		m.head = (m.head + 1) % len(m.ring)
	}
}
