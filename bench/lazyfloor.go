package bench

import "sync/atomic"

// The lazy-fork floor: what a fork costs in Go when nobody steals, with
// everything a work-stealing runtime needs at a fork and nothing more. It
// is not a runtime (nothing is ever published or stolen), it is the
// yardstick of forkjoin.Call's fork path:
//
//   - generic code, as forkjoin.Call is;
//   - the worker passed explicitly, so no lookup finds it;
//   - the second call's function and argument written to a record on a
//     per-worker stack that no other thread reads;
//   - one atomic load of a word of the worker's own (a plain move on
//     amd64), asking whether a thief wants something published;
//   - the record popped and its call made in place, through the record
//     (not the local copies), as a runtime's would be.
//
// No Go fork that another thread could take part of can be cheaper than
// this: the record writes are what a thief would read, and the load is the
// least a thief's request can be noticed with.

// floorWorker is one thread's record stack for the lazy-fork floor.
type floorWorker[A, R any] struct {
	records []floorRecord[A, R]
	top     int
	// publish would be set by a thief asking for work; nothing sets it
	// here, but the compiler cannot know that.
	publish atomic.Uint32
	// published counts the requests seen, so the branch has a body.
	published int
	_         [64]byte // copies on several threads keep to their own lines
}

// floorRecord is a fork's second call, as a thief would find it.
type floorRecord[A, R any] struct {
	f   func(*floorWorker[A, R], A) R
	arg A
}

// floorFork returns f(w, x) and f(w, y) by the floor's steps.
func floorFork[A, R any](w *floorWorker[A, R], f func(*floorWorker[A, R], A) R, x, y A) (R, R) {
	t := w.top
	if t == len(w.records) {
		w.grow()
	}
	w.records[t] = floorRecord[A, R]{f, y}
	w.top = t + 1
	if w.publish.Load() != 0 {
		w.published++
	}
	rx := f(w, x)
	w.top = t
	r := &w.records[t]
	ry := r.f(w, r.arg)
	return rx, ry
}

//go:noinline
func (w *floorWorker[A, R]) grow() {
	w.records = append(w.records, floorRecord[A, R]{})
	w.records = w.records[:cap(w.records)]
}

type fibFloorWorker = floorWorker[int, int64]

func fibLazyFloor(w *fibFloorWorker, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	a, b := floorFork(w, fibLazyFloor, n-1, n-2)
	return a + b
}

// FibLazyForkFloor is fib(n) with a lazy fork at every level by the
// floor's steps (see floorFork): the least a forkjoin.Call fork could
// cost.
func FibLazyForkFloor(n int) int64 { return fibLazyFloor(new(fibFloorWorker), n) }

// FibLazyForkFloorP is FibLazyForkFloor on threads locked threads at once,
// each with its own worker (see FibClosureFloorP for why copies).
func FibLazyForkFloorP(n, threads int) int64 {
	return floorCopies(threads, func(int) int64 { return FibLazyForkFloor(n) })
}

type treeFloorWorker = floorWorker[*TreeNode, int64]

func treeSumLazyFloor(w *treeFloorWorker, n *TreeNode) int64 {
	if n == nil {
		return 0
	}
	a, b := floorFork(w, treeSumLazyFloor, n.Left, n.Right)
	return n.Val + a + b
}

// TreeSumLazyForkFloor is TreeSumSerial with a lazy fork per node by the
// floor's steps.
func TreeSumLazyForkFloor(root *TreeNode) int64 {
	return treeSumLazyFloor(new(treeFloorWorker), root)
}

// TreeSumLazyForkFloorP is TreeSumLazyForkFloor on threads locked threads
// at once.
func TreeSumLazyForkFloorP(root *TreeNode, threads int) int64 {
	return floorCopies(threads, func(int) int64 { return TreeSumLazyForkFloor(root) })
}
