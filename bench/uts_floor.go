package bench

// The UTS public floors: the least a search with a task per node costs
// when every task must be open to thieves at once, as a spawned task must
// be (treewalk_floor.go says why), on one thread's Chase-Lev deque of
// recycled records that nobody steals from (publicFloor):
//
//   - UTSPublicFloor pushes a record per child, holding the child, as a
//     forkjoin.Spawn per child does (UTSSpawnArg);
//   - UTSPublicPartFloor pushes one record per inner node, holding the
//     node and its number of children, and the record's task makes each
//     child in turn and visits it, as a Scope.SpawnMany per node does
//     (UTSSpawnMany) when nobody splits its part.
//
// The two differ by what publishing a task costs, per child against per
// inner node: no runtime that publishes every spawn at once can make a
// task per child cost less than that over a bulk spawn per node.

func utsPublicFloorVisit(t *UTSTree) func(*publicFloor[UTSNode], UTSNode) {
	var visit func(w *publicFloor[UTSNode], n UTSNode)
	visit = func(w *publicFloor[UTSNode], n UTSNode) {
		w.sum++
		for i := range t.Children(&n) {
			w.spawn(visit, t.Child(&n, i))
		}
	}
	return visit
}

// UTSPublicFloor counts t's nodes with a task per child pushed on a
// Chase-Lev deque.
func UTSPublicFloor(t *UTSTree) int64 {
	return int64(newPublicFloor[UTSNode]().run(utsPublicFloorVisit(t), t.Root()))
}

// utsPart is an inner node and its number of children: a bulk spawn's
// part, as UTSPublicPartFloor pushes it.
type utsPart struct {
	parent UTSNode
	k      int
}

// UTSPublicPartFloor counts t's nodes with a task per inner node pushed on
// a Chase-Lev deque, which visits the node's children in turn.
func UTSPublicPartFloor(t *UTSTree) int64 {
	var visit func(w *publicFloor[utsPart], n UTSNode)
	var part func(w *publicFloor[utsPart], p utsPart)
	visit = func(w *publicFloor[utsPart], n UTSNode) {
		w.sum++
		if k := t.Children(&n); k > 0 {
			w.spawn(part, utsPart{n, k})
		}
	}
	part = func(w *publicFloor[utsPart], p utsPart) {
		for i := range p.k {
			visit(w, t.Child(&p.parent, i))
		}
	}
	w := newPublicFloor[utsPart]()
	visit(w, t.Root())
	return int64(w.drain())
}

// UTSPublicFloorP is UTSPublicFloor on threads locked threads at once, as
// UTSClosureFloorP runs its floor; it returns one search's count (-1 if
// they disagree).
func UTSPublicFloorP(t *UTSTree, threads int) int64 {
	return floorCopies(threads, func(int) int64 { return UTSPublicFloor(t) })
}

// UTSPublicPartFloorP is UTSPublicPartFloor on threads locked threads at
// once (see UTSPublicFloorP).
func UTSPublicPartFloorP(t *UTSTree, threads int) int64 {
	return floorCopies(threads, func(int) int64 { return UTSPublicPartFloor(t) })
}
