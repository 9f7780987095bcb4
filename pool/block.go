package pool

import "github.com/spindle-go/spindle/runtime"

// Block runs f, which blocks (waits on a channel, a lock, I/O, a timer),
// without freezing the pool: called from a worker, f runs on a goroutine
// of its own while the worker keeps running other tasks until f returns.
// Called from any other goroutine, Block simply calls f. docs/guide.md,
// "Blocking, limits and closing", says how Block meets a Group's limit.
//
// A task may also block without Block: the pool then notices its worker
// blocked and starts a spare worker in its place (WithSpares; amd64 and
// arm64, any OS, locked threads or not). Block is the explicit form: the
// worker goes on at once, with no detection delay and no spare, on every
// platform. Where no spare can start (WithSpares(0), another
// architecture), a task that may block on something another
// task of the pool must do first (a channel send, a WaitGroup, a lock
// held by a task) must block inside Block: without it the worker's thread
// waits, and when every worker waits that way, the task that would
// release them sits in a queue forever.
//
// f does not run on a worker: WorkerIndex() is -1 inside f and fork-join
// calls made by f go to Default(). A panic in f is re-raised by Block as a
// *PanicError once f has returned, on a worker or not.
//
// While it waits, the worker runs other tasks on top of the blocked task's
// stack, and the blocked task resumes only when they return. So Block does
// not help a task T that waits for something a task U will do only after
// U's own Block returns, if U ends up running above T on the same worker
// (stack trapping, as with Future.Wait): keep such waits acyclic.
func Block(f func()) {
	if f == nil {
		nilFunc("pool.Block")
	}
	if w := runtime.CurrentWorker(); w != nil {
		w.Block(f)
		return
	}
	var pe *runtime.PanicError
	func() {
		defer recoverPanic(&pe)
		f()
	}()
	if pe != nil {
		raise(pe)
	}
}
