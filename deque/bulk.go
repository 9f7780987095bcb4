package deque

import (
	"math"
	"strconv"
	"sync/atomic"
)

// Bulk is an unbounded work-stealing deque with batch operations, after
// Kataru, Davarnia and Jannesari ("A Lock-Free Work-Stealing Algorithm for
// Bulk Operations", 2026): the items live in a linked list of fixed-size
// segments, so it grows without ever copying an item; PushBatch publishes
// any number of items with one atomic operation; StealBatch and
// StealFraction take many of the oldest items with one CAS. The code is
// ours; deque/NOTES.md says how it relates to the
// paper.
//
// One goroutine, the owner, calls Push, TryPush, PushBatch and Pop; other
// goroutines call Steal, StealBatch and StealFraction. The paper allows at
// most one concurrent stealer; this version allows any number (see below),
// and its batch operations are tested with one and with several. Any
// goroutine may call Len. The zero value is not usable; call NewBulk.
//
// Invariants:
//
//   - Logical indices top <= bottom delimit the items, [top, bottom), as in
//     ChaseLev. Both live in one 64-bit word, ends: bottom in the high 32
//     bits, top in the low 32, each modulo 2^32 (pushes panic once the
//     deque holds about 2^30 items, so bottom-top is unambiguous).
//   - The owner changes ends only to move bottom: Push and PushBatch by an
//     atomic add, Pop by a CAS that also checks top < bottom. Thieves
//     change ends only by a CAS that moves top forward by the number of
//     items they claim, checking that many are there. Because every change
//     is one atomic operation on the word that holds both ends, each one
//     sees exactly the other end's latest value: an owner's Pop and a
//     thief's claim can never both take the same index, which is the race
//     ChaseLev settles with the Dekker pattern and a CAS for the last item.
//     A batch claim of k items is then no harder than a claim of one, and
//     thieves exclude each other the same way. The price is that the
//     owner's every operation is an atomic read-modify-write on a word
//     thieves write too (on amd64 the same full barrier as the seq-cst
//     stores ChaseLev's Pop, and its Push unless it publishes with
//     release stores, do anyway), and that a CAS fails
//     whenever the other side moved its end in between: Pop then retries,
//     and so does a thief whose top has not moved (another thief's claim
//     is what makes it return Retry).
//   - top never decreases, so an index below top is never written again:
//     the owner writes only at bottom >= top. A thief reads the entries of
//     its claim after the CAS that made them its own, so entries need no
//     atomics; the owner's plain writes before its publishing add
//     happen before any thief's read, through the word.
//   - Segments are appended by the owner, linked by atomic next pointers
//     published before any index in them. The owner rewrites a segment's
//     entries only at bottom, and a segment it popped back out of (a
//     spare, kept linked after its current one for its next pushes) has
//     never had an index claimed: popping its first index needed top at
//     or below it, and top never decreases. Thieves find segments
//     through hint, which is never past the segment holding top, and
//     walk forward, never past bottom. The owner cuts its back links
//     below top, and the garbage collector frees the segments that
//     neither the hint nor those links reach. Like ChaseLev's ring, the
//     spares keep the memory of the deque's largest size; unlike it, the
//     deque allocates a new segment whenever bottom moves past the
//     furthest one, which steals make it do once per segment of items
//     stolen.
//
// The orderings come from Go's atomics being sequentially consistent, as
// everywhere in this package, but Bulk needs little of it: that each add
// and CAS on ends is atomic, and that a load of ends that observes an add
// (or a later value) is synchronized after it, so the entries and segment
// links the owner wrote before publishing are visible to the thief that
// claims them.
type Bulk[T any] struct {
	_ [cacheLinePad]byte

	// ends is bottom<<32 | top, both modulo 2^32.
	ends atomic.Uint64
	_    [cacheLinePad - 8]byte

	// hint is a segment at or before the one holding top. Thieves
	// advance it after their claims.
	hint atomic.Pointer[bulkSegment[T]]
	_    [cacheLinePad - 8]byte

	// Owner-private: bottom as a full index, and the segment where it
	// lies (seg.base <= bottom <= seg.base+segSize).
	bottom  int64
	seg     *bulkSegment[T]
	segSize int
	_       [cacheLinePad]byte
}

// bulkSegment holds indices [base, base+len(items)).
type bulkSegment[T any] struct {
	base  int64
	items []*T
	next  atomic.Pointer[bulkSegment[T]]
	prev  *bulkSegment[T] // owner only
}

// defaultSegmentSize is the segment size when NewBulk gets one <= 0.
const defaultSegmentSize = 1024

// NewBulk returns an empty deque whose segments hold segmentSize items
// each; values <= 0 mean 1024. It panics if segmentSize exceeds 1<<30.
func NewBulk[T any](segmentSize int) *Bulk[T] {
	switch {
	case segmentSize <= 0:
		segmentSize = defaultSegmentSize
	case segmentSize > maxCapacity:
		panic("deque: NewBulk segment size " + strconv.Itoa(segmentSize) + " exceeds 1<<30")
	}
	s := &bulkSegment[T]{items: make([]*T, segmentSize)}
	d := &Bulk[T]{seg: s, segSize: segmentSize}
	d.hint.Store(s)
	return d
}

func bulkEnds(w uint64) (top, bottom uint32) { return uint32(w), uint32(w >> 32) }

// Push adds v at the bottom. Only the owner may call it. It panics if v is
// nil or if the deque would hold 1<<30 items.
func (d *Bulk[T]) Push(v *T) {
	if v == nil {
		panic("deque: Bulk.Push of a nil item")
	}
	if d.bottom == d.seg.base+int64(d.segSize) {
		d.forward()
	}
	d.seg.items[d.bottom-d.seg.base] = v
	d.bottom++
	// Publish: the add carries out of the word's top bit, which is
	// exactly bottom+1 modulo 2^32, and leaves top alone.
	d.ends.Add(1 << 32)
}

// TryPush is Push for the Deque interface; it always reports true.
func (d *Bulk[T]) TryPush(v *T) bool {
	d.Push(v)
	return true
}

// PushBatch adds items at the bottom in order, so that the last one is the
// newest, and publishes them all at once: a thief sees none or all of
// them. Only the owner may call it. It panics, leaving the deque
// unchanged, if an item is nil; it panics if the deque would hold 1<<30
// items.
func (d *Bulk[T]) PushBatch(items []*T) {
	for _, v := range items {
		if v == nil {
			panic("deque: Bulk.PushBatch of a nil item")
		}
	}
	if len(items) >= maxCapacity {
		panic("deque: Bulk.PushBatch of 1<<30 items or more")
	}
	n := len(items)
	if n == 0 {
		return
	}
	for len(items) > 0 {
		if d.bottom == d.seg.base+int64(d.segSize) {
			d.forward()
		}
		c := copy(d.seg.items[d.bottom-d.seg.base:], items)
		d.bottom += int64(c)
		items = items[c:]
	}
	d.ends.Add(uint64(n) << 32)
}

// forward moves the owner into the segment after its full one, a spare or
// a new one, and cuts the owner's back links below top.
func (d *Bulk[T]) forward() {
	top := d.topIndex()
	if d.bottom-top >= maxCapacity {
		panic("deque: Bulk grew past 1<<30 items")
	}
	next := d.seg.next.Load()
	if next == nil {
		next = &bulkSegment[T]{base: d.seg.base + int64(d.segSize), items: make([]*T, d.segSize), prev: d.seg}
		// Linked before any of its indices is published (the add in
		// Push comes later), so a thief that reaches one of them finds
		// the segment.
		d.seg.next.Store(next)
	}
	// Segments wholly below top are taken; the owner will never pop back
	// into them. Dropping the link lets the collector free them once the
	// hint has moved on.
	s := d.seg
	for s.prev != nil && s.base > top {
		s = s.prev
	}
	s.prev = nil
	d.seg = next
}

// topIndex returns top as a full index, from its low 32 bits and the
// owner's bottom, which may be ahead of the published one inside PushBatch
// but is never more than 2^32 ahead of top. Only the owner may call it.
func (d *Bulk[T]) topIndex() int64 {
	t, _ := bulkEnds(d.ends.Load())
	return d.bottom - int64(uint32(d.bottom)-t)
}

// Pop removes and returns the newest item, or nil if the deque is empty.
// Only the owner may call it.
func (d *Bulk[T]) Pop() *T {
	w := d.ends.Load()
	for {
		t, b := bulkEnds(w)
		if t == b {
			return nil
		}
		// Take index bottom-1 if top is still below it. On failure a
		// thief claimed something in between; look again.
		if d.ends.CompareAndSwap(w, w-1<<32) {
			break
		}
		w = d.ends.Load()
	}
	d.bottom--
	if d.bottom < d.seg.base {
		// Back into the previous segment, which holds index bottom >=
		// top, so the owner has not cut it. The segment left behind
		// stays linked as a spare for the next forward.
		d.seg = d.seg.prev
	}
	i := d.bottom - d.seg.base
	v := d.seg.items[i]
	d.seg.items[i] = nil
	return v
}

// Steal removes and returns the oldest item. Any goroutine may call it.
// It returns (item, Success), (nil, Empty), or (nil, Retry) if another
// thief claimed items first (or, rarely, if the owner kept changing bottom
// through several attempts).
func (d *Bulk[T]) Steal() (*T, StealResult) {
	var one [1]*T
	n, res := d.steal(one[:], func(int) int { return 1 })
	if n == 0 {
		return nil, res
	}
	return one[0], res
}

// StealBatch removes the min(len(dst), Len()) oldest items with one CAS and
// stores them in dst, oldest first. It returns how many, with Success, or
// 0 with Empty (nothing there, or len(dst) == 0) or Retry (as for Steal;
// nothing taken). Any goroutine may call it.
func (d *Bulk[T]) StealBatch(dst []*T) (int, StealResult) {
	return d.steal(dst, func(n int) int { return n })
}

// StealFraction removes ceil(fraction*n) of the n items it finds (at least
// one, at most len(dst)), oldest first, with one CAS, and stores them in
// dst. fraction is clamped to (0, 1]; with 0.5 it is steal-half. Results
// are as for StealBatch.
func (d *Bulk[T]) StealFraction(fraction float64, dst []*T) (int, StealResult) {
	if !(fraction > 0) { // also catches NaN
		fraction = math.SmallestNonzeroFloat64
	}
	fraction = min(fraction, 1)
	return d.steal(dst, func(n int) int { return int(math.Ceil(fraction * float64(n))) })
}

// steal claims want(n) items (clamped to [1, min(n, len(dst))]) of the n
// it sees and copies them into dst.
func (d *Bulk[T]) steal(dst []*T, want func(n int) int) (int, StealResult) {
	// The hint first: loaded before ends, it is at or before the segment
	// of any index we can claim (see the type's invariants).
	h := d.hint.Load()
	w := d.ends.Load()
	t, _ := bulkEnds(w)
	var k int
	for try := 0; ; try++ {
		_, b := bulkEnds(w)
		n := int(b - t)
		if n == 0 || len(dst) == 0 {
			return 0, Empty
		}
		k = min(max(want(n), 1), n, len(dst))
		// Only the low half changes; top+k may wrap modulo 2^32 but
		// must not carry into bottom.
		if d.ends.CompareAndSwap(w, w&^math.MaxUint32|uint64(t+uint32(k))) {
			break
		}
		// Both ends share the word, so the CAS also fails when only
		// the owner moved bottom. Then nobody took what we saw: look
		// again (a few times; the owner may keep pushing). If top
		// moved, another thief won the race.
		w = d.ends.Load()
		if nt, _ := bulkEnds(w); nt != t || try == 3 {
			return 0, Retry
		}
	}
	// [top, top+k) is ours. Recover the full index of top from the hint,
	// which is at most a few segments behind.
	i := h.base + int64(t-uint32(h.base))
	s := h
	for c := 0; c < k; {
		for i >= s.base+int64(len(s.items)) {
			s = s.next.Load()
		}
		j := int(i - s.base)
		m := copy(dst[c:k], s.items[j:])
		clear(s.items[j : j+m])
		c += m
		i += int64(m)
	}
	// s holds our last index. Move the hint there unless another thief
	// moved it already (then it is at least as far: its claim came after
	// ours if it loaded our ends value, and the hint only moves forward).
	if s != h {
		d.hint.CompareAndSwap(h, s)
	}
	return k, Success
}

// Len returns bottom-top from one load of the word that holds both: a
// snapshot that is exact at that instant. Any goroutine may call it.
func (d *Bulk[T]) Len() int {
	t, b := bulkEnds(d.ends.Load())
	return int(b - t)
}
