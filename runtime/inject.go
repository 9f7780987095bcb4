package runtime

import (
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/sleep"
)

// injector is the FIFO of jobs submitted from outside a registry. It is off
// the fork hot path (one injection per external call), so a mutex around a
// ring buffer is enough; n lets idle workers check it with one load.
type injector struct {
	mu   sync.Mutex
	jobs []*Job // ring buffer; len is a power of two
	head int    // index of the oldest job
	n    atomic.Int64
}

// lock takes the mutex without parking the thread in the kernel: a
// worker that waited for it there would look, to the blocked-worker
// monitor, like one whose task blocked (monitor.go), and a worker
// contending with many goroutines that inject for a few hundred
// microseconds (seen under the race detector) would start a spare. The
// critical sections are a few loads and stores.
func (q *injector) lock() {
	for round := 0; !q.mu.TryLock(); round++ {
		sleep.Backoff(round)
	}
}

// push appends j and reports whether the queue was empty before.
func (q *injector) push(j *Job) (wasEmpty bool) {
	q.lock()
	n := int(q.n.Load())
	if n == len(q.jobs) {
		grown := make([]*Job, max(16, 2*len(q.jobs)))
		for i := range n {
			grown[i] = q.jobs[(q.head+i)&(len(q.jobs)-1)]
		}
		q.jobs, q.head = grown, 0
	}
	q.jobs[(q.head+n)&(len(q.jobs)-1)] = j
	// Publishing n after the job is stored (under the mutex) is what lets a
	// worker about to sleep trust nonEmpty: see package sleep's ordering
	// argument for injected jobs.
	q.n.Store(int64(n + 1))
	q.mu.Unlock()
	return n == 0
}

// pop removes the oldest job, or returns nil.
func (q *injector) pop() *Job { return q.take(0, true) }

// popTagged removes the oldest job with the given isolation tag, or
// returns nil (an isolated wait's look at the injector; see isolate.go).
func (q *injector) popTagged(tag uint64) *Job { return q.take(tag, false) }

// take is pop (anyTag) and popTagged.
func (q *injector) take(tag uint64, anyTag bool) *Job {
	if q.n.Load() == 0 {
		return nil
	}
	q.lock()
	defer q.mu.Unlock()
	n := int(q.n.Load())
	mask := len(q.jobs) - 1
	for i := range n {
		j := q.jobs[(q.head+i)&mask]
		if !anyTag && j.tag.Load() != tag {
			continue
		}
		// Close the gap: the jobs before j move up one slot.
		for k := i; k > 0; k-- {
			q.jobs[(q.head+k)&mask] = q.jobs[(q.head+k-1)&mask]
		}
		q.jobs[q.head] = nil
		q.head = (q.head + 1) & mask
		q.n.Store(int64(n - 1))
		return j
	}
	return nil
}

// nonEmpty reports whether jobs are waiting (a snapshot).
func (q *injector) nonEmpty() bool { return q.n.Load() != 0 }
