package pool

import (
	"unsafe"

	"github.com/spindle-go/spindle/runtime"
)

// Scope is the handle that Pool.Scope gives its body, and every task
// spawned on it, for spawning tasks that the scope waits for: Pool.Scope
// returns only when the body and every task spawned on the scope,
// transitively, have finished.
//
// A Scope is only ever used through the pointer the pool hands out; a
// method called on a nil *Scope panics naming the call and the type.
type Scope struct {
	// s is the engine's scope. It is the only field, so a *Scope and the
	// *runtime.Scope it holds are the same address (see engineTask).
	s runtime.Scope
}

// engine returns s as the engine's scope.
func (s *Scope) engine() *runtime.Scope { return &s.s }

// Spawn runs f(s) as a task of the scope, possibly in parallel with the
// caller. It is SpawnPriority at level 0, the level of joins. Task
// records are recycled through a per-worker free list (up to 256), so a
// spawn in a recursion allocates nothing beyond f's closure; a flat loop
// that queues thousands of tasks before any runs allocates a record per
// task beyond that.
//
// Spawn must be called while the scope is running: from its body, from a
// task spawned on it, or from a goroutine they wait for. A call after the
// scope finished is a programming error and panics.
//
// A task per tree node written with Spawn allocates its closure per node,
// and on many cores the garbage collector's share of that limits the
// speedup; forkjoin.Spawn passes the node as an argument instead and
// allocates nothing (docs/performance/many-cores.md, "Many cores and
// the garbage collector").
func (s *Scope) Spawn(f func(s *Scope)) {
	if s == nil {
		nilPointer("pool.Scope.Spawn", "*pool.Scope")
	}
	s.engine().Spawn(engineTask(f))
}

// SpawnPriority is Spawn for a task of the given priority level, from 0
// (Spawn's) to MaxPriority (most urgent). Workers start queued tasks of
// higher levels before lower ones, as the pool's PriorityPolicy says. A
// level out of range panics.
func (s *Scope) SpawnPriority(level int, f func(s *Scope)) {
	if s == nil {
		nilPointer("pool.Scope.SpawnPriority", "*pool.Scope")
	}
	s.engine().SpawnPriority(level, engineTask(f))
}

// SpawnMany spawns n tasks of the scope, f(s, 0) to f(s, n-1), as one bulk
// spawn: a single job is queued for all of them, and workers that find it
// take about half of the tasks left at a time. While some worker is idle,
// a worker starting one of the tasks first queues every task after it
// that it holds, so tasks that wait for one another (up to as many as
// the pool has workers) all start. Each task runs exactly
// once, even if others panic; the scope re-panics with the first panic.
// n == 0 spawns nothing; n < 0 panics. The records of a bulk spawn and of
// its halves are recycled per worker, so in a recursion it allocates
// nothing beyond f's closure.
func (s *Scope) SpawnMany(n int, f func(s *Scope, i int)) {
	if s == nil {
		nilPointer("pool.Scope.SpawnMany", "*pool.Scope")
	}
	s.engine().SpawnMany(n, engineIndexedTask(f))
}

// SpawnManyPriority is SpawnMany for tasks of the given priority level
// (see SpawnPriority).
func (s *Scope) SpawnManyPriority(level, n int, f func(s *Scope, i int)) {
	if s == nil {
		nilPointer("pool.Scope.SpawnManyPriority", "*pool.Scope")
	}
	s.engine().SpawnManyPriority(level, n, engineIndexedTask(f))
}

// engineTask is f as the engine's task function. A wrapper closure
// (func(es *runtime.Scope) { f((*Scope)(unsafe.Pointer(es))) }) would cost
// an allocation per spawn; instead the function value is reinterpreted.
// The engine allocates each scope as a runtime.Scope, and a Scope is
// exactly one runtime.Scope (its only field, at offset 0, so the two have
// the same size and layout): the *runtime.Scope the engine passes is a
// valid *Scope, the two function types take that pointer in the same
// register, and f runs unchanged. A nil f stays nil, for the engine's
// check.
func engineTask(f func(*Scope)) func(*runtime.Scope) {
	return *(*func(*runtime.Scope))(unsafe.Pointer(&f))
}

// engineIndexedTask is engineTask for SpawnMany's functions.
func engineIndexedTask(f func(*Scope, int)) func(*runtime.Scope, int) {
	return *(*func(*runtime.Scope, int))(unsafe.Pointer(&f))
}
