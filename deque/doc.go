// Package deque holds the work-stealing deques under spindle's workers.
//
// For now it has one, [ChaseLev]: the dynamic circular deque of Chase and
// Lev ("Dynamic Circular Work-Stealing Deque", SPAA 2005), with the memory
// orderings that Lê, Pop, Cohen and Zappa Nardelli proved correct for the
// C11 memory model ("Correct and Efficient Work-Stealing for Weak Memory
// Models", PPoPP 2013), carried over to Go.
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
//   - Pop first reserves the newest index by storing bottom-1, then reads
//     top. If top is still below the reserved index, no thief can reach it
//     and the item is the owner's without a CAS. If they are equal, it is
//     the last item and the owner competes for it like a thief, by CAS on
//     top, then puts bottom back to top. If top is above it, the deque was
//     empty and Pop undoes its reservation.
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
//     A thief that sees the new bottom also sees the item.
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
// The slots themselves are atomic pointers. A thief's read of a slot is
// speculative and may overlap the owner's write of the same slot for a
// later index; its CAS then fails and the value is thrown away, but with
// plain memory that overlap would still be a data race in Go's model (and
// a report from the race detector). Atomic slots make it well defined.
//
// The price of seq-cst everywhere is that on amd64 every atomic store is an
// XCHG, a full barrier, where C11 would emit plain moves for the relaxed
// and release stores: Push is two such stores, Pop two or three plus a CAS
// for the last item. That is most of the Push+Pop figure below.
//
// # Memory management
//
// Growth never reuses or frees a ring: a thief may still be reading the old
// one. That is safe because the owner never writes to a ring after
// replacing it, and a thief can only win, through an old ring, indices
// that were already in it when it was copied. The garbage collector frees
// old rings once no thief holds them. The ring never shrinks.
//
// Neither Pop nor Steal clears the slot it took, and Push skips its slot
// store when the slot already holds the item being pushed. Go's atomic
// stores are full barriers (XCHG on amd64); for an owner that pushes the
// same reused records again and again at the same depths, as spindle's
// runtime does, this leaves one barrier per Push (bottom) and one per Pop
// (bottom), the two the algorithm needs. The price is that a taken item
// stays referenced from its slot until the slot is reused or the ring is
// dropped: at most one ring of stale pointers.
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
// # Performance
//
// Medians of five runs of
//
//	go test -run '^$' -bench . -benchmem -count 5 ./deque
//
// with go1.26.8 linux/amd64 on a KVM guest with two vCPUs (nproc 2;
// /proc/cpuinfo says "Intel(R) Xeon(R) Processor", a Sapphire Rapids-class
// part by its feature flags), taken while nothing else was using the CPUs.
// The machine is shared and noisy: within that run the five figures of a
// row spread by up to 25%, and medians moved by about as much between
// runs on other occasions.
//
//	PushPop                       54.0 ns/op  0 B/op  0 allocs/op
//	Steal                         16.5 ns/op  0 B/op  0 allocs/op
//	OwnerThroughput/thieves=0     44.8 ns/op  0 B/op  0 allocs/op
//	OwnerThroughput/thieves=1     62.8 ns/op  0.99 M steals/s  0.99 M attempts/s
//	OwnerThroughput/thieves=3      137 ns/op  1.43 M steals/s  1.49 M attempts/s
//
// PushPop leaves the deque empty after every pair, so each Pop takes the
// last-item path: a CAS and one more store (bottom put back). The
// thieves=0 row is the same pair on a non-empty deque: then four seq-cst
// stores (each an XCHG on amd64) and a few loads. A lone Steal is three
// loads and a CAS.
//
// After Push learned to skip the slot store for an item already in its
// slot and Pop stopped clearing slots (the benchmarks push the same item
// over and over, as spindle's runtime does with its frames), the same
// command on the same machine, medians of five, load average under 1:
//
//	PushPop                       40.8 ns/op  0 B/op  0 allocs/op
//	Steal                         14.7 ns/op  0 B/op  0 allocs/op
//	OwnerThroughput/thieves=0     27.5 ns/op  0 B/op  0 allocs/op
//	OwnerThroughput/thieves=1     37.7 ns/op
//	OwnerThroughput/thieves=3     72.7 ns/op
//
// A pair on a non-empty deque now costs two XCHGs (bottom in Push and in
// Pop). spindle's runtime avoids even those on most forks by keeping
// jobs on a private stack and exposing one at a time (runtime.Worker.Push).
//
// One thief stealing once a microsecond costs the owner about 18 ns per
// pair. That is cache-line traffic, not CPU sharing: in a side experiment
// (3 runs each, same owner loop) a thief that only spun on the clock cost
// the owner nothing, one that also loaded top and bottom once a
// microsecond cost about 10 ns per pair, and one that did a full Steal,
// which also writes top, about 17 ns. Spread over the 15 to 25 pairs the
// owner runs per microsecond, that is a few hundred nanoseconds of owner
// time per steal, the price of pulling lines back from the other core on
// this virtual machine. With three thieves there are four busy goroutines
// on two CPUs: the owner loses about half its CPU time, and the
// time-sliced thieves reach only half their combined target pace of 3 M
// attempts/s (4% of the attempts fail, mostly Empty while the owner is
// descheduled and has not topped up). That row measures oversubscription
// more than the deque.
package deque
