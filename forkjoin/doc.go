// Package forkjoin is spindle's typed fork-join layer: forks with typed
// arguments and results that allocate nothing, and the parallel loops and
// slice algorithms built on them. Everything runs on the current pool
// (see Where the work runs).
//
//   - Joined forks (the caller waits for both): Call (two calls of one
//     function, two results), Do (two calls, no results), Join (two
//     functions of different types; pool.Join is the same with closures
//     and no results).
//   - Scoped tasks (the scope waits for them): Spawn, a task of a
//     pool.Scope with a typed argument instead of a closure (a task per
//     tree node that allocates nothing; pool.Spawn, by contrast, is
//     detached). Tasks that return nothing count with pool.PerWorker.
//   - Loops: For over an index range, Fold (an accumulator per run of
//     pieces, merged in order), ForSeq over an iter.Seq, MapSeq (an ordered
//     parallel map over an iter.Seq), and ForErr, which stops at the first
//     error or when its context ends.
//   - Slices: Map and MapErr; Reduce; Find, Any, All and Count; Filter;
//     Scan (prefix sums); MinFunc and MaxFunc; Sort, SortFunc and
//     SortStableFunc, whose results are those of package slices.
//
// To run on a pool of your own rather than pool.Default(), call from one
// of its tasks, or make it the default (pool.SetDefault) first thing in
// main:
//
//	p, _ := pool.New(pool.WithWorkers(8))
//	defer p.Close()
//	p.Run(func() { forkjoin.Sort(s) }) // Sort runs on p's workers
//
// # Why a typed fork allocates nothing
//
// pool.Join takes two closures; a closure that captures variables, and
// results written through them, escape to the heap at every fork. Call(f,
// x, y) instead copies f and y into a record that the calling worker keeps
// for the current nesting depth of its forks and reuses at every later
// fork at that depth, and copies f(y)'s result back out of it. Forks on
// one worker nest strictly (a fork returns only after everything it
// started, including work it ran while waiting for a thief), so the
// records form a stack, and once a worker has been to a depth with the
// same argument and result types, a fork costs a push and a pop on the
// worker's stack of jobs and no allocation. The records live on the heap,
// never on a goroutine stack: Go moves stacks when they grow, and a thief
// would run a stale copy. Do is Call without results, and Join keeps a
// record of its own for fb and its result, so that its two functions may
// return different types.
//
// A function value with nothing captured, such as a top-level function,
// is itself free; For, Reduce, Sort and SortFunc build at most one
// closure per call and pass it down their whole recursion.
//
// # Where the work runs
//
// Everything runs on pool.Current(): the pool of the worker that calls,
// or pool.Default() for any other goroutine. Off-pool, a function that
// forks hands its whole computation to pool.Default() once and blocks
// until it is done, rather than making a round trip per fork. An input too
// small to split (For over a single chunk, Reduce over a single piece,
// Sort of a few thousand elements) is processed on the calling goroutine
// without touching a pool.
//
// # Panics
//
// A panic in any function the package calls is re-raised in the caller as
// a *pool.PanicError, only after every function the call started has
// finished, as with pool.Join: no part of the input is still being written
// when the panic arrives, and the pool stays usable. When both halves of a
// fork panic, the first half's panic wins. This holds whether or not the
// work was split, so the panic's type does not depend on the input's size.
// A nil function argument is a programming error and panics at once with a
// message naming the call ("forkjoin.Map: nil function").
//
// # Algorithms and grains
//
// For cuts [lo, hi) into chunks of grain indices (the last may be
// shorter) and queues them as one bulk spawn that idle workers split
// between them; grain <= 0 picks ceil(n/(8*workers)), about 8 chunks per
// worker, enough for a worker that finishes early to take chunks from one
// that is slow, few enough that handing chunks over costs nothing next to
// them. Map is For with that grain, each chunk writing its own part of the
// result. Reduce halves the slice with Call down to the same grain, folds
// each piece serially from its first element and combines the two halves'
// results left to right, so op need only be associative; identity is the
// result for an empty input only.
//
// Fold cuts its range into pieces of at least its grain (no minimum for
// grain <= 0, which picks as in For), about 8 per worker when the range
// allows, and runs them as For runs its chunks, one piece per chunk. A worker that runs a piece right after the one before
// it folds on into the same accumulator, so accumulators are made and
// merged per steal rather than per piece.
//
// Sort and SortFunc are a parallel quicksort: the pivot is the median of
// three elements, or on pieces of 64 and more the median of three such
// medians; both sides of a partition are sorted with Do. Keys equal to the
// pivot are spread over both sides, so many equal keys still split evenly.
// Sort partitions block by block, as BlockQuicksort (Edelkamp and Weiß,
// 2016) does: it classifies 128 elements at each end without a branch on
// the comparisons and then swaps those on the wrong side pairwise, so its
// cost per element does not grow with how evenly the pivot splits, where
// a scan that branches on every comparison mispredicts most on the even
// splits a good pivot makes. Its pieces of at most 256 elements are sorted
// by slices.Sort and those of at most 4096 without forks (an input that
// small is sorted by slices.Sort). SortFunc calls
// its comparison through a function value, which branches on its own
// operands anyway: it keeps a Hoare partition, and its pieces of at most
// 4096 elements are sorted by slices.SortFunc. A piece that is already
// sorted is left alone after a scan that stops at the first inversion,
// and Sort reverses one that is sorted in reverse. Every piece carries a
// depth budget of 2*log2(n) partitioning levels, past which it goes to
// slices.Sort, whose worst case is O(n log n): no input, however
// adversarial, makes the sort quadratic. Sort compares with cmp.Less, as
// slices.Sort does, so its result is slices.Sort's, NaNs first.
//
// # Performance
//
// Figures (fork costs, Sort against slices.Sort at 1 and 2 workers, every
// slice algorithm against serial loops) are in the repository's README and
// docs/performance.md and docs/algorithms.md, with their commands and
// machines.
package forkjoin
