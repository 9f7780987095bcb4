package runtime

// Sibling order.
//
// A task that spawns its children one after the other pushes them on its
// worker's public deque, and the worker pops its own jobs newest first:
// it would run the last child first. Where the children's data was laid
// out in the order they were spawned (a tree built first child first, a
// slice cut front to back), that walks backwards through memory, and
// hardware prefetchers follow forward streams: a task per node of a
// pointer tree ran slower than the same walk spawning the children last
// first (docs/performance/task-per-node.md has the figures).
//
// So a task that ends with the tasks it spawned with SpawnValue (the
// engine of forkjoin.Spawn) still the newest on the deque, two or more in
// a row, reverses them (deque.ReverseNewest): the worker then runs them
// in the order they were spawned, as the serial program would, and
// thieves, which take the oldest jobs, take the last ones. Worker.siblings
// counts the run: SpawnValue adds one per task it pushes on the deque;
// any other push or pop of the public deque ends the run (publicPush,
// publicPop, a closure's push in Scope.spawn), and a task starts a run of
// its own. A task that panics leaves its run as it is. If thieves took the
// oldest of the run meanwhile, the rest is reversed (the deque holds
// nothing else then). The reversal is the deque's: it gives up, leaving
// the order as it was, when a thief may be taking one of the tasks, so it
// never loses or doubles one. It announces nothing to the
// sleep protocol: the tasks were announced when they were pushed, and a
// thief that looked in the few nanoseconds they were off the deque and
// went to sleep leaves them to this worker, which is awake and runs them
// next. Order is not a promise (tasks are independent), only a better
// default.
//
// A reversal costs a full barrier and a store per task moved, each with
// the garbage collector's write barrier while it marks. Scope.Spawn's
// tasks, closures allocated per spawn, keep the collector marking much of
// the time, and a task per node of an unbalanced tree that has no layout
// to gain from (UTS) was slower with them reversed; so only SpawnValue's
// tasks, which allocate nothing, are reordered
// (docs/performance/task-per-node.md has both figures).

// orderSiblings reverses the run of tasks the ending task pushed, if it
// pushed two or more in a row and they are still the newest.
func (w *Worker) orderSiblings() {
	if w.siblings >= 2 { // inlined: at the end of every task
		w.reverseSiblings()
	}
	w.siblings = 0
}

func (w *Worker) reverseSiblings() { w.deque.ReverseNewest(w.siblings) }
