package forkjoin

import "time"

// seqBatchSizer chooses the size of the batches in which MapSeq and
// ForSeq hand the items of an iterator to the pool. The cost of an item is unknown
// beforehand, and a batch must be both large enough that handing it over
// (a task, maybe waking a worker: microseconds) costs little next to
// computing it, and small enough that a short sequence of expensive items
// still spreads over the workers. So batches start at one item and double
// each time a full batch computed in less than seqBatchTarget, up to
// seqMaxBatch items, and halve when one took far longer.
type seqBatchSizer struct {
	size   int
	target time.Duration // seqBatchTarget, or seqBatchTargetOutside
}

const (
	// seqBatchTarget is the least time a batch should take: several
	// wake-ups of a sleeping worker. MapSeq's doc states it.
	seqBatchTarget = 50 * time.Microsecond
	// seqBatchTargetOutside is seqBatchTarget for a MapSeq whose consumer
	// is no worker: each batch is then injected (a lock, maybe a wake-up)
	// and the consumer woken by a channel, and between batches it waits
	// for a P the workers hold: a longer batch amortises that
	// (docs/performance/slices-and-iterators.md, "MapSeq with the
	// consumer outside the pool").
	seqBatchTargetOutside = 400 * time.Microsecond
	// seqMaxBatch bounds a batch, and with it the memory a MapSeq or a
	// ForSeq holds. MapSeq's doc states it.
	seqMaxBatch = 4096
)

func newSeqBatchSizer() seqBatchSizer { return seqBatchSizer{size: 1, target: seqBatchTarget} }

// observe learns from a batch of n items that took took to compute.
func (s *seqBatchSizer) observe(n int, took time.Duration) {
	switch {
	case n == s.size && took < s.target && s.size < seqMaxBatch:
		s.size *= 2
	case took > 4*s.target && s.size > 1:
		s.size /= 2
	}
}
