// Package sleep is part of spindle's engine: the idle protocol of its
// workers. It is used by spindle's own packages (package runtime calls it)
// and makes no compatibility promise; its API may change in any release.
// Programs do not import it: they use package pool and package forkjoin,
// and package deque if they want a work-stealing deque of their own.
//
// It decides when the idle workers of a spindle pool go to sleep and wakes
// them when there is work again, without ever leaving a job behind with
// every worker asleep. It follows the jobs-event-counter (JEC) scheme of
// Rayon's thread pool: a busy pool pays one atomic load per published job,
// an idle pool burns no CPU, and a sleeping worker is back within
// microseconds.
//
// The engine (package runtime) owns the deques, the injector and the
// search for work; this package only sees what it needs: a shared word of
// counters, one sleep slot per worker, and the worker's latch.
//
// # The counters word
//
// One 64-bit atomic word holds three fields, so that a poster reads the
// whole sleep state of the pool with a single load:
//
//	bits  0..15  sleeping  workers that registered to block and were not yet woken
//	bits 16..31  inactive  workers between StartLooking and WorkFound (looking,
//	                       sleepy or asleep); sleeping <= inactive
//	bits 32..63  JEC       the jobs event counter
//
// The JEC only grows (modulo 2^32) and its parity is a flag. It is odd
// ("sleepy") when some worker announced, since the last post of work, that
// it is about to sleep; even otherwise. markSleepy makes it odd (a CAS
// from even to even+1, nothing if already odd) and returns the odd value as
// the worker's snapshot. markActive, called by every post, makes it even
// again (a CAS from odd to odd+1), and when it is already even it writes
// nothing: that is the hot path, one load, because no worker holds a
// snapshot that the post would have to invalidate. tryAddSleeping(snapshot)
// adds one sleeper with a CAS that succeeds only while the JEC still equals
// the snapshot: any post since the announcement made it fail.
//
// # The idle loop
//
// A worker out of local work calls StartLooking (inactive+1) and then
// alternates between searching for work (its deque, the others' deques,
// the injector; the engine's part) and calling NoWorkFound after each
// failed search. NoWorkFound escalates:
//
//   - rounds 0..spinRounds-1: pause the CPU (PAUSE/YIELD, about 1 µs a
//     round on the test machine); new work is found at the next search,
//     without a system call;
//   - up to roundsUntilSleepy: sched_yield, letting other threads of the
//     machine run on this CPU;
//   - round roundsUntilSleepy: runtime.Gosched (hand the P and its run
//     queue to another thread, see "Go specifics" below), then markSleepy
//     and keep the snapshot;
//   - next round (after one more full search): try to sleep.
//
// Trying to sleep, for a worker waiting on latch L:
//
//  1. L: unset -> sleepy (fails only if L is set: return, the caller sees it);
//  2. lock the worker's sleep mutex;
//  3. L: sleepy -> sleeping (fails only if L was set meanwhile: return);
//  4. tryAddSleeping(snapshot); if the JEC moved, undo L and go back to
//     searching (rounds restart at roundsUntilSleepy: one more Gosched,
//     announcement and search, no spinning);
//  5. hasInjected(): if the injector has work, undo (sleeping-1, L back to
//     unset) and search again;
//  6. blocked = true, unlock, park.
//
// Whoever wakes the worker (WakeWorker) does so under the same mutex:
// if blocked, it clears blocked, subtracts the sleeper from the counters
// and unparks it. So at any time, outside the mutex, sleeping equals the
// number of workers with blocked set. A woken worker resets L to unset
// (unless it is set) and starts the loop over from spinning.
//
// WorkFound ends a search (inactive-1). If some workers sleep and the
// engine reports work queued where they could take it (its queued
// function, called after the decrement), it wakes up to two of them: a
// worker that just found work while more is queued is evidence of a burst,
// and each of those, when it finds work in turn, wakes two more. This
// chain wake-up spreads a burst over the pool in a logarithmic number of
// steps, without making the poster of one job wake everyone. With nothing
// queued, nobody is woken: the wake-up would only delay the worker's own
// job.
//
// # Posting work
//
// NewInternalJobs (a worker pushed n jobs on its deque) and NewInjectedJobs
// (a goroutine outside the pool pushed n jobs on the injector, after
// making hasInjected true) both run markActive and look at the counters it
// returns. With no sleeper they are done. Otherwise they reread the
// counters through a full barrier (an atomic add of 0; "Why no wake-up is
// lost" says why) and, from that read, wake as many
// sleepers as the jobs need and no more: if the deque was not empty before
// the push, the idle workers evidently do not keep up, so min(n, sleeping)
// are woken; if it was empty, the awake-but-idle workers (inactive -
// sleeping) are expected to take the jobs, and only min(n - awake idle,
// sleeping) sleepers are woken.
//
// # Why no wake-up is lost
//
// All sync/atomic operations in Go are sequentially consistent: they appear
// in one total order, consistent with each goroutine's program order, and
// every load returns the latest store before it in that order. The
// injector publishes and takes jobs with such operations (or under a
// mutex, which is built on them), and so do the deques, except that a
// deque may publish with a release store (deque.PublishWithRelease; the
// workers' deques do on linux/amd64), which the two paragraphs after the
// first argument deal with. The arguments below use that order; "a <
// b" means a comes before b in it.
//
// Jobs pushed to a deque. The poster P does (p1) push job J, then (p2)
// markActive: a load of the counters and, if the JEC is odd, a CAS to
// make it even. The sleeper S does (s1) markSleepy, with snapshot v, then
// (s2) a full search, then (s3) the tryAddSleeping CAS, then blocks. Say S
// blocks without having seen J. Its search missed J, so s2 < p1, hence s1 <
// s2 < p1 < p2.
//
//   - If p2 < s3: p2 reads a JEC written at or after s1. If it is still v
//     (odd), P's CAS moves it to v+1; if it is not v, someone moved it since
//     s1. Either way the JEC differs from v at s3, the CAS fails, and S does
//     not block: contradiction.
//   - If s3 < p2: p2 reads counters that include S as sleeping (only S's
//     waker removes it, and that waker would wake S). So P sees a sleeper.
//     It wakes one unless it counts awake idle workers to take J. Each of
//     those W either has not yet done its last search (which then happens
//     after p2, so after p1, and sees J), or did it before p1 and will
//     attempt tryAddSleeping after p2; its snapshot predates p2 and the JEC
//     moved since (p2 itself moved it if it was odd; if it was even at p2 it
//     had already moved past W's odd snapshot), so W fails, searches again
//     and sees J. A worker W that finds other work first does (w1) its
//     decrement in WorkFound, then (w2) asks whether work is queued. P
//     counted W as idle, so p2 < w1, and p1 < p2 < w1 < w2: w2 sees J
//     (unless J was taken meanwhile), and W wakes up to two sleepers, who
//     search after p1, and comes back to search later itself. So J is not
//     stranded: some awake worker will search after p1.
//
// That argument takes p1 < p2 from the poster's program order, which Go's
// seq-cst atomics keep. A deque whose push is a release store (the
// workers' deques on linux/amd64, deque.PublishWithRelease) keeps it only
// for other stores: p2, a load, may be done while p1 still sits in the
// poster's store buffer, and then S can miss J while P misses S's odd JEC.
// The sleeper restores the order with a heavy fence F between s1 and s2
// (FenceWhenSleepy; deque.SyncWithOwners, a membarrier system call), which
// makes every running thread of the process execute a full barrier. P's
// barrier falls after p1 in P's program order, so J is visible to s2, or
// before p1, so p2 comes after F began, hence after s1, and P sees (and
// moves) S's odd JEC: the case p2 < s3 above. The posters pay nothing for
// it; a worker pays one system call each time it turns sleepy.
//
// The awake idle workers' case leans on p1 < p2 too: P counts W as idle,
// so p2 < w1 in the counters' order, and w2 must then see J. With a release
// push w2 could miss J while P wakes nobody (a store-buffering pair of P's
// push and load against W's decrement and look). So once markActive shows
// a sleeper, newJobs rereads the counters with an atomic add of 0, a full
// barrier after p1, and decides whom to wake from that read (p2 in the
// argument above): p1 < p2 < w1 < w2 holds again. Posts to a pool where
// nobody sleeps, the hot path, still cost one load.
//
// Jobs injected from outside. The JEC argument needs the poster's
// markActive to follow a push that the sleeper's last search could have
// seen; the injector gets a second, simpler guard that does not depend on
// it. The poster does (p1) publish J on the injector (hasInjected becomes
// true), then (p2) load the counters in markActive. The sleeper does (s3)
// tryAddSleeping, registering as sleeping, then (s4) hasInjected(). If s4
// does not see J, s4 < p1, so s3 < s4 < p1 < p2, and p2 sees S sleeping and
// wakes (subject to the awake-idle rule above, whose argument carries
// over). If s4 sees J, S backs out. This is the classic store-then-load
// pairing: of two goroutines that each write then read the other's
// variable, at least one sees the other's write.
//
// Latches. The setter does (t1) Swap(set) on the latch word, learning the
// old state, and if it was sleeping, (t2) WakeWorker: lock the worker's
// mutex and wake it if blocked. The waiter moves its latch unset -> sleepy
// (w1) before taking its mutex, sleepy -> sleeping (w2) under the mutex, and
// keeps the mutex until it has set blocked (or backed out at step 4 or 5).
// All transitions are on one word, so t1 falls somewhere among them:
//
//   - t1 < w1: w1 fails (the latch is set), the waiter returns and sees it;
//   - w1 < t1 < w2: the setter saw sleepy and wakes no one, but w2 fails
//     and the waiter returns without blocking;
//   - w2 < t1: the setter saw sleeping and calls WakeWorker. That needs the
//     mutex, which the waiter holds from before w2 until it has either set
//     blocked (then WakeWorker finds it blocked and wakes it) or backed out
//     without blocking (then its latch reset leaves set alone, and it sees
//     the latch at its next check).
//
// A setter may call WakeWorker late, after the waiter already went on and
// fell asleep again for another reason; that wake-up is spurious and
// harmless (the worker searches and sleeps again). Set must be the last
// access to the latch's record: the waiter may reuse it as soon as it sees
// the latch set, which is why WakeWorker takes a worker index.
//
// # Parkers
//
// park and unpark form a binary semaphore per worker. Every unpark pairs
// with exactly one blocked=true (WakeWorker unparks only after turning
// blocked from true to false), so a token is never doubled, and a token
// given before park is not lost. On Linux the parker is a futex word
// (FUTEX_WAIT_PRIVATE until the word is 1; unpark stores 1 and wakes one).
// Elsewhere, or with the build tag spindle_portable, it is a channel with
// room for one token. Backend names the one compiled in.
//
// # Go specifics: the P of a sleeping worker
//
// Workers are goroutines locked to their threads. A worker blocked in the
// futex system call still owns its P: the runtime's sysmon thread retakes
// the P of a goroutine stuck in a system call only after at least one of
// its ticks (20 µs, backing off to 10 ms when nothing happens), and, while
// its run queue is empty and another P is idle, not for 10 ms. Goroutines that wait in that
// P's run queue, or timers on its heap, wait for the retake, unless
// another P is idle to steal them. A worker parked on a channel gives its
// P back at once, but its wake-up is an ordinary goroutine wake-up: the
// woken worker is put in the run queue of the goroutine that woke it, and
// when that one keeps running (a worker that forks a job and goes on with
// the other half) the sleeper waits until another thread steals it.
//
// The Gosched in round roundsUntilSleepy addresses the first problem for
// what a worker leaves behind: the goroutines it readied while it worked
// (for example the caller whose result it just delivered) run then, not
// after sysmon's retake. The spinning phase before it still holds the P
// (about 30 µs on the test machine).
//
// That P retention is the price of the futex parker, and it is the default
// on Linux all the same: it wakes faster than the channel parker, and far
// faster at the tail when the waker stays busy, which is what a forking
// worker does (a woken channel waiter then waits for another thread to
// steal it, see above), for about the same idle CPU. The Gosched drains
// the P's run queue just before the futex call, so what remains exposed is
// what is queued on the P in the last microseconds; and the engine hands
// its P over right after it readies a caller waiting outside the pool,
// when it has no other work (runtime.Worker.handOffP). The channel parker
// never holds a P; it stays as the portable fallback (non-Linux, or the
// build tag spindle_portable).
//
// # Measurements
//
// Measurements: docs/sleep-notes.md in the repository: the cost of a post,
// wake-up latency with either parker, idle CPU, and how long a goroutine
// waits for the P of a sleeping worker, with the commands, the machine and
// the date. The benchmarks are in bench_test.go; the tunables of the idle
// loop (sleep.go) carry their own figures.
package sleep
