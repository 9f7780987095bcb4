// Package sleep is part of spindle's engine: the idle protocol of its
// workers. It is used by spindle's own packages (package runtime calls it)
// and makes no compatibility promise; its API may change in any release.
// Programs do not import it: they use package pool and package forkjoin,
// and package deque if they want a work-stealing deque of their own.
//
// It decides when the idle workers of a pool go to sleep and wakes them
// when there is work again, without ever leaving a job behind with every
// worker asleep. It follows the jobs-event-counter (JEC) scheme of Rayon's
// thread pool: a busy pool pays one atomic load per published job and an
// idle pool burns no CPU. The engine (package runtime) owns the deques, the
// injector and the search for work; this package sees a shared word of
// counters, one sleep slot per worker, and the worker's latch.
//
// # The protocol
//
// One atomic word holds sleeping (workers registered to block and not yet
// woken), inactive (workers between StartLooking and WorkFound; sleeping <=
// inactive) and the JEC. The JEC only grows; it is odd ("sleepy") while
// some worker has announced, since the last post of work, that it is about
// to sleep. markSleepy makes it odd and returns it as the worker's
// snapshot; every post (markActive) makes it even again, and writes nothing
// when it is even (the hot path: one load); tryAddSleeping(snapshot)
// registers a sleeper only while the JEC still equals the snapshot.
//
// A worker out of work calls StartLooking, then NoWorkFound after each
// failed search: CPU pauses, then sched_yield, then one Gosched (goroutines
// it readied on its P run now, not when sysmon retakes the P) and
// markSleepy, one more full search, then sleep: latch unset -> sleepy, lock
// its mutex, latch sleepy -> sleeping, tryAddSleeping (back out if the JEC
// moved), a last look at the injector (back out if it has work), blocked =
// true, park. WakeWorker wakes it under the same mutex, so outside the
// mutex sleeping equals the number of workers with blocked set. WorkFound
// ends a search and, while work is queued, wakes up to two sleepers: a
// chain wake-up that spreads a burst over the pool. A post that finds
// sleepers rereads the counters through a full barrier and wakes as many
// as the jobs need beyond the workers awake and idle.
//
// # Why no wake-up is lost
//
// Go's atomics are sequentially consistent: they fall in one total order.
// A poster publishes its job, then loads the counters; a sleeper announces
// itself sleepy, searches, then registers with its CAS. If the search
// missed the job, the poster's load follows the announcement: before the
// registration, the post moves the JEC and the CAS fails; after it, the
// poster sees the sleeper and wakes it, or counts on an awake idle worker,
// which either searches after the post or, having found other work, leaves
// the idle count before it asks whether work is queued, and so sees the
// job and wakes sleepers. Injected jobs have a second guard: the sleeper
// looks at the injector after registering (store, then load, on both
// sides). A latch's setter swaps the latch word and wakes under the
// worker's mutex, which the waiter holds from its sleepy -> sleeping step
// until it blocks or backs out. A deque that publishes with a release
// store (deque.PublishWithRelease) breaks the poster's store-then-load
// order; FenceWhenSleepy (a membarrier on the sleeper's side) and the
// post's reread of the counters restore it.
//
// Parkers: a futex word on Linux, a channel elsewhere or with the build tag
// spindle_portable (Backend names the one compiled in). A worker asleep in
// the futex keeps its P until sysmon retakes it; the Gosched before
// sleeping and the engine's hand-off of its P to a readied caller limit
// what waits on it.
//
// sleep/NOTES.md has the protocol step by step, the
// whole argument case by case, what a sleeping worker's P costs other
// goroutines, and the measurements behind the tunables and the parker.
package sleep
