package runtime

// Sibling order.
//
// Why (the worker would run the last child first, backwards through data
// laid out in spawn order): docs/design.md, "Sibling order"; figures:
// docs/performance/task-per-node.md.
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
// Only SpawnValue's tasks are reordered, not Scope.Spawn's closures
// (docs/design.md, "Sibling order", says why).

// orderSiblings reverses the run of tasks the ending task pushed, if it
// pushed two or more in a row and they are still the newest.
func (w *Worker) orderSiblings() {
	if w.siblings >= 2 { // inlined: at the end of every task
		w.reverseSiblings()
	}
	w.siblings = 0
}

func (w *Worker) reverseSiblings() { w.deque.ReverseNewest(w.siblings) }
