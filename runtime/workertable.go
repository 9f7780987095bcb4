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
// It is a direct-mapped array indexed by a hash of the identity, plus an
// overflow list for the rare worker whose slot is taken. Readers take no
// lock: a lookup is a hash, one atomic load (a plain move on amd64) and a
// compare, and off-pool one more load (the overflow list, normally nil).
// Writers (a worker starting or exiting, a guest's call beginning or
// ending) claim and clear their own slot with a compare-and-swap and take
// no lock, since guests do so at every call from outside; only the
// overflow list, copy-on-write, is changed under tableMu. A worker is in
// its slot or in the overflow list, never both: it goes to the list only
// when the swap into its slot failed, and leaves the slot only by its own
// swap.
const tableBits = 12

var (
	workerTable [1 << tableBits]atomic.Pointer[Worker]
	overflow    atomic.Pointer[[]*Worker]
	tableMu     sync.Mutex
)

func tableSlot(g uintptr) *atomic.Pointer[Worker] {
	// Fibonacci hashing; g records are a few hundred bytes apart, so the
	// high bits of the product spread them well.
	return &workerTable[uint64(g)*0x9E3779B97F4A7C15>>(64-tableBits)]
}

func lookupWorker(g uintptr) *Worker {
	if w := tableSlot(g).Load(); w != nil && w.g.Load() == g {
		return w
	}
	return lookupOverflow(g)
}

func lookupOverflow(g uintptr) *Worker {
	if o := overflow.Load(); o != nil {
		for _, w := range *o {
			if w.g.Load() == g {
				return w
			}
		}
	}
	return nil
}

func registerWorker(w *Worker) {
	if tableSlot(w.g.Load()).CompareAndSwap(nil, w) {
		return
	}
	tableMu.Lock()
	defer tableMu.Unlock()
	var next []*Worker
	if o := overflow.Load(); o != nil {
		next = append(next, *o...)
	}
	next = append(next, w)
	overflow.Store(&next)
}

func unregisterWorker(w *Worker) {
	if tableSlot(w.g.Load()).CompareAndSwap(w, nil) {
		return
	}
	tableMu.Lock()
	defer tableMu.Unlock()
	var next []*Worker
	for _, o := range *overflow.Load() {
		if o != w {
			next = append(next, o)
		}
	}
	if len(next) == 0 {
		overflow.Store(nil)
		return
	}
	overflow.Store(&next)
}

// CurrentWorker returns the worker running the caller, or nil when the
// caller is not a worker of any registry.
func CurrentWorker() *Worker { return lookupWorker(currentG()) }

// CurrentG and WorkerOf are CurrentWorker in two calls, for fork paths
// outside this package: WorkerOf(CurrentG()) is CurrentWorker(), but
// WorkerOf inlines into its caller, which saves the call that
// CurrentWorker is (it cannot inline: it makes two calls), a measurable
// part of a forkjoin.Call fork (docs/performance/fork-cost.md, "Fork cost
// against Go's floor").
func CurrentG() uintptr { return currentG() }

// WorkerOf returns the worker whose goroutine identity is g (CurrentG),
// or nil if that goroutine is no worker.
func WorkerOf(g uintptr) *Worker { return lookupWorker(g) }
