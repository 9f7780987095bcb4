package forkjoin

import (
	"unsafe"

	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// Spawn runs f(s, x) as a task of the scope s, possibly in parallel with
// the caller, as s.Spawn(func(s *pool.Scope) { f(s, x) }) would, without
// the closure: x is copied into a task record that the workers recycle,
// so a spawn allocates nothing once a worker has records to reuse (one
// per task in flight, up to 256 per worker). A tree walk that spawns a
// task per child node passes the node as x.
//
// A worker runs the tasks that one task spawned in the order they were
// spawned, as the serial loop would, unless other workers took some: a walk
// of a tree built first child first goes forward through memory. (Order is
// not guaranteed; tasks are independent.)
//
// The rules are Scope.Spawn's: call it while the scope runs (from its
// body, a task spawned on it, or a goroutine they wait for); a call after
// the scope finished panics. A panic in f is the scope's, re-raised by
// Pool.Scope as a *pool.PanicError after every task has finished. For many
// tasks at once, s.SpawnMany queues them with one publication. A nil s or
// f panics naming the call.
func Spawn[T any](s *pool.Scope, f func(s *pool.Scope, x T), x T) {
	if s == nil {
		panic("forkjoin.Spawn: nil *pool.Scope")
	}
	if f == nil {
		panic("forkjoin.Spawn: nil function")
	}
	runtime.SpawnValue("forkjoin.Spawn", engineScope(s), engineValueTask(f), x)
}

// engineScope is s as the engine's scope. A pool.Scope holds exactly one
// runtime.Scope, its only field (pool/scope.go), so the two pointers are
// the same address; pool relies on the same layout for its own task
// functions.
func engineScope(s *pool.Scope) *runtime.Scope { return (*runtime.Scope)(unsafe.Pointer(s)) }

// engineValueTask is f as the engine's task function, reinterpreted
// rather than wrapped in a closure (which would allocate per spawn): the
// engine calls it with a *runtime.Scope, which is the address of a
// pool.Scope (see engineScope), in the same register.
func engineValueTask[T any](f func(*pool.Scope, T)) func(*runtime.Scope, T) {
	return *(*func(*runtime.Scope, T))(unsafe.Pointer(&f))
}
