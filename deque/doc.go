// Package deque holds the work-stealing deques under spindle's workers.
//
// The runtime's is [ChaseLev]: the dynamic circular deque of Chase and
// Lev (SPAA 2005) with the memory orderings that Lê, Pop, Cohen and Zappa
// Nardelli proved correct for C11 (PPoPP 2013), carried over to Go. [ABP],
// [BWoS], [Locked] and [Bulk], from the literature, sit next to it for
// comparison, all behind the [Deque] interface; each type's documentation
// states its invariants and why they hold.
//
// # Use
//
// A deque has one owner, the goroutine (in spindle, the worker) that calls
// [ChaseLev.Push] and [ChaseLev.Pop]; they work at the bottom end, last in
// first out, so the owner runs its newest, smallest, cache-hot task next.
// Any goroutine may call [ChaseLev.Steal], which takes the oldest item from
// the top end: in fork-join code that is the biggest piece of work left.
// Steal reports [Success], [Empty], or [Retry] when it lost a race for the
// item; Retry does not mean the deque is empty. [ChaseLev.Len] is a
// snapshot. The owner may also reorder its newest items
// ([ChaseLev.ReverseNewest]) while no thief can be taking them. Items are
// pointers and nil is reserved for "nothing", so Push
// panics on nil. Nothing blocks and nothing allocates except growth: Push
// on a full deque doubles the ring.
//
// # Invariants
//
// Two counters, top and bottom, index an unbounded logical array; the
// items live at [top, bottom), index i in slot i mod size of a
// power-of-two ring. Only the owner writes bottom. Top never goes back and
// only moves by a CAS from an observed t to t+1, so a successful CAS names
// exactly one winner for index t. The orderings the proof needs are Go's
// sequentially consistent atomics where C11 has its fences: Push stores
// the slot before bottom, so a thief that sees the new bottom sees the
// item; growth copies the items before it publishes the new ring, and a
// thief loads the ring after bottom; Pop stores bottom-1 before it loads
// top while a thief loads top before bottom, so the two cannot both miss
// each other's step and never both take the last item without one of them
// going through the CAS. A ring is never reused or freed (a thief may
// still read an old one), and taken slots are not cleared, so at most one
// ring of stale pointers stays referenced.
//
// On linux/amd64 outside race-detector builds, a deque switched with
// [ChaseLev.PublishWithRelease] stores bottom in Push with a plain move
// (x86-TSO keeps two stores in order), where every Go atomic store is a
// full barrier. Push then no longer orders itself before the owner's later
// loads: a caller whose handshake relied on that (push a job, then load a
// word that another thread writes before it searches the deques) must have
// that thread call [SyncWithOwners], a membarrier system call, between its
// write and its search. Pop keeps its full barrier, the algorithm's own.
//
// top, bottom and the ring pointer sit 128 bytes apart: thieves write top
// and the owner bottom, and Intel's adjacent-line prefetcher and some arm64
// cores work in 128-byte units.
//
// deque/NOTES.md has the design in full (each
// ordering argument, memory management, the variants against their
// papers, what the tests check) and the measurements of every deque, with
// commands, machines and dates.
package deque
