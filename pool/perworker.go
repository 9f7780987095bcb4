package pool

import (
	"sync"

	"github.com/spindle-go/spindle/runtime"
)

// PerWorker holds a value of T for each worker of a pool, and one for
// every other caller, so that tasks that return nothing (a walk with a
// task per node, a Group's tasks) can count or collect without sharing a
// variable: a shared atomic counter bumped by every task moves its cache
// line between the workers at each bump, and can make a parallel walk
// slower than a serial one. Each worker updates its own value, on a cache
// line of its own; Combine merges them once the tasks are done. It is
// oneTBB's combinable, or a Cilk reducer without the ordering.
//
// Create it with NewPerWorker; the zero value is not usable.
type PerWorker[T any] struct {
	p *Pool
	// slots[i] is worker i's (spares included, up to p.MaxWorkers());
	// the last one is for callers that are not p's workers, under mu.
	slots []perWorkerSlot[T]
	mu    sync.Mutex
}

// perWorkerSlot is one value, padded so that two workers' values never
// share a cache line (falseSharingRange bytes apart at least).
type perWorkerSlot[T any] struct {
	v T
	_ [128]byte
}

// NewPerWorker returns a PerWorker for p's workers, every value the zero
// T. It panics if p is nil.
func NewPerWorker[T any](p *Pool) *PerWorker[T] {
	p.mustBeMade("pool.NewPerWorker")
	return &PerWorker[T]{p: p, slots: make([]perWorkerSlot[T], p.MaxWorkers()+1)}
}

// Update calls f with the caller's value: the calling worker's, if it is
// one of the pool's workers (with no synchronisation: only that worker
// touches it), else the value shared by all other callers (goroutines that
// are no worker, workers of other pools), under a lock. f must not keep
// the pointer.
func (a *PerWorker[T]) Update(f func(v *T)) {
	if w := runtime.WorkerOf(runtime.CurrentG()); w != nil && w.Registry() == a.p.reg { // inlined: per update
		f(&a.slots[w.Index()].v)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	f(&a.slots[len(a.slots)-1].v)
}

// Combine returns the values merged with merge, from the first worker's to
// the other callers' value: merge(merge(v0, v1), v2) and so on. Call it
// once the tasks that update the values have finished (after the Scope,
// the Group's Wait or the Run that ran them); it does not change the
// values.
func (a *PerWorker[T]) Combine(merge func(acc, v T) T) T {
	acc := a.slots[0].v
	for i := 1; i < len(a.slots); i++ {
		acc = merge(acc, a.slots[i].v)
	}
	return acc
}

// Reset sets every value back to the zero T. Like Combine, call it while
// no task updates the values.
func (a *PerWorker[T]) Reset() {
	var zero T
	for i := range a.slots {
		a.slots[i].v = zero
	}
}
