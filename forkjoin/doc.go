// Package forkjoin is spindle's typed fork-join layer: forks with typed
// arguments and results that allocate nothing, and the parallel loops and
// slice algorithms built on them. Everything runs on the current pool
// (see Where the work runs).
//
//   - Joined forks (the caller waits for both): Call (two calls of one
//     function, two results), Do (two calls, no results), Join (two
//     functions of different types; pool.Join is the same with closures
//     and no results).
//   - Scoped tasks (the scope waits for them): Spawn, a pool.Scope task
//     with a typed argument, not a closure (pool.Spawn is detached).
//   - Loops: For over an index range, Fold (an accumulator per run of
//     pieces, merged in order), ForSeq over an iter.Seq, MapSeq (an ordered
//     parallel map over an iter.Seq), and ForErr and FoldErr, which stop
//     at the first error or when their context ends.
//   - Slices: Map and MapErr; Reduce and ReduceContext; Find, Any, All
//     and Count; Filter; Scan (prefix sums); MinFunc and MaxFunc; Sort,
//     SortFunc and SortStableFunc, whose results are those of package
//     slices.
//
// To run on a pool of your own rather than pool.Default(), call from one
// of its tasks, or make it the default (pool.SetDefault) first thing in
// main:
//
//	p, _ := pool.New(pool.WithWorkers(8))
//	defer p.Close()
//	p.Run(func() { forkjoin.Sort(s) }) // Sort runs on p's workers
//
// # Costs
//
// A typed fork allocates nothing once a worker has been to its depth: f
// and y are copied into a record the worker reuses at every fork at that
// depth (docs/design.md, "Package forkjoin", has how, and how For, Fold,
// Reduce and Sort cut their work). A function value with nothing
// captured, such as a top-level function, is itself free.
//
// # Where the work runs
//
// Everything runs on pool.Current(): the pool of the worker that calls,
// or pool.Default() for any other goroutine. Off-pool, a function that
// forks enters pool.Default() once for its whole computation, rather than
// making a round trip per fork: the calling goroutine runs it there as a
// guest of the pool, whose workers steal its forks (pool.WithGuests). While
// that pool's callers fill its Ps (request handlers, say), Fold and Reduce
// run their pieces in order on the calling goroutine instead, since no
// worker could help without taking a P from another caller, and hand the
// pieces left to the pool if that takes the pool's monitor two looks (a
// piece that blocks). For and what is built on it keep the guest path:
// their chunks may wait for one another. An input too small to split (For
// over a single chunk, Reduce over a single piece, Sort of a few thousand
// elements) is processed on the calling goroutine without touching a pool.
//
// # Panics
//
// A panic in any function the package calls is re-raised in the caller as
// a *pool.PanicError once every function the call started has finished
// (the first half's when both halves of a fork panic), whether or not the
// work was split. A nil function panics at once, naming the call.
//
// Figures, with their commands: docs/performance.md and docs/algorithms.md.
package forkjoin
