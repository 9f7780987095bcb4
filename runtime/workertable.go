package runtime

import (
	"sync"
	"sync/atomic"
)

// The worker table maps a goroutine identity (currentG) to the Worker it
// runs, for every live worker of every registry. Go has no thread-locals;
// this is how a package-level call finds out cheaply whether it runs on a
// worker, and which.
//
// Readers take no lock: a bucket is an immutable slice published with an
// atomic store, replaced wholesale (copy on write, under tableMu) when a
// worker starts or exits. Lookups cost a hash, a load and a scan of a
// bucket that holds one worker or none in practice.
const tableBits = 10

var (
	workerTable [1 << tableBits]atomic.Pointer[[]*Worker]
	tableMu     sync.Mutex
)

func tableBucket(g uintptr) *atomic.Pointer[[]*Worker] {
	// Fibonacci hashing; g records are a few hundred bytes apart, so the
	// high bits of the product spread them well.
	return &workerTable[uint64(g)*0x9E3779B97F4A7C15>>(64-tableBits)]
}

func lookupWorker(g uintptr) *Worker {
	b := tableBucket(g).Load()
	if b == nil {
		return nil
	}
	for _, w := range *b {
		if w.g == g {
			return w
		}
	}
	return nil
}

func registerWorker(w *Worker) {
	tableMu.Lock()
	defer tableMu.Unlock()
	slot := tableBucket(w.g)
	var next []*Worker
	if old := slot.Load(); old != nil {
		next = append(next, *old...)
	}
	next = append(next, w)
	slot.Store(&next)
}

func unregisterWorker(w *Worker) {
	tableMu.Lock()
	defer tableMu.Unlock()
	slot := tableBucket(w.g)
	var next []*Worker
	for _, o := range *slot.Load() {
		if o != w {
			next = append(next, o)
		}
	}
	if len(next) == 0 {
		slot.Store(nil)
		return
	}
	slot.Store(&next)
}

// CurrentWorker returns the worker running the caller, or nil when the
// caller is not a worker of any registry.
func CurrentWorker() *Worker { return lookupWorker(currentG()) }
