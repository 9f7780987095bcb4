package deque

import (
	"math/bits"
	"strconv"
	"sync/atomic"
)

// StealResult says what a call to Steal achieved.
type StealResult int

const (
	// Empty means the thief saw no item: top >= bottom when it looked.
	Empty StealResult = iota
	// Success means the thief took the oldest item.
	Success
	// Retry means the thief lost a race for the oldest item, to another
	// thief or to the owner's Pop of the last item. The deque may still
	// hold items; trying again (here or elsewhere) is the caller's choice.
	Retry
)

// String returns "Empty", "Success" or "Retry", or "StealResult(n)" for
// a value outside the enumeration.
func (r StealResult) String() string {
	switch r {
	case Empty:
		return "Empty"
	case Success:
		return "Success"
	case Retry:
		return "Retry"
	}
	return "StealResult(" + strconv.Itoa(int(r)) + ")"
}

// cacheLinePad is the distance kept between the deque's hot words.
//
// x86 cache lines are 64 bytes, but Intel cores (since Sandy Bridge) run an
// adjacent-line ("spatial") prefetcher that pulls in the 128-byte-aligned
// pair of a line on a miss, so two words 64 bytes apart can still ping-pong
// as if they shared a line. Apple's M-series and several other arm64 parts
// use 128-byte lines outright. 128 bytes covers both. The price is 512
// bytes per deque, and a runtime holds one deque per worker thread.
//
// The padding holds no matter how the allocator aligns the struct: two
// words at least 128 bytes apart can never sit in the same 128-byte-aligned
// pair of lines.
const cacheLinePad = 128

// defaultCapacity is the initial ring size when NewChaseLev gets a capacity
// hint <= 0.
const defaultCapacity = 32

// maxCapacity bounds the capacity hint and the ring's growth. The ring
// size is a power of two that must fit an int64 mask and an int slice
// length on every platform.
const maxCapacity = 1 << 30

// ChaseLev is the dynamic circular work-stealing deque of Chase and Lev
// (SPAA 2005) with the memory orderings of Lê, Pop, Cohen and Zappa
// Nardelli (PPoPP 2013), mapped to Go's sequentially consistent atomics
// (except, by choice, Push's publication: PublishWithRelease).
//
// One goroutine, the owner, calls Push and Pop at the bottom end; any
// goroutine may call Steal at the top end and Len. The zero value is not
// usable; call NewChaseLev. See the package documentation for the
// algorithm and its proof obligations.
//
// Logical indices top and bottom only grow (except that Pop moves bottom
// down by one and, when the deque turns out empty or it loses the last
// item, back up). The live items have indices [top, bottom); index i lives
// in ring slot i & mask. Indices are int64 and never wrap in practice: it
// would take 2^63 pushes.
//
// Taken items are not cleared from their slots (clearing would cost the
// owner a full-barrier store per Pop), so the deque may keep up to one
// ring's worth of taken items reachable until their slots are reused.
// Items that hold large data should drop it themselves once taken.
type ChaseLev[T any] struct {
	_ [cacheLinePad]byte // keep top off the line of whatever precedes us

	// top is the index of the oldest item. Thieves advance it by CAS to
	// claim an item; the owner advances it by CAS only to claim the last
	// item in Pop. It never decreases, so a CAS from an observed value t
	// cannot succeed after top has moved past t (no ABA).
	top atomic.Int64
	_   [cacheLinePad - 8]byte

	// bottom is one past the newest item. Only the owner writes it.
	bottom atomic.Int64
	_      [cacheLinePad - 8]byte

	// ring is the current buffer. Only the owner writes it (in grow);
	// everyone reads it. It gets its own line because it is read on every
	// operation and written almost never, so it can stay shared in every
	// core's cache instead of being invalidated by writes to top or bottom.
	ring atomic.Pointer[ring[T]]
	// release says Push publishes with a release store, not a full
	// barrier (PublishWithRelease). Set before the deque is used.
	release bool
	_       [cacheLinePad - 16]byte
}

// ring is a circular buffer of a power-of-two size. The slots are atomic
// pointers: a thief reads a slot speculatively, before it has won the item,
// and that read may run concurrently with the owner's write of the same
// slot for a later index (the thief's CAS then fails). Atomic reads make
// that overlap a word-sized race at worst, which Go's memory model defines
// (the read sees one of the values written); the owner writes slots
// through storeSlot, a plain store on linux/amd64 and an atomic one
// elsewhere and under the race detector (see the package doc).
type ring[T any] struct {
	mask  int64 // len(slots)-1; len(slots) is a power of two
	slots []atomic.Pointer[T]
}

func newRing[T any](size int) *ring[T] {
	return &ring[T]{mask: int64(size - 1), slots: make([]atomic.Pointer[T], size)}
}

func (r *ring[T]) slot(i int64) *atomic.Pointer[T] {
	return &r.slots[i&r.mask]
}

// NewChaseLev returns an empty deque whose initial ring holds capacity
// items. capacity is a hint: values <= 0 mean a small default (32), other
// values are rounded up to a power of two. The deque grows by doubling
// whenever a Push finds it full, so the hint only saves early growth. It
// panics if capacity exceeds 1<<30.
func NewChaseLev[T any](capacity int) *ChaseLev[T] {
	switch {
	case capacity <= 0:
		capacity = defaultCapacity
	case capacity > maxCapacity:
		panic("deque: NewChaseLev capacity " + strconv.Itoa(capacity) + " exceeds 1<<30")
	default:
		capacity = 1 << bits.Len(uint(capacity-1))
	}
	d := new(ChaseLev[T])
	d.ring.Store(newRing[T](capacity))
	return d
}

// Push adds v at the bottom of the deque. Only the owner may call it. It
// panics if v is nil, since nil is how Pop and Steal say "no item". It
// allocates only when the deque is full and has to grow.
//
// Push is a full barrier (Go's seq-cst store of bottom) unless the deque
// publishes with release stores (PublishWithRelease).
func (d *ChaseLev[T]) Push(v *T) {
	if v == nil {
		panic("deque: ChaseLev.Push of a nil item")
	}
	// The owner is the only writer of bottom and ring, so these loads
	// read its own latest values.
	b := d.bottom.Load()
	// top may be stale (thieves advance it concurrently), but only ever
	// too small, which can only make the deque look fuller than it is:
	// we may grow early, never overwrite a live item.
	t := d.top.Load()
	r := d.ring.Load()
	if b-t > r.mask { // b-t >= len(slots): full
		r = d.grow(r, t, b)
	}
	// Slot b&mask is free: its previous occupant, index b-len(slots), is
	// below top (we just checked b-t < len(slots)), so it has been taken,
	// and any thief still reading it speculatively will fail its CAS on
	// top because top has moved past that index for good.
	//
	// Skip the store when the slot already holds v. Where slots are
	// stored atomically (off amd64, and under the race detector) that
	// store is a full barrier; everywhere it carries the GC's write
	// barrier. Users that reuse their items (spindle's runtime pushes the
	// same per-depth job records over and over, at the same indices) then
	// pay neither. Leaving the slot as it is publishes the same value a
	// store would have, and any thief reading it sees v either way.
	if s := r.slot(b); s.Load() != v {
		storeSlot(s, v)
	}
	// Publish. This store must stay after the slot store above: a release
	// (the C11 version has a release fence here). Go's seq-cst store is at
	// least that; a deque that publishes with release stores uses a plain
	// move behind a call, which neither the compiler nor x86-TSO reorders
	// with the earlier store. A thief that loads bottom and sees b+1 therefore
	// sees v in the slot, and, because it loads ring after bottom, a ring
	// at least as new as r.
	storeBottom(&d.bottom, b+1, d.release)
}

// PublishWithRelease makes Push publish with a release store instead of a
// full barrier where that is possible (linux/amd64 outside race-detector
// builds, once the process is registered for membarrier), and reports
// whether it does. Call it before the deque is used. Push then no longer
// orders itself before the owner's later loads: an owner that pushes and
// then loads a word that a thief writes before looking at the deque (a
// store-buffering handshake) needs the thief to call SyncWithOwners in
// between (see the package doc). On amd64 a push then costs no XCHG, the
// full barrier of a Go atomic store; deque/NOTES.md has
// BenchmarkPushPop's figures for both.
func (d *ChaseLev[T]) PublishWithRelease() bool {
	d.release = releasePushAvailable()
	return d.release
}

// grow replaces the full ring old by one twice its size holding the items
// [t, b) at the same logical indices, publishes it and returns it. t may be
// stale; copying a few already-stolen items is harmless, since nobody will
// win them again (top is past them for good).
//
// The retired ring is left to the garbage collector, never reused: a thief
// that loaded it before the Store below may still read from it. That is
// safe because the owner never writes into a ring after replacing it (Push
// and Pop both reload d.ring), so the old ring stays frozen with exactly
// the values it had, and for every index a thief can win through it, that
// value is right: a thief holding the old ring loaded it before the Store
// below, so it read bottom before this Push's bottom.Store, so every index
// it saw in [top, bottom) is below b and was in old when we copied.
//
//go:noinline
func (d *ChaseLev[T]) grow(old *ring[T], t, b int64) *ring[T] {
	size := len(old.slots) * 2
	if size > maxCapacity {
		panic("deque: ChaseLev grew past 1<<30 items")
	}
	r := newRing[T](size)
	for i := t; i < b; i++ {
		r.slot(i).Store(old.slot(i).Load())
	}
	// Publish only after the copy: a thief that loads r sees the copied
	// items (the Store synchronizes with its Load).
	d.ring.Store(r)
	return r
}

// ReverseNewest reverses the order of the k newest items (of all of them,
// if the deque holds k or fewer), so that Pop returns the oldest of them
// first, and reports whether it did. Only the owner may call it. It leaves
// the deque as it is (false) when a thief may be taking one of them, or
// when they are all the deque holds and more than maxReverseAll; no item
// is ever lost or doubled.
//
// With an older item between them and the thieves' end, the owner first
// reserves the k items as a Pop reserves one, by moving
// bottom below them (a seq-cst store), then loads top. If top is still
// below them, no thief can take one: a thief wins index i only by a CAS
// of top from i, after loading bottom; top is below the k, and a thief
// whose CAS raises it to the first of them loaded bottom after ours (our
// store, then our load of a smaller top, then its CAS, in the one seq-cst
// order), so it saw the lowered bottom and the deque empty there. The
// owner then swaps the slots and publishes them again as Push does. If
// top has reached them, it restores bottom and gives up: the items are
// where they were.
//
// A runtime whose tasks spawn their children in order uses it to run them
// in that order (LIFO would run the last child first): for data laid out
// in the order it is built, such as a tree built first child first, the
// walk then goes forward through memory.
func (d *ChaseLev[T]) ReverseNewest(k int64) bool {
	b := d.bottom.Load()
	t := d.top.Load()
	if b-t <= k {
		// Fewer or exactly k: all of them. A runtime reversing the
		// tasks it just pushed finds fewer when thieves took the oldest;
		// it reverses the rest.
		k = b - t
		if k < 2 {
			return false
		}
		return d.reverseAll(t, b)
	}
	if k < 2 {
		return false
	}
	first := b - k
	d.bottom.Store(first)
	if d.top.Load() >= first {
		d.bottom.Store(b) // a thief may be taking the first of them
		return false
	}
	r := d.ring.Load()
	for i, j := first, b-1; i < j; i, j = i+1, j-1 {
		si, sj := r.slot(i), r.slot(j)
		vi, vj := si.Load(), sj.Load()
		storeSlot(si, vj)
		storeSlot(sj, vi)
	}
	storeBottom(&d.bottom, b, d.release)
	return true
}

// maxReverseAll is how many items reverseAll reorders at most: it holds
// them in an array on the stack.
const maxReverseAll = 8

// reverseAll is ReverseNewest when the k items are all the deque holds,
// [t, b): nothing older stands between them and the thieves. The owner
// takes them all the way a thief takes one, with a CAS of top from t, to
// b; a thief that loaded t fails its CAS, and one that loads b finds the
// deque empty. It then pushes them back in reverse order, as Push does,
// at [b, b+k). It gives up (false) if the CAS fails, a thief having taken
// the oldest, or if there are more than maxReverseAll.
func (d *ChaseLev[T]) reverseAll(t, b int64) bool {
	k := b - t
	if k > maxReverseAll {
		return false
	}
	r := d.ring.Load()
	var held [maxReverseAll]*T
	for i := range k {
		held[i] = r.slot(t + i).Load()
	}
	if !d.top.CompareAndSwap(t, b) {
		return false
	}
	// The new indices may share ring slots with the old ones (the ring
	// holds at least k, not 2k): the items are in held.
	for i := range k {
		storeSlot(r.slot(b+i), held[k-1-i])
	}
	storeBottom(&d.bottom, b+k, d.release)
	return true
}

// Pop removes and returns the newest item, or nil if the deque is empty.
// Only the owner may call it.
func (d *ChaseLev[T]) Pop() *T {
	b := d.bottom.Load() - 1
	// Look at top first. It only grows, so a deque seen empty stays empty
	// until our next Push, and one seen holding a single item holds at
	// most that item: in both cases bottom need not move. The general path
	// below stores bottom twice when it meets the last item (reserve, then
	// restore), and a seq-cst store is an XCHG on amd64, a full barrier:
	// for a deque that holds one item at a time (a task per tree node,
	// pushed and popped in turn) these checks take the pop from three
	// atomic read-modify-writes to one, and an empty pop from two to none.
	t := d.top.Load()
	if t > b {
		return nil
	}
	r := d.ring.Load()
	if t == b {
		// The last item: claim it the way a thief does, by advancing top,
		// which every claimant of index t must CAS. Read it first: once
		// top has moved, a Push of ours may reuse the slot. bottom stays
		// b+1 == top afterwards, an empty deque, whoever wins.
		v := r.slot(b).Load()
		if d.top.CompareAndSwap(t, t+1) {
			return v
		}
		return nil
	}
	// Reserve index b before looking at top again. This store and the load of
	// top below are the store-load pair that the C11 version separates
	// with a seq-cst fence; in Go both are seq-cst atomics, so they cannot
	// be reordered and every thread agrees on one order of all of them.
	// That order is what makes the last-item race safe: a thief loads top
	// then bottom, we store bottom then load top, so either we see the
	// thief's advanced top or the thief sees our lowered bottom, never
	// neither (the store-buffering / Dekker pattern).
	d.bottom.Store(b)
	t = d.top.Load()
	if t > b {
		// Empty (t == b+1). Undo the reservation.
		d.bottom.Store(b + 1)
		return nil
	}
	s := r.slot(b)
	v := s.Load()
	if t < b {
		// More than one item: index b is ours without a CAS. A thief
		// can win index b only after loading top == b. Top only grows and
		// we loaded t < b, so that load comes after ours in the single
		// seq-cst order, hence the thief's following load of bottom comes
		// after our bottom.Store(b): it sees b (top >= bottom, Empty) or a
		// value from a later Push of ours, which rewrites slot b first.
		//
		//
		// The slot is not cleared: that would be another full-barrier
		// store on the owner's hot path, and it would defeat Push's
		// skipped store for reused items. The deque may therefore keep a
		// taken item reachable until its slot is reused (see the type's
		// doc).
		return v
	}
	// t == b: v is the last item and thieves may be racing for it. Claim
	// it the way they do, by advancing top; seq-cst CAS, as in C11.
	won := d.top.CompareAndSwap(t, t+1)
	// Either way the deque is now empty with top == b+1: restore bottom to
	// match (it must not stay below top).
	d.bottom.Store(b + 1)
	if !won {
		return nil
	}
	return v
}

// Steal removes and returns the oldest item. Any goroutine may call it,
// including the owner. It returns (item, Success), (nil, Empty) if the
// deque looked empty, or (nil, Retry) if it lost a race for the item.
//
// Steal never writes a slot: a stolen item stays referenced by its slot
// until the owner's later pushes overwrite it or the ring is retired by
// growth.
func (d *ChaseLev[T]) Steal() (*T, StealResult) {
	// Load top, then bottom. The C11 version needs a seq-cst fence between
	// the two loads to pair with the owner's store-fence-load in Pop; here
	// both loads are seq-cst, which gives the same guarantee (see Pop).
	t := d.top.Load()
	b := d.bottom.Load()
	if t >= b {
		return nil, Empty
	}
	// Load the ring after bottom: if bottom covers an index pushed after
	// a grow, the grow's ring.Store precedes that push's bottom.Store,
	// which we observed, so we get the new ring. Loading the ring first
	// could pair a stale ring with a newer bottom and read the wrong slot.
	r := d.ring.Load()
	// Speculative read: the item is not ours until the CAS succeeds. If
	// the slot has been reused for a later index, top has already moved
	// past t, and the CAS fails.
	v := r.slot(t).Load()
	// Claim index t. Success means top was still t, so nobody else took t
	// and the slot still held index t's item when we read it.
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, Retry
	}
	return v, Success
}

// StealIf is Steal for a thief that wants only some items: it looks at
// the oldest item first and takes it only if keep returns true for it,
// returning (nil, Empty) otherwise. keep may be called on an item that
// another thread takes or has taken meanwhile (the claim comes after it),
// so it must read only what stays valid: fields written before the item
// was pushed, read atomically if their owner may rewrite them later.
func (d *ChaseLev[T]) StealIf(keep func(*T) bool) (*T, StealResult) {
	t := d.top.Load()
	b := d.bottom.Load()
	if t >= b {
		return nil, Empty
	}
	r := d.ring.Load()
	v := r.slot(t).Load()
	if !keep(v) {
		return nil, Empty
	}
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, Retry
	}
	return v, Success
}

// Peek returns the newest item without removing it, or nil if the deque
// is empty. Only the owner may call it. Thieves may take the item at any
// time, so a following Pop returns either the same item or nil.
func (d *ChaseLev[T]) Peek() *T {
	b := d.bottom.Load() - 1
	if d.top.Load() > b {
		return nil
	}
	return d.ring.Load().slot(b).Load()
}

// Len returns bottom-top from two successive loads, clamped at 0. From the
// owner with no thieves running it is exact; otherwise it is a snapshot
// that may be stale by the time it returns. It is never negative, although
// bottom is briefly top-1 inside Pop and thieves may advance top between
// the two loads.
func (d *ChaseLev[T]) Len() int {
	t := d.top.Load()
	b := d.bottom.Load()
	if b <= t {
		return 0
	}
	return int(b - t)
}

// Ends returns top and bottom from two successive loads: a snapshot any
// goroutine may take, for an observer that asks whether the deque moved
// between two looks (items taken or added change one or the other).
func (d *ChaseLev[T]) Ends() (top, bottom int64) { return d.top.Load(), d.bottom.Load() }

// Empty reports whether the deque held no item at the moment of the read
// (like Len() == 0, with fewer instructions for the owner's fork path).
func (d *ChaseLev[T]) Empty() bool { return d.top.Load() >= d.bottom.Load() }
