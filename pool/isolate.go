package pool

import "github.com/spindle-go/spindle/runtime"

// Isolate runs f as an isolated region: while f runs on a worker of a
// pool, every wait inside f (a Join whose second half was stolen, a
// Scope, Group.Wait, Future.Wait, a forkjoin loop) runs only tasks that f
// started, directly or through the tasks it started, and never other
// queued work. Workers that take one of f's tasks are inside the region
// while they run it: their waits are isolated the same way.
//
// Forking while holding a lock needs it. Without Isolate, a worker that
// waits inside the lock for a stolen half may start another queued task
// that takes the same lock, on the same goroutine, and hang:
//
//	mu.Lock()
//	pool.Isolate(func() { pool.Join(a, b) })
//	mu.Unlock()
//
// Regions nest: a wait runs only the innermost region's tasks. Off any
// worker, Isolate just calls f. A panic in f propagates.
//
// A task belongs to the region its waiter is in: tasks of scopes and
// groups made inside f (by f or by its tasks, on any worker) are f's, and
// f's waits run them. What f spawns for nobody inside f to wait for
// (pool.Spawn, tasks of a scope or group made outside f, on any worker)
// is never run by f's waits, so such a task may take a lock f's caller
// holds: it runs on a worker outside any region, after f returns if no
// other worker is free. Tasks of f's scopes and groups are queued at
// priority 0 whatever the level asked for, so that f's waits can run
// them; an isolated wait never starts other workers' higher levels.
//
// A region's join halves are marked when they are published, not at
// every fork, so a fork inside f costs what it costs outside. An isolated
// wait refuses all other work: with few tasks of its own it idles while
// other work is queued, and when it had nothing to do it parks, noticing
// tasks of its region that appear on other workers within a millisecond.
// The guide's "Forking under a lock" has more.
func Isolate(f func()) {
	if f == nil {
		nilFunc("pool.Isolate")
	}
	if w := runtime.CurrentWorker(); w != nil {
		w.Isolate(f)
		return
	}
	f()
}
