// Package deque holds the work-stealing deques under spindle's workers.
//
// The runtime's is [ChaseLev]: the dynamic circular deque of Chase and
// Lev ("Dynamic Circular Work-Stealing Deque", SPAA 2005), with the memory
// orderings that Lê, Pop, Cohen and Zappa Nardelli proved correct for the
// C11 memory model ("Correct and Efficient Work-Stealing for Weak Memory
// Models", PPoPP 2013), carried over to Go. Four more from the literature
// sit next to it for comparison, [ABP], [BWoS], [Locked] and [Bulk], all
// behind the [Deque] interface; see Variants below.
//
// # Use
//
// A deque has one owner, the goroutine (in spindle, the worker) that calls
// [ChaseLev.Push] and [ChaseLev.Pop]; they work at the bottom end, last in
// first out, so the owner runs its newest, smallest, cache-hot task next.
// Any goroutine may call [ChaseLev.Steal], which takes the oldest item from
// the top end: in fork-join code that is the biggest piece of work left,
// the one most worth moving to another core. Steal reports [Success],
// [Empty], or [Retry] when it lost a race for the item; Retry does not mean
// the deque is empty. [ChaseLev.Len] is a snapshot. Items are pointers and
// nil is reserved for "nothing", so Push panics on nil.
//
// Nothing blocks and nothing allocates except growth: Push on a full deque
// doubles the ring. Push and Pop cost a handful of atomic operations and
// no CAS, except that Pop of the last item races thieves for it with one.
//
// # The algorithm
//
// Two counters, top and bottom, index an unbounded logical array; the items
// live at indices [top, bottom), and index i is stored in slot i mod size
// of a power-of-two ring. Only the owner writes bottom. Everyone advances
// top, always by compare-and-swap from an observed value t to t+1, and top
// never goes back, so a successful CAS names exactly one winner for index t.
//
//   - Push(v) writes v into slot bottom, then publishes it by storing
//     bottom+1. If the ring is full it first copies [top, bottom) into a
//     ring twice the size, at the same indices, and publishes the new ring.
//   - Steal reads top, then bottom; if top < bottom it reads the ring and
//     the slot at top, then tries CAS(top, t, t+1). Only a successful CAS
//     makes the item its own; otherwise it returns Retry and discards what
//     it read, which may be stale.
//   - Pop first reads top. Top only grows, so if the deque looks empty it
//     stays empty (Pop returns nil), and if it looks like one item the
//     owner competes for it like a thief, by CAS on top, without touching
//     bottom. Otherwise it reserves the newest index by storing bottom-1,
//     then reads top again. If top is still below the reserved index, no
//     thief can reach it and the item is the owner's without a CAS. If
//     they are equal (thieves took the others meanwhile), it is the last
//     item and the owner competes for it by CAS on top, then puts bottom
//     back to top. If top is above it, the deque became empty and Pop
//     undoes its reservation.
//
// # Memory ordering
//
// In C11 the algorithm gets by with relaxed accesses plus a few fences.
// Go's sync/atomic operations are all sequentially consistent: every one
// of them takes part in a single total order that all goroutines agree on,
// and a load that observes a store is synchronized after it. So each fence
// in the C11 version is simply the seq-cst atomic that sits where the fence
// would be, and the places where the proof needs an ordering are:
//
//   - Push: the slot store before the bottom store (C11: a release fence).
//     A thief that sees the new bottom also sees the item. (On amd64 a
//     plain store and a release store; see below.)
//   - Grow: the copy into the new ring before the ring pointer is stored
//     (C11: release, consume on the thief's side). A thief that sees the
//     new ring sees the copied items.
//   - Pop: the store of bottom-1 before the load of top (C11: a seq-cst
//     fence). Together with the thief's load of top before its load of
//     bottom (C11: another seq-cst fence) this is the
//     store-buffering pattern: in a single total order the owner and a
//     thief cannot both miss each other's step, so they never both think
//     they own the last item without one of them going through the CAS.
//   - Steal: the ring load after the bottom load. A bottom that covers an
//     item pushed after a grow was stored after that grow's ring store, so
//     the thief reads the new ring, not an old one whose slot holds
//     something else.
//   - The CASes on top are seq-cst in C11 as well.
//
// The slots are atomic pointers for the thieves. A thief's read of a slot
// is speculative and may overlap the owner's write of the same slot for a
// later index; its CAS then fails and the value is thrown away. With
// atomic reads on the thief's side that overlap is a word-sized race at
// worst, for which Go's memory model guarantees that the read sees one of
// the values written; race-detector builds make the owner's write atomic
// too, so that the detector sees no race at all.
//
// The price of seq-cst everywhere is that on amd64 every atomic store is an
// XCHG, a full barrier, where C11 would emit plain moves for the relaxed
// and release stores. Push needs no barrier at all, only that the slot
// store stays before the bottom store, which x86-TSO keeps for any two
// stores. A deque switched to release pushes (ChaseLev.PublishWithRelease;
// linux/amd64 outside race-detector builds) stores bottom with a
// one-instruction assembly function (release_linux_amd64.s): a plain move,
// behind a call that the compiler does not move memory accesses across.
// BenchmarkPushPop went from 25 to 14 ns. The thief's view of that
// publication rests on x86-TSO and on the compiler keeping program order
// around a call, not on a happens-before edge of Go's memory model (the
// move is not a Go atomic); the race detector never sees this path, since
// race builds keep the seq-cst store. On linux/amd64 every deque writes its
// slots with plain stores: ordered before a seq-cst bottom store by Go's
// memory model, before a release one by program order.
//
// Release pushes take away a full barrier that callers may have leaned on:
// a Push followed by a load of some word W of the caller's is no longer
// ordered store-then-load, so a thread that writes W and then looks at the
// deque could miss the item while the owner misses the write (store
// buffering). A pool's sleep protocol is such a handshake (push a job,
// then load the sleep counters; announce sleepiness, then search the
// deques). The thread on the slow side calls SyncWithOwners between its
// write and its look: a membarrier system call, which makes every running
// thread of the process execute a full barrier, so the owner's pending push
// becomes visible or its load comes after the write. The fast side pays
// nothing. PublishWithRelease grants release pushes only if the process
// registers for membarrier (Linux 4.14 and later); deques that never ask
// keep the seq-cst Push.
//
// Pop of one of several items still stores bottom with an XCHG: that
// store-load pair is the fence the algorithm itself needs (two stores plus
// a CAS when thieves race it to the last item; an item seen alone takes
// just the CAS, an empty deque nothing). Other platforms keep Go's seq-cst
// stores everywhere (on arm64 an STLR, a release store in any case).
//
// # Memory management
//
// Growth never reuses or frees a ring: a thief may still be reading the old
// one. That is safe because the owner never writes to a ring after
// replacing it, and a thief can only win, through an old ring, indices
// that were already in it when it was copied. The garbage collector frees
// old rings once no thief holds them. The ring never shrinks.
//
// Neither Pop nor Steal clears the slot it took (clearing would be one
// more store, a full barrier where slots are stored atomically), and Push
// skips its slot store when the slot already holds the item being pushed,
// as it does for an owner that pushes the same reused records again and
// again at the same depths (spindle's runtime). The price is that a taken
// item stays referenced from its slot until the slot is reused or the ring
// is dropped: at most one ring of stale pointers.
//
// # Layout
//
// top, bottom and the ring pointer sit 128 bytes apart. Thieves write top
// and the owner writes bottom, so they must not share a cache line; 64
// bytes would separate them on x86, but Intel's adjacent-line prefetcher
// fetches lines in 128-byte pairs and would keep them coupled, and several
// arm64 cores (Apple's among them) have 128-byte lines. The ring pointer,
// read by everyone on every call and written only on growth, gets a line of
// its own so that it stays cached everywhere.
//
// # Testing
//
// The tests cover the sequential contract (LIFO Pop, FIFO Steal, scripted
// mixes, Len, growth from one slot past a million items,
// zero allocations); an exactly-once stress test where one owner pushes and
// pops a million items at random against three thieves and every item must
// come out exactly once, with pushes = pops + steals + remaining; and a
// linearizability check that records hundreds of short concurrent
// histories on real deques and verifies them with porcupine against a
// sequential model, plus histories the checker must reject. FuzzChaseLev
// compares single-goroutine operation sequences against a slice model.
//
// # Variants
//
// [Deque] is the single-item contract every deque here meets: TryPush,
// which reports false when a bounded deque is full, Pop, Steal and Len.
// ChaseLev meets it through TryPush, which is its Push (it grows, so it is
// never full); its own API is unchanged. The others:
//
//   - [ABP], after Arora, Blumofe and Plaxton (SPAA 1998): a bounded
//     array, not a ring. Thieves CAS one 64-bit word holding top and a
//     tag; the owner's Pop is the Dekker pattern of ChaseLev's plus a CAS
//     for the last item, and when it finds the deque empty it moves top
//     and bot back to 0 and bumps the tag. The tag is what makes reusing
//     low slots safe: without it a thief that read top and its slot before
//     a reset could succeed with its CAS after the owner had refilled the
//     deque up to the same top. ABP is full when bot reaches the capacity,
//     even if thieves freed slots at the start; those come back only when
//     the owner empties the deque.
//   - [BWoS], after the block-based deque of Wang et al. (OSDI 2023), LIFO
//     variant, with the block count and size as parameters. The owner
//     works alone in its current block with plain loads and stores, no
//     atomic operation at all; thieves take only from blocks the owner has
//     granted them by leaving them, one CAS on the block's word (a version
//     and a claim index) per item. The owner takes its previous block back
//     with one CAS when its own runs empty, and reuses a block of the ring
//     once thieves have claimed all of it. The version in each word is
//     bumped by every grant, take-back and reuse, which rules out ABA; a
//     per-block count of finished thief reads lets entries be plain memory.
//     This is our reading of the design, not a port: we kept the blocks,
//     the owner's plain fast path, the per-block claim words and the rule
//     that thieves never enter the owner's block, and did not implement the
//     paper's probabilistic victim selection (victims are the runtime's
//     business) or its FIFO variant. The price shows in the contract: Steal
//     reports Empty while every item is in the owner's block (up to one
//     block of work that thieves cannot reach), TryPush can report full
//     below blocks*blockSize items when the owner's block was taken back
//     part-stolen, and Len is the owner's alone.
//   - [Locked]: a growable ring behind a sync.Mutex, the baseline.
//   - [Bulk], after the bulk work-stealing queue of Kataru, Davarnia and
//     Jannesari (2026): linked fixed-size segments, so it grows without
//     copying; PushBatch publishes a whole batch with one atomic add;
//     StealBatch and StealFraction (steal-half and the like) claim many
//     items with one CAS. The paper assumes at most one concurrent
//     stealer. Here top and bottom share one 64-bit word that the owner
//     changes by atomic add (Push) and CAS (Pop) and thieves by CAS, so a
//     claim of k items races the owner's Pop exactly as a claim of one
//     does and thieves exclude each other the same way: any number of
//     thieves is safe, and the tests run the batch operations with one and
//     with three. The cost is that the owner's every operation is an atomic
//     read-modify-write on a word thieves write (on amd64 the same full
//     barrier as the seq-cst stores ChaseLev already does), and that a CAS
//     fails whenever the other side moved its end; both sides retry.
//
// Every ordering argument relies on Go's sync/atomic operations being
// sequentially consistent, as in ChaseLev: a load that observes a store is
// synchronized after it, and all of them fall in one total order. The
// type documentation of each variant states its invariants and why they
// hold. Tests for all of them, table-driven (variants_test.go,
// variants_concurrent_test.go, variants_lin_test.go): random
// single-goroutine runs against a sequential specification of each
// variant (spec_test.go: ABP's full-until-reset, BWoS's blocks and ring,
// the plain deque for the others); exactly-once runs with an owner and
// three thieves, both with random pushes and pops and with the fill-drain
// pattern of bench/cmd/dequebench, small sizes so that every boundary is
// crossed thousands of times; and porcupine checks of thousands of short
// concurrent histories per variant against the same exact specifications,
// batch operations included for Bulk.
//
// # Measurements
//
// Measurements: docs/deque-notes.md in the repository, with the command,
// the machine and the date of each run. BenchmarkPushPop, BenchmarkSteal
// and BenchmarkOwnerThroughput in this package time ChaseLev;
// bench/cmd/dequebench times every variant alone and against a thief;
// BenchmarkDequeKinds in package bench runs fib and quicksort on each
// through the engine's experiment hook (internal/engineopt).
//
// In short: with a thief on the other core, the owners of ChaseLev and ABP
// wait for the cache lines of top and bottom at every operation, while
// BWoS's owner touches a line a thief uses only at block boundaries, at the
// price of the Empty and full results its contract allows; Bulk moves a
// whole batch for one atomic operation. Inside the runtime, publishing
// every fork costs more than the choice of deque, which is why the default
// keeps forks private and exposes one at a time.
package deque
