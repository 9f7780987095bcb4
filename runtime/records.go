package runtime

import "sync"

// Recycling task records.
//
// A spawned task's record (scopeJob, spawnJob) is freed by the worker that
// runs it, at the start of Run: nothing else refers to it once a worker
// has claimed it (a bulk spawn's part, batchPart, at the end of its Run).
// Each worker keeps a free list of up to maxFreeRecords records of each
// kind, and a spawn on a worker takes one from there, so a recursion that
// spawns allocates nothing but its closures. Records move from the worker
// that spawns a task to the one that runs it; a worker that only runs
// tasks drops its surplus to the garbage collector.
//
// Callers that are no worker (Group.Go, Pool.Spawn or a scope's spawn from
// an ordinary goroutine) have no free list. Their records are marked
// outside, and a worker whose free list is full hands such a record to a
// process-wide sync.Pool of its kind, where the next outside caller takes
// it: a goroutine that keeps queuing tasks allocates records only until
// the workers' lists are full. Records made on workers never go there, so
// the workers' own traffic is as before.

// maxFreeRecords bounds a worker's free list of each kind of record.
const maxFreeRecords = 256

// The records handed back for callers that are no worker.
var outsideScopeJobs, outsideSpawnJobs sync.Pool

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
// record made for outside callers goes to their pool, any other to the
// garbage collector.
func freeRecord[T any](list *[]*T, r *T, outside bool, pool *sync.Pool) {
	if len(*list) < maxFreeRecords {
		*list = append(*list, r)
		return
	}
	if outside {
		pool.Put(r)
	}
}
