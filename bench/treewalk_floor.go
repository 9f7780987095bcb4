package bench

import (
	"sync/atomic"

	"github.com/spindle-go/spindle/deque"
)

// The task-per-node floors: what a tree walk with a task per child costs
// in Go when nobody steals, with what a spawned task needs and nothing
// more. They are not runtimes, they are the yardsticks of TreeWalkSpawn:
//
//   - TreeWalkSpawnFloor keeps each child's (function, node) record on a
//     stack that no other thread reads and runs the records in place, as
//     a lazily published fork would: the least a task per node costs.
//   - TreeWalkPublicFloor pushes each record, recycled through a free
//     list, on a Chase-Lev deque (the runtime's kind, with its release
//     push) and loads one shared word per push, as a pool's announcement
//     to sleeping workers does, then pops and runs them: the least a
//     spawned task costs when thieves must be able to take it at once.
//     A spawned task must be: its worker may block inside a task (on a
//     channel, a mutex) while a task it spawned is what would release it,
//     and only a published task can then run elsewhere.
//
// Both push a node's children last first, so that the first child runs
// first, forward through memory, as the runtime's sibling order makes
// TreeWalkSpawn run; both sum the work into the walker's own field, with
// the walker passed in (no lookup, no closure). Neither counts tasks for a
// wait or recovers panics. BenchmarkTreeWalk runs them at T threads as T
// copies at once, each on a locked thread with a walker of its own, and
// its row is a copy's time divided by T: what a walk split perfectly over
// T workers would take, no less.

// walkFloorRecord is a child's task on TreeWalkSpawnFloor's stack.
type walkFloorRecord struct {
	fn   func(*walkFloorWalker, *WalkNode)
	node *WalkNode
}

// walkFloorWalker is TreeWalkSpawnFloor's thread.
type walkFloorWalker struct {
	stack []walkFloorRecord
	sum   uint64
	_     [64]byte // copies on several threads keep to their own lines
}

func walkSpawnFloorVisit(w *walkFloorWalker, n *WalkNode) {
	w.sum += walkWork(n.Seed)
	for i := len(n.Children) - 1; i >= 0; i-- {
		w.stack = append(w.stack, walkFloorRecord{walkSpawnFloorVisit, n.Children[i]})
	}
}

// TreeWalkSpawnFloor returns TreeWalkSerial(root) by a task per node from
// a private record stack (see the floors above).
func TreeWalkSpawnFloor(root *WalkNode) uint64 {
	w := &walkFloorWalker{stack: make([]walkFloorRecord, 0, 64)}
	w.stack = append(w.stack, walkFloorRecord{walkSpawnFloorVisit, root})
	for len(w.stack) > 0 {
		r := &w.stack[len(w.stack)-1]
		fn, n := r.fn, r.node
		w.stack = w.stack[:len(w.stack)-1]
		fn(w, n)
	}
	return w.sum
}

func walkPublicFloorVisit(w *publicFloor[*WalkNode], n *WalkNode) {
	w.sum += walkWork(n.Seed)
	for i := len(n.Children) - 1; i >= 0; i-- {
		w.spawn(walkPublicFloorVisit, n.Children[i])
	}
}

// TreeWalkPublicFloor returns TreeWalkSerial(root) by a task per node
// from a Chase-Lev deque (see the floors above).
func TreeWalkPublicFloor(root *WalkNode) uint64 {
	return newPublicFloor[*WalkNode]().run(walkPublicFloorVisit, root)
}

// publicFloor is one thread's Chase-Lev deque of task records, recycled
// through a free list: the public floors' scheduler (TreeWalkPublicFloor,
// UTSPublicFloor, UTSPublicPartFloor), which pops its own tasks and is
// never stolen from.
type publicFloor[A any] struct {
	deque *deque.ChaseLev[publicFloorRecord[A]]
	free  []*publicFloorRecord[A]
	// sleepers stands for a pool's count of sleeping workers, which a
	// push loads to decide whether to wake one; nothing sets it here, but
	// the compiler cannot know that.
	sleepers *atomic.Int64
	woken    int      // counts the wake-ups a push would make, so the branch has a body
	sum      uint64   // the tasks' result
	_        [64]byte // copies on several threads keep to their own lines
}

// publicFloorRecord is a task as a thief would find it.
type publicFloorRecord[A any] struct {
	fn  func(*publicFloor[A], A)
	arg A
}

func newPublicFloor[A any]() *publicFloor[A] {
	w := &publicFloor[A]{deque: deque.NewChaseLev[publicFloorRecord[A]](64), sleepers: new(atomic.Int64)}
	w.deque.PublishWithRelease()
	return w
}

// spawn pushes the task fn(w, x).
func (w *publicFloor[A]) spawn(fn func(*publicFloor[A], A), x A) {
	var r *publicFloorRecord[A]
	if k := len(w.free); k > 0 {
		r, w.free = w.free[k-1], w.free[:k-1]
	} else {
		r = new(publicFloorRecord[A])
	}
	r.fn, r.arg = fn, x
	w.deque.Push(r)
	if w.sleepers.Load() != 0 {
		w.woken++
	}
}

// run runs fn(w, x) as a task, and every task spawned meanwhile, and
// returns w.sum.
func (w *publicFloor[A]) run(fn func(*publicFloor[A], A), x A) uint64 {
	w.spawn(fn, x)
	return w.drain()
}

// drain runs the tasks on the deque, newest first, until none is left,
// and returns w.sum.
func (w *publicFloor[A]) drain() uint64 {
	for r := w.deque.Pop(); r != nil; r = w.deque.Pop() {
		fn, x := r.fn, r.arg
		w.free = append(w.free, r)
		fn(w, x)
	}
	return w.sum
}
