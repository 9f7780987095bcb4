// Package runtime is spindle's engine: worker threads, their deques, job
// records, latches, joins, scopes and the injector. It is used by
// spindle's own packages (pool and forkjoin) and makes no compatibility
// promise: its exported API exists for them and may change in any
// release. Programs do not import it: they use package pool (closures)
// and package forkjoin (typed, allocation-free forks), and package deque
// if they want a work-stealing deque of their own.
//
// # Workers
//
// A Registry owns N workers. Each is a goroutine that calls
// runtime.LockOSThread and never unlocks, so it has an OS thread to itself
// for its whole life and the thread ends with it (Close); with
// Config.Unlocked workers are ordinary goroutines, which the Go scheduler
// preempts without moving its P between threads. A worker owns a
// deque.ChaseLev of *Job: it pushes and pops at the bottom, thieves steal
// from the top. Optionally (Config.Pin) worker i is bound to the i-th CPU of
// the process's affinity set.
//
// A worker looks for work in this order: its own deque, newest first (the
// work it just forked, hot in its cache; the tasks one task spawned in a
// row with SpawnValue, though, in the order it spawned them: siblings.go);
// a random victim's deque, oldest first (the largest pieces of work, so
// steals are rare), trying 8 victims from a random start (every other
// worker in its last search before it sleeps) and trying again if any
// steal lost a race; then the injector, the FIFO of jobs submitted from
// outside. Out of
// work, it goes through package sleep's idle protocol: pause, yield, then
// sleep until work is posted or the latch it waits on is set.
//
// # Join
//
// JoinCurrent(a, b) stores b in the worker's record for this join depth,
// runs a, then takes b back: if nobody stole it, the worker runs b itself
// (the common case). The records of joins in progress are the worker's
// private stack of jobs, and only the oldest is kept exposed on the public
// deque (Worker.Offer explains this lazy publication), so the common case
// costs no atomic read-modify-write and no store beyond the record's own;
// the fast paths (Enter, Offer, TryTakeBack) make no call and inline into
// every fork. If b was
// stolen, the worker runs other work until the thief sets b's latch; it
// never blocks its thread while work exists, and if it sleeps the thief
// wakes it. Helping nests jobs on the waiting worker's stack; a worker
// already 64 jobs deep that waits for a stolen half takes no more (see
// waitUntil, and Rayon issue #854 for what happens otherwise).
//
// Jobs that another thread may reach must not live on a goroutine stack:
// Go moves stacks when they grow, and a thief would then run a stale copy.
// (Rayon keeps join jobs on the stack; that is unsound in Go.) Instead each
// worker keeps a stack of reusable records, one per join depth
// (Worker.Enter/Leave): joins nest strictly on a worker, because a join
// returns only after everything it started, including the work it helped
// with while waiting. A record's latch is reset only when its job was
// stolen (see Job), so the fork path does not pay an atomic store for it.
//
// Join calls a in place, so a need not be on the heap. A goroutine that is
// no worker keeps that by calling a itself while b goes to the pool
// (JoinOffPool, offpool.go).
//
// # The fork protocol
//
// Every two-way fork (JoinCurrent, behind pool.Join and Pool.Join;
// forkjoin's fork, behind Call and Do; forkjoin.Join) follows the same
// steps, spelled out in each rather than shared. A helper that wrapped
// Enter, Offer or TryTakeBack would exceed the compiler's inlining budget and
// add a call to every fork, and one function generic over the record type
// would call each half through the instantiation's dictionary, an
// indirect call the compiler cannot inline and that makes everything the
// halves capture escape to the heap. What can be shared is: the progress
// constants (ForkRunningA, ForkRunningB, ForkDone) and the unwinding
// after a panic (Worker.UnwindFork). The fork suite in package forkjoin's
// tests (fork_suite_test.go) runs every entry point through the same
// cases, so the copies cannot drift apart. (ForChunks keeps its record
// the same way, step 1 and Leave, around a counted batch instead of one
// job.)
//
//  1. slot := w.Enter(): the slot for this join depth, with the record a
//     join here used last; the fork type-asserts it to its record type and
//     makes and holds one on mismatch (slot.Hold(rec, &rec.job)).
//  2. Store the second half (function, argument) in the record. Its job
//     is now the worker's newest private job.
//  3. w.Offer(): publish the oldest private job if a thief may want one.
//  4. step := ForkRunningA; defer a function that, unless step is
//     ForkDone, calls w.UnwindFork(&rec.job, step, recover()), clears the
//     record and raises what UnwindFork returned. Then run the first half
//     in place. If it panics, UnwindFork takes the second half back and
//     runs it, or waits for its thief, before the record is reused; the
//     second half's panic, if any, loses to the first's.
//  5. if w.TryTakeBack(&rec.job) || w.TakeBack(&rec.job): the frame ends
//     and nobody stole the job; step = ForkRunningB and run the second
//     half in place, from the fork's own variables (its forks may reuse
//     the slot; a panic there unwinds through step 4's function).
//     Otherwise the thief ran it and set the latch: read its result and
//     panic from the record, then rec.job.Latch.Reset() (only a stolen
//     job's latch was touched). TakeBack runs other jobs while it waits,
//     each catching its own panic, so no panic unwinds out of this step.
//  6. step = ForkDone, clear the record's references (for the GC), then
//     raise the second half's panic, if the thief recorded one, as a
//     *PanicError.
//
// So a fork returns or raises only after both halves have finished, and
// raises the first half's panic when both panicked.
//
// # Finding the current worker
//
// Rayon uses a thread-local to find the worker running the caller; Go has
// none. On amd64 and arm64, currentG reads the running goroutine's g
// pointer (from TLS or the g register) in two instructions, and a lock-free
// table maps it to the worker (CurrentWorker, a hash, a load and a
// compare; BenchmarkWorkerIndex in package pool times the whole public
// call, docs/design.md has its figures). Elsewhere the goroutine id parsed
// from runtime.Stack is the key: correct but far slower.
//
// # Priorities and bulk spawns
//
// Spawned tasks may carry a priority level (Scope.SpawnPriority): levels
// above 0 have their own deque per worker and their own injector, and a
// worker looking for work takes the most urgent level first; counts of the
// queued tasks per level let a worker tell with one load whether anything
// more urgent waits (priority.go explains the counts, the policies and the
// strict mode's guarantee). Joins stay at level 0 and never touch the
// counts. A bulk spawn (Scope.SpawnMany, ForChunks under forkjoin.For)
// queues n tasks as one job whose runner hands half of what is left to
// idle workers on demand (batch.go).
//
// # Calls from outside, and between pools
//
// Registry.Run from a goroutine that is not a worker injects a job and
// blocks the goroutine on a channel until the job is done. From a worker of
// another registry it injects the job and keeps serving its own registry
// (WaitUntil on a latch the job sets), so pools calling into each other
// cannot deadlock. From a worker of the same registry it simply calls.
//
// # Panics
//
// Every job catches its panic where it happens (Registry.Catch, keeping the
// stack in a *PanicError) and hands it to whoever waits for the job; Join,
// Scope and Run re-panic with the first panic only after every function
// they started has returned, so no record is reused while a thief still
// runs in it. What user code receives is the registry's PanicValue of the
// record (pool's PanicError, the same memory), and a re-raised one that
// unwinds into an enclosing job is recognised by it and not wrapped again.
// Detached tasks (Registry.Spawn) hand their panic to the configured
// handler, which by default crashes the program as an unrecovered goroutine
// panic would.
//
// # Work-span analysis
//
// Analyze (pool.Analyze) runs a function on a private registry of one
// worker whose public deque is a variant (Research.Deque) that times the
// strands between forks and runs every job it pops in place, serially
// (analyze.go). A worker with a variant publishes every fork and takes
// every fork back through that deque, so the fork paths have no branch
// for the analysis. The analysis worker stands in for every registry:
// Run, Join, Scope, Spawn, Submit and NewGroup on any registry run on it
// in place (Worker.analysing, tested only after the check for the
// worker's own registry has failed).
//
// # The engine's map
//
// Where each thing happens, for a reader looking for it. Files are in
// this package unless named.
//
// Forks. JoinCurrent (join.go) is pool.Join's whole path; forkjoin's
// typed forks take the same steps through Enter, Offer, TryTakeBack and
// TakeBack (worker.go). Publishing a private job: Offer and publishOldest
// (worker.go). Spawned tasks: Scope.spawn and queue (scope.go), SpawnValue
// (spawnvalue.go), bulk spawns (batch.go), running a task's descendants
// in place (descendants.go).
//
// Steals. findWork (worker.go) decides the order: levels above 0
// (findAbove, priority.go), own public deque, steal (worker.go), the
// injector (inject.go). Every steal goes through stealRound, whose callers
// are steal, stealLevel (priority.go) and the isolated search
// (findIsolated, isolate.go).
//
// Waits: each loop and what it must honour (help depth, isolation, scope
// credits, the analysis worker's order, the sleep protocol's counts):
//
//   - waitUntil (worker.go): joins (bounded help: maxHelpDepth, then
//     sleepUntil), scopes, futures, Run from another pool's worker, Block,
//     and the main loop's wait on terminate. Out of local work it calls
//     look, which goes through package sleep's idle protocol (StartLooking,
//     NoWorkFound, WorkFound), or lookIsolated inside an Isolate region.
//   - waitGroup (group.go): a group's Wait on a worker, waitUntil on the
//     group's done latch.
//   - HelpUntil (group.go): waits without a latch (a group's limit, a
//     second Group.Wait), polling its condition between jobs.
//   - runAsSpare (spares.go): a spare's loop between tasks.
//   - off-pool waits, outside any worker: Run and JoinOffPool block on a
//     channel (run.go, offpool.go), a group's Wait on the group's wake
//     channel (group.go), a guest helps as a worker would (guest.go).
//
// Parks. Every park inside a worker marks itself in package sleep
// (Parked), or the monitor would take the worker for one blocked in a
// task and start a spare:
//
//   - the protocol's sleep (sleep.Sleep.NoWorkFound, from look);
//   - ParkOnLatch: sleepUntil (worker.go) and an isolated wait with
//     nothing to do (lookIsolated, isolate.go);
//   - ParkMarked, the one way to park otherwise: HelpUntil's short sleeps
//     (group.go) and a surplus worker's park (parkSurplus, size.go);
//   - a spare between tasks waits through ParkMarked too (waitPosted); a
//     dormant one, which the monitor does not watch, outside it
//     (waitActivation, spares.go).
//
// TestEveryParkIsMarked (parks_test.go) finds every blocking operation in
// this package (a channel receive, a select, time.Sleep, a condition's
// Wait) and fails unless it is inside ParkMarked or in a function its
// list names with the reason it needs no mark.
//
// Blocked tasks. The monitor (monitor.go, monitorRound) reads the state
// of each worker's and spare's goroutine (gstate.go), starts and retires
// spares (spares.go), reads GOMAXPROCS for the registry's size (size.go),
// and reports a pool whose every worker is blocked with work pending
// (noteStall). pool.Block is the explicit form (block.go: the task's
// function runs on a goroutine while the worker waits in waitUntil).
//
// Size. How many workers there are and may look for work (size.go):
// checkProcs when a call from outside finds the registry idle (admit,
// registry.go), in look before a main-loop worker sleeps, and in every
// monitor round; a reading that differs sends it to resize, which reads
// GOMAXPROCS again under its lock, so that a stale reading never sets an
// older size back.
//
// Calls from goroutines. Run (run.go) admits the call (admit), then runs
// it on a guest slot (acquireGuest, runAsGuest, leaveGuest: guest.go) or,
// without one, injects it (runInjected). Nothing on a guest's way in or
// out waits on a lock: callers compute side by side, and a lock between
// them turns into a queue behind their time slices (acquireGuest, and
// lockForGuest in spares.go, say why). What a call would allocate each
// time and may keep for the next waits in the worker's scratch cell
// (Worker.Scratch; forkjoin's Fold keeps its folder there). While the
// guests fill the Ps (saturated, guest.go), forkjoin's Fold and Reduce
// called from a goroutine take no slot: EnterSerialCall admits them,
// counted as guests in a call, and they run serially on the caller until
// Overdue.
//
// # Lifecycle
//
// Close refuses new calls from outside, waits for calls in progress and for
// detached tasks (tasks may still spawn while it waits: they are part of
// what it waits for), then sets every worker's terminate latch and waits
// for the worker goroutines, and with them their threads, to end.
package runtime
