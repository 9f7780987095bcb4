package runtime

import (
	"math/rand/v2"
	"sync/atomic"
)

// Recycling task records.
//
// A spawned task's record (scopeJob, spawnJob) is freed by the worker that
// runs it, at the start of Run: nothing else refers to it once a worker
// has claimed it. Each worker keeps a free list of up to maxFreeRecords
// records of each kind, and a spawn on a worker takes one from there, so
// a recursion that spawns allocates nothing but its closures. Records move
// from the worker that spawns a task to the one that runs it; a worker
// that only runs tasks drops its surplus to the garbage collector.
//
// Callers that are no worker (Group.Go, Pool.Spawn or a scope's spawn from
// an ordinary goroutine) have no free list. Their records are marked
// outside, and a worker whose free list is full hands such a record to
// the outside callers' cells of its kind (outsideRecords), where the next
// outside caller takes it: a goroutine that keeps queuing tasks allocates
// records only until the workers' lists are full. Records made on workers
// never go there, so the workers' own traffic is as before.

// maxFreeRecords bounds a worker's free list of each kind of record.
const maxFreeRecords = 256

// The records handed back for callers that are no worker.
var (
	outsideScopeJobs outsideRecords[scopeJob]
	outsideSpawnJobs outsideRecords[spawnJob]
)

// outsideRecords keeps up to outsideCells records for callers that are
// no worker, one per cell: put stores a record in an empty cell, take
// empties a full one, each with one atomic operation on the cell, so a
// record is never handed out twice; a put that finds every cell full
// drops its record, a take that finds every cell empty returns nil. Both
// look from a random cell, so that callers at once meet on a cache line
// rarely. Not a sync.Pool: its
// first Get or Put on each P after a collection takes a process-wide
// lock, and handlers that spawn per request while they compute side by
// side queue on it, each waiter behind its waker's time slice
// (docs/performance/server.md, "Locks on a caller's path"); a worker
// whose Put met it would park its thread. The records kept outlive
// collections, at most outsideCells of each kind.
type outsideRecords[T any] struct {
	cells [outsideCells]atomic.Pointer[T]
}

// outsideCells is how many records of a kind outside callers keep.
const outsideCells = 64

// put keeps r for an outside caller, or drops it to the garbage collector
// if every cell is full.
func (o *outsideRecords[T]) put(r *T) {
	start := rand.Uint32()
	for i := range uint32(outsideCells) {
		c := &o.cells[(start+i)%outsideCells]
		if c.Load() == nil && c.CompareAndSwap(nil, r) {
			return
		}
	}
}

// take returns a record kept for outside callers, or nil if every cell
// is empty.
func (o *outsideRecords[T]) take() *T {
	start := rand.Uint32()
	for i := range uint32(outsideCells) {
		c := &o.cells[(start+i)%outsideCells]
		if c.Load() != nil {
			if r := c.Swap(nil); r != nil {
				return r
			}
		}
	}
	return nil
}

// takeRecord pops a record from a worker's free list, or returns nil.
func takeRecord[T any](list *[]*T) *T {
	n := len(*list)
	if n == 0 {
		return nil
	}
	r := (*list)[n-1]
	*list = (*list)[:n-1]
	return r
}

// freeRecord pushes r on a worker's free list; if the list is full, a
// record made for outside callers goes to their cells, any other to the
// garbage collector.
func freeRecord[T any](list *[]*T, r *T, outside bool, cells *outsideRecords[T]) {
	if len(*list) < maxFreeRecords {
		*list = append(*list, r)
		return
	}
	if outside {
		cells.put(r)
	}
}
