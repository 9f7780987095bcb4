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
// wait or recovers panics. At T threads, T copies walk at once, each on a
// locked thread with a walker of its own (floorCopies), so that a row is
// the time per copy with every thread busy: a walk split perfectly over T
// workers could take that time divided by T, no less.

// walkFloorRecord is a child's task as a thief would find it.
type walkFloorRecord struct {
	fn   func(*walkFloorWalker, *WalkNode)
	node *WalkNode
}

// walkFloorWalker is one thread's state for a floor walk.
type walkFloorWalker struct {
	stack []walkFloorRecord                // TreeWalkSpawnFloor's records
	deque *deque.ChaseLev[walkFloorRecord] // TreeWalkPublicFloor's
	free  []*walkFloorRecord
	// sleepers stands for a pool's count of sleeping workers, which a
	// push loads to decide whether to wake one; nothing sets it here, but
	// the compiler cannot know that.
	sleepers *atomic.Int64
	woken    int // counts the wake-ups a push would make, so the branch has a body
	sum      uint64
	_        [64]byte // copies on several threads keep to their own lines
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

func walkPublicFloorVisit(w *walkFloorWalker, n *WalkNode) {
	w.sum += walkWork(n.Seed)
	for i := len(n.Children) - 1; i >= 0; i-- {
		w.push(walkFloorRecord{walkPublicFloorVisit, n.Children[i]})
	}
}

func (w *walkFloorWalker) push(r walkFloorRecord) {
	var p *walkFloorRecord
	if k := len(w.free); k > 0 {
		p, w.free = w.free[k-1], w.free[:k-1]
	} else {
		p = new(walkFloorRecord)
	}
	*p = r
	w.deque.Push(p)
	if w.sleepers.Load() != 0 {
		w.woken++
	}
}

// TreeWalkPublicFloor returns TreeWalkSerial(root) by a task per node
// from a Chase-Lev deque (see the floors above).
func TreeWalkPublicFloor(root *WalkNode) uint64 {
	w := &walkFloorWalker{deque: deque.NewChaseLev[walkFloorRecord](64), sleepers: new(atomic.Int64)}
	w.deque.PublishWithRelease()
	w.push(walkFloorRecord{walkPublicFloorVisit, root})
	for p := w.deque.Pop(); p != nil; p = w.deque.Pop() {
		fn, n := p.fn, p.node
		w.free = append(w.free, p)
		fn(w, n)
	}
	return w.sum
}
