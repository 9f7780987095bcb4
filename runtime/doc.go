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
// A worker looks for work in findWork's order (own deque newest first, a
// random victim's oldest first, then the injector), and out of work goes
// through package sleep's idle protocol (spin, yield, sleep).
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
// wakes it. Helping nests, within a bound (waitUntil).
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
// none. CurrentWorker looks the goroutine's identity (currentG, gid_*.go)
// up in a lock-free table (workertable.go); BenchmarkWorkerIndex in
// package pool times the whole public call, docs/design.md has its figures.
//
// # Priorities and bulk spawns
//
// priority.go argues the levels and policies, batch.go bulk spawns.
//
// # Calls from outside, and between pools
//
// Registry.Run says where such a call runs (the caller as a guest, or
// injected; from another pool's worker, which keeps serving its own).
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
// analyze.go: the analysis worker runs every fork in place and times it.
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
// in place (descendants.go), dropping a cancelled scope's tasks
// (scopeskip.go).
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
//     lookIsolated without a search), scopes, futures, Run from another
//     pool's worker, Block,
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
//   - ParkOnLatch: lookIsolated (isolate.go), the help bound's wait and
//     an isolated wait with nothing to do;
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
// Size. size.go: who reads GOMAXPROCS (CheckProcs), and resize.
//
// Calls from goroutines. Run (run.go), then a guest slot (guest.go:
// acquireGuest, runAsGuest, leaveGuest) or runInjected; no lock on the
// way in or out (lockForGuest says why). Fold and Reduce while the guests
// fill the Ps: EnterSerialCall. A call's reusable buffer: Worker.Scratch.
package runtime
