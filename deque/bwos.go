package deque

import (
	"runtime"
	"strconv"
	"sync/atomic"
)

// BWoS is a bounded block-based work-stealing deque after the LIFO variant
// of BWoS (Wang et al., "BWoS: Formally Verified Block-based Work Stealing
// for Parallel Processing", OSDI 2023). The code is ours; deque/NOTES.md
// in the repository says how it relates to the paper.
//
// The deque is a ring of blocks of equal size. The owner works alone in one
// block, its current block: Push and Pop there are a plain store or load
// of an entry and an update of owner-private counters, with no atomic
// operation at all. Thieves never enter the owner's current block; they
// take items, oldest first, from the blocks the owner has filled and left
// behind. Owner and thieves meet only at block boundaries:
//
//   - When its block is full, the owner grants it to the thieves (one
//     atomic store) and moves to the next block of the ring. If that block
//     still holds items the thieves have not taken, the deque is full.
//   - When its block is empty, the owner takes back the previous block
//     (one CAS, retried only when a thief claims an item in between) and
//     pops from there; whatever the thieves had claimed stays theirs.
//
// Consequences: TryPush reports false when the ring is full (at most
// blocks*blockSize items), and Steal reports Empty while every item is in
// the owner's current block, so up to blockSize items can be out of
// thieves' reach. Len is for the owner only, since the owner's position is
// private. The zero value is not usable; call NewBWoS.
//
// Invariants (l is a logical block number, which only the owner's moves
// change; block l lives in ring slot l mod blocks):
//
//   - thief <= owner: thief is the oldest block thieves may take from,
//     owner the owner's current block. Every block in [thief, owner) is
//     granted, and every block below thief is exhausted (all its items
//     taken). Thieves advance thief past a block only once it is granted
//     and exhausted; an exhausted block never changes again until its slot
//     is reused.
//   - A block's word packs a version (high 32 bits) and the index of the
//     next entry thieves may claim (low 32 bits). An odd version means
//     granted; an even one means the block is the owner's (or unused).
//     Every grant, take-back and reuse increments the version, so a thief
//     whose CAS succeeds knows that nothing but other thieves' claims
//     happened to the block since it loaded the word; the version
//     therefore also rules out ABA (up to 2^32 changes of one block while
//     one thief stalls between two of its loads).
//   - A thief claims entry i by CAS from (v, i) to (v, i+1), then reads
//     entry i, then increments the block's consumed count. The owner never
//     writes an entry that a thief has claimed until consumed shows that
//     the thief is done with it, so entries need no atomics, and the
//     claim-then-read order means a thief never reads an entry that is not
//     its own. This is the one place where the owner can wait for a
//     thief: when it reuses a block (moving forward into it) while a
//     thief that claimed one of its entries has not yet read it.
//   - A thief loads thief, then the block's word, then thief again, and
//     uses the word only if thief has not moved: the owner moves thief
//     past a block before it closes and reuses the block's slot, so a
//     word read between two equal loads of thief is that block's.
//
// The orderings come from Go's atomics being sequentially consistent: all
// of them fall in one total order, and a load that observes a store is
// synchronized after it. A grant is a store after the owner's plain
// writes of the entries, so a thief that loads the granted word sees
// them; a thief's consumed increment follows its plain read of the entry,
// so an owner that loads the incremented count may overwrite it; and the
// checks above ("before it closes", "between two loads") are statements
// about that single order.
type BWoS[T any] struct {
	_ [cacheLinePad]byte

	// thief is the logical number of the oldest block that may still
	// hold items for thieves. Thieves advance it by CAS past exhausted
	// blocks; the owner advances it when it reuses an exhausted block.
	thief atomic.Int64
	_     [cacheLinePad - 8]byte

	// Read by everyone, written only by NewBWoS: kept off the line of
	// the owner's position, which changes on every Push and Pop and would
	// otherwise be pulled away from the owner by every Steal.
	blocks    []bwosBlock[T]
	blockSize int
	_         [cacheLinePad - 32]byte

	// The owner's, and only the owner's.
	cur    *bwosBlock[T] // the owner's current block, number owner
	owner  int64
	lo, hi int // the owner's items are cur.entries[lo:hi]
	_      [cacheLinePad]byte
}

// bwosBlock is one block of the ring. The first cache-line pair holds what
// thieves write; the second what only the owner touches.
type bwosBlock[T any] struct {
	// word is version<<32 | next claimable entry (see BWoS).
	word atomic.Uint64
	// consumed counts the claims whose thieves have read (and cleared)
	// their entry, over the block's whole life.
	consumed atomic.Int64
	_        [cacheLinePad - 16]byte

	// entries is set once by NewBWoS. Its elements are plain: the owner
	// writes only entries no thief has claimed, and a thief reads only the
	// entry it claimed, after the claim (see BWoS).
	entries []*T

	// Owner-private.
	logical int64 // the logical block held in this slot
	claims  int64 // claims known to the owner, over the block's whole life
	grantLo int   // first entry handed to thieves by the latest grant
	_       [cacheLinePad - 48]byte
}

// maxBWoSBlockSize bounds the entry index packed in a block's word.
const maxBWoSBlockSize = 1 << 30

func bwosWord(version uint32, idx int) uint64 { return uint64(version)<<32 | uint64(uint32(idx)) }

func bwosVersion(w uint64) uint32 { return uint32(w >> 32) }

func bwosIdx(w uint64) int { return int(uint32(w)) }

func bwosGranted(w uint64) bool { return w>>32&1 == 1 }

// NewBWoS returns an empty deque of blocks blocks of blockSize entries.
// It panics unless blocks >= 2 (the owner needs a block of its own besides
// those it grants), blockSize >= 1 and blocks*blockSize <= 1<<30.
func NewBWoS[T any](blocks, blockSize int) *BWoS[T] {
	if blocks < 2 || blockSize < 1 || blockSize > maxBWoSBlockSize || blocks > maxCapacity/blockSize {
		panic("deque: NewBWoS(" + strconv.Itoa(blocks) + ", " + strconv.Itoa(blockSize) +
			") needs blocks >= 2, blockSize >= 1 and blocks*blockSize <= 1<<30")
	}
	d := &BWoS[T]{blocks: make([]bwosBlock[T], blocks), blockSize: blockSize}
	for i := range d.blocks {
		b := &d.blocks[i]
		b.entries = make([]*T, blockSize)
		if i == 0 {
			continue // block 0, the owner's, version 0
		}
		// Pretend slot i held block i-blocks, granted and exhausted
		// long ago, so that moving into it takes the ordinary path.
		b.logical = int64(i - blocks)
		b.word.Store(bwosWord(1, blockSize))
		b.grantLo = blockSize
	}
	d.cur = &d.blocks[0]
	return d
}

func (d *BWoS[T]) block(l int64) *bwosBlock[T] {
	return &d.blocks[l%int64(len(d.blocks))]
}

// Cap returns blocks*blockSize, the most items the deque can hold.
func (d *BWoS[T]) Cap() int { return len(d.blocks) * d.blockSize }

// TryPush adds v at the bottom, or reports false if the ring is full. Only
// the owner may call it. It panics if v is nil.
func (d *BWoS[T]) TryPush(v *T) bool {
	if v == nil {
		panic("deque: BWoS.TryPush of a nil item")
	}
	if d.hi == d.blockSize && !d.advance() {
		return false
	}
	d.cur.entries[d.hi] = v
	d.hi++
	return true
}

// advance grants the owner's full current block to the thieves and moves
// the owner into the next block, or reports false if that block still
// holds items (the ring is full).
func (d *BWoS[T]) advance() bool {
	next := d.owner + 1
	nb := d.block(next)
	if nb.logical != next {
		// The slot holds block next-len(blocks), the oldest one. It can
		// be reused only when the thieves have claimed all of it, and
		// then it cannot change any more: thieves CAS only words with
		// entries left, and the owner takes back only its previous block.
		w := nb.word.Load()
		if bwosIdx(w) < d.blockSize {
			return false
		}
		old := nb.logical
		// Move the thieves past it before closing it, so that a thief
		// reading the closed word also finds thief moved on and looks
		// again instead of reporting Empty for the blocks after it.
		d.thief.CompareAndSwap(old, old+1)
		nb.word.Store(w + 1<<32) // even: the owner's
		nb.claims += int64(d.blockSize - nb.grantLo)
		nb.logical = next
	}
	// Otherwise the slot holds block next itself, which the owner left
	// backwards, empty, and which has been closed since.
	//
	// Before rewriting any entry, wait for thieves still reading entries
	// they claimed in this slot.
	for nb.consumed.Load() != nb.claims {
		runtime.Gosched()
	}
	c := d.cur
	c.grantLo = d.lo
	// Grant: the entries [lo, blockSize) become claimable. The store
	// publishes the plain entry writes before it to every thief that
	// loads the word (seq-cst store and load: synchronized).
	c.word.Store(bwosWord(bwosVersion(c.word.Load())+1, d.lo))
	d.cur, d.owner, d.lo, d.hi = nb, next, 0, 0
	return true
}

// Pop removes and returns the newest item, or nil if the deque is empty.
// Only the owner may call it.
func (d *BWoS[T]) Pop() *T {
	if d.hi == d.lo && !d.retreat() {
		return nil
	}
	d.hi--
	v := d.cur.entries[d.hi]
	d.cur.entries[d.hi] = nil
	return v
}

// retreat takes back the block before the owner's empty current block and
// makes it current, or reports false if there is nothing left to take
// (the deque is empty).
func (d *BWoS[T]) retreat() bool {
	if d.owner == 0 {
		return false
	}
	prev := d.owner - 1
	p := d.block(prev)
	if p.logical != prev {
		// Its slot was reused, which needed it exhausted: every item
		// before the current block is gone.
		return false
	}
	// prev is granted: the owner granted it when it last moved forward
	// from it, and only the owner closes blocks.
	w := p.word.Load()
	for {
		if !bwosGranted(w) {
			panic("deque: BWoS internal error: previous block not granted")
		}
		if bwosIdx(w) == d.blockSize {
			// Exhausted, and so is everything before it.
			return false
		}
		// Close it at the thieves' current index. A thief's claim CAS
		// from the same word now fails; a thief that already claimed
		// entries below the index keeps them.
		if p.word.CompareAndSwap(w, w+1<<32) {
			break
		}
		w = p.word.Load() // a thief claimed an entry; look again
	}
	i := bwosIdx(w)
	p.claims += int64(i - p.grantLo)
	// The owner's block (number owner) stays closed and empty; p is a
	// full block from i on.
	d.cur, d.owner, d.lo, d.hi = p, prev, i, d.blockSize
	return true
}

// Steal removes and returns the oldest item outside the owner's current
// block. Any goroutine may call it. It returns (item, Success); (nil,
// Empty) if every item (if any) is in the owner's current block; or (nil,
// Retry) if it lost a race: to another thief, or to the owner taking the
// block back.
func (d *BWoS[T]) Steal() (*T, StealResult) {
	// Each round either returns or sees thief move on, which happens at
	// most once per block in the ring before thief reaches the owner.
	for range len(d.blocks) + 1 {
		l := d.thief.Load()
		b := d.block(l)
		w := b.word.Load()
		// The word belongs to block l only if thief still says l: the
		// owner moves thief past a block before it reuses its slot.
		if d.thief.Load() != l {
			continue
		}
		if !bwosGranted(w) {
			// Block l is the owner's, and every block before it is
			// exhausted.
			return nil, Empty
		}
		i := bwosIdx(w)
		if i == d.blockSize {
			d.thief.CompareAndSwap(l, l+1)
			continue
		}
		if !b.word.CompareAndSwap(w, w+1) {
			return nil, Retry
		}
		// Entry i is ours. The owner will not touch it until consumed
		// counts our claim.
		v := b.entries[i]
		b.entries[i] = nil
		b.consumed.Add(1)
		return v, Success
	}
	return nil, Retry
}

// Len returns the number of items. Only the owner may call it (or any
// goroutine synchronized with the owner while the owner is idle): it reads
// the owner's private position. With thieves running it is a snapshot.
func (d *BWoS[T]) Len() int {
	n := d.hi - d.lo
	from := max(d.thief.Load(), d.owner-int64(len(d.blocks))+1)
	for l := from; l < d.owner; l++ {
		n += d.blockSize - bwosIdx(d.block(l).word.Load())
	}
	return n
}
