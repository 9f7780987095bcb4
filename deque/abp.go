package deque

import (
	"strconv"
	"sync/atomic"
)

// ABP is the bounded work-stealing deque of Arora, Blumofe and Plaxton
// ("Thread Scheduling for Multiprogrammed Multiprocessors", SPAA 1998),
// mapped to Go's sequentially consistent atomics.
//
// One goroutine, the owner, calls TryPush and Pop; any goroutine may call
// Steal and Len. The zero value is not usable; call NewABP.
//
// The items live in a plain array, not a ring: bot is one past the newest
// item and only grows with pushes, and top, the oldest item, only grows
// with steals, until the owner finds the deque empty and moves both back
// to 0. So the deque is full when bot reaches the capacity, even if thieves
// have taken the items at the start of the array; their slots are reused
// only after the owner has emptied the deque. That is the price of ABP's
// simplicity and why Chase and Lev made it circular.
//
// Invariants:
//
//   - 0 <= top <= bot <= capacity whenever the owner is not inside Pop;
//     the live items are slots [top, bot).
//   - Only the owner writes bot. top and its tag live in one 64-bit word,
//     age; thieves change it only by CAS, advancing top by one; the owner
//     changes it by CAS for the last item and by a plain atomic store when
//     it resets the deque.
//   - The tag grows by one at every reset. Without it a reset would be an
//     ABA: a thief that read top = t and slot t, then stalled while the
//     owner emptied the deque, reset top to 0 and pushed until top was t
//     again, would succeed with its CAS and return the stale item it read
//     (which the owner may already have popped). With the tag, its CAS
//     fails. The tag has 32 bits: the ABA would need a thief to stall
//     across exactly a multiple of 2^32 resets between two of its loads.
//
// As in ChaseLev, taken items are not cleared from their slots, so up to
// capacity taken items may stay reachable until their slots are reused.
type ABP[T any] struct {
	_ [cacheLinePad]byte

	// age packs the tag (high 32 bits) and top (low 32 bits), so that one
	// CAS checks both.
	age atomic.Uint64
	_   [cacheLinePad - 8]byte

	// bot is one past the newest item. Only the owner writes it.
	bot atomic.Int64
	_   [cacheLinePad - 8]byte

	// slots holds the items. They are atomic because a thief reads slot
	// top before its CAS decides whether the item is its own, and that
	// read may overlap the owner's write of the same slot after a reset;
	// the thief's CAS then fails, but with plain memory the overlap would
	// be a data race.
	slots []atomic.Pointer[T]
}

// NewABP returns an empty deque that holds at most capacity items. It
// panics if capacity is not in [1, 1<<30].
func NewABP[T any](capacity int) *ABP[T] {
	if capacity < 1 || capacity > maxCapacity {
		panic("deque: NewABP capacity " + strconv.Itoa(capacity) + " not in [1, 1<<30]")
	}
	return &ABP[T]{slots: make([]atomic.Pointer[T], capacity)}
}

func packAge(tag uint32, top int64) uint64 { return uint64(tag)<<32 | uint64(uint32(top)) }

func ageTop(age uint64) int64 { return int64(uint32(age)) }

func ageTag(age uint64) uint32 { return uint32(age >> 32) }

// Cap returns the capacity given to NewABP.
func (d *ABP[T]) Cap() int { return len(d.slots) }

// TryPush adds v at the bottom, or reports false if bot has reached the
// capacity. Only the owner may call it. It panics if v is nil.
func (d *ABP[T]) TryPush(v *T) bool {
	if v == nil {
		panic("deque: ABP.TryPush of a nil item")
	}
	b := d.bot.Load() // the owner's own latest value
	if b == int64(len(d.slots)) {
		return false
	}
	// Slot b is free: it is at or above bot, and thieves read only below
	// bot. Store it before publishing: a thief that sees the new bot (its
	// seq-cst load synchronizes with our store) sees the item.
	d.slots[b].Store(v)
	d.bot.Store(b + 1)
	return true
}

// Pop removes and returns the newest item, or nil if the deque is empty.
// Only the owner may call it.
func (d *ABP[T]) Pop() *T {
	b := d.bot.Load()
	if b == 0 {
		return nil
	}
	b--
	// Reserve slot b, then look at top: the store-load pair of the
	// Dekker pattern, as in ChaseLev.Pop. A thief loads age then bot; in
	// the single order of seq-cst operations either it sees bot = b (and
	// cannot reach slot b), or we see the top it advanced.
	d.bot.Store(b)
	v := d.slots[b].Load()
	old := d.age.Load()
	if b > ageTop(old) {
		// At least one more item below b: slot b is ours, no CAS.
		return v
	}
	// b <= top: slot b was the last item (b == top) or the deque was
	// already empty (b < top: thieves took everything). Either way the
	// deque is empty after this call, so reset it to the start of the
	// array. bot goes first: while age still says top, bot = 0 <= top
	// tells thieves it is empty.
	d.bot.Store(0)
	reset := packAge(ageTag(old)+1, 0)
	if b == ageTop(old) && d.age.CompareAndSwap(old, reset) {
		// We won the last item against the thieves. Our CAS both claims
		// it and resets top.
		return v
	}
	// A thief won it, or there was nothing. No thief CAS can succeed
	// now: any thief that read the current age also reads a bot <= top
	// and reports Empty, and one holding an older age fails on it. So a
	// plain store finishes the reset.
	d.age.Store(reset)
	return nil
}

// Steal removes and returns the oldest item. Any goroutine may call it.
// It returns (item, Success), (nil, Empty) if the deque looked empty, or
// (nil, Retry) if it lost a race for the item to another thief or to the
// owner (including a reset).
func (d *ABP[T]) Steal() (*T, StealResult) {
	// age before bot: the other half of the Dekker pattern in Pop.
	old := d.age.Load()
	b := d.bot.Load()
	t := ageTop(old)
	if b <= t {
		return nil, Empty
	}
	// Speculative read; the CAS decides. If it succeeds, age has not
	// changed since we loaded it, so no reset happened and slot t still
	// holds the item that was there when bot covered it.
	v := d.slots[t].Load()
	if !d.age.CompareAndSwap(old, packAge(ageTag(old), t+1)) {
		return nil, Retry
	}
	return v, Success
}

// Len returns bot-top from two successive loads, clamped at 0: exact from
// the owner when no thief is running, a snapshot otherwise. Any goroutine
// may call it.
func (d *ABP[T]) Len() int {
	t := ageTop(d.age.Load())
	b := d.bot.Load()
	if b <= t {
		return 0
	}
	return int(b - t)
}
