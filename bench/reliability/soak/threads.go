package main

import (
	"sync"
	"sync/atomic"
	"time"
)

// threadWatch holds the worker threads of closed pools until they are
// seen to end: a worker locked to its thread ends it when the pool
// closes. Threads are checked in the background, once a second, so that
// the close family does not wait for them.
type threadWatch struct {
	mu      sync.Mutex
	pending []dyingThread
	ended   atomic.Int64
}

type dyingThread struct {
	tid    int
	closed time.Time // when its pool's Close returned
}

// add watches the threads tids of a pool whose Close has just returned.
func (w *threadWatch) add(tids []int) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, tid := range tids {
		w.pending = append(w.pending, dyingThread{tid, now})
	}
}

// check drops the threads that have ended and counts a violation for each
// still alive grace after its pool closed.
func (w *threadWatch) check(s *soak, grace time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	kept := w.pending[:0]
	for _, t := range w.pending {
		switch {
		case !threadAlive(t.tid):
			w.ended.Add(1)
		case time.Since(t.closed) > grace:
			s.violate(famClose, "worker thread %d still alive %v after its pool's Close returned", t.tid, grace)
		default:
			kept = append(kept, t)
		}
	}
	w.pending = kept
}

// drain checks until no thread is pending.
func (w *threadWatch) drain(s *soak, grace time.Duration) {
	for {
		w.check(s, grace)
		w.mu.Lock()
		n := len(w.pending)
		w.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
