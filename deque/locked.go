package deque

import (
	"math/bits"
	"strconv"
	"sync"
)

// Locked is the baseline: a growable ring of items behind one mutex. Every
// operation, the owner's included, takes the lock, so it is trivially
// linearizable (at the lock) and measures what the lock-free variants save.
//
// The zero value is not usable; call NewLocked. It grows by doubling, like
// ChaseLev, and never shrinks. Steal waits for the lock instead of giving
// up, so it never returns Retry. Any goroutine may call Len. Pop and Steal
// clear the slot they take, so the deque keeps no taken item reachable.
type Locked[T any] struct {
	mu    sync.Mutex
	slots []*T // len(slots) is a power of two
	head  int  // index in slots of the oldest item
	n     int  // number of items
}

// NewLocked returns an empty deque whose ring initially holds capacity
// items; values <= 0 mean 32, others are rounded up to a power of two. It
// panics if capacity exceeds 1<<30.
func NewLocked[T any](capacity int) *Locked[T] {
	switch {
	case capacity <= 0:
		capacity = defaultCapacity
	case capacity > maxCapacity:
		panic("deque: NewLocked capacity " + strconv.Itoa(capacity) + " exceeds 1<<30")
	default:
		capacity = 1 << bits.Len(uint(capacity-1))
	}
	return &Locked[T]{slots: make([]*T, capacity)}
}

// Push adds v at the bottom, growing the ring if it is full. Only the owner
// may call it (the lock would allow anyone; the contract is the Deque
// one). It panics if v is nil.
func (d *Locked[T]) Push(v *T) {
	if v == nil {
		panic("deque: Locked.Push of a nil item")
	}
	d.mu.Lock()
	if d.n == len(d.slots) {
		d.grow()
	}
	d.slots[(d.head+d.n)&(len(d.slots)-1)] = v
	d.n++
	d.mu.Unlock()
}

// TryPush is Push for the Deque interface; it always reports true.
func (d *Locked[T]) TryPush(v *T) bool {
	d.Push(v)
	return true
}

// grow doubles the ring, moving the items to its start. d.mu is held.
func (d *Locked[T]) grow() {
	if len(d.slots) >= maxCapacity {
		panic("deque: Locked grew past 1<<30 items")
	}
	s := make([]*T, 2*len(d.slots))
	for i := range d.n {
		s[i] = d.slots[(d.head+i)&(len(d.slots)-1)]
	}
	d.slots, d.head = s, 0
}

// Pop removes and returns the newest item, or nil if the deque is empty.
func (d *Locked[T]) Pop() *T {
	d.mu.Lock()
	if d.n == 0 {
		d.mu.Unlock()
		return nil
	}
	d.n--
	i := (d.head + d.n) & (len(d.slots) - 1)
	v := d.slots[i]
	d.slots[i] = nil
	d.mu.Unlock()
	return v
}

// Steal removes and returns the oldest item with Success, or (nil, Empty).
// It waits for the lock, so it never reports Retry.
func (d *Locked[T]) Steal() (*T, StealResult) {
	d.mu.Lock()
	if d.n == 0 {
		d.mu.Unlock()
		return nil, Empty
	}
	v := d.slots[d.head]
	d.slots[d.head] = nil
	d.head = (d.head + 1) & (len(d.slots) - 1)
	d.n--
	d.mu.Unlock()
	return v, Success
}

// Len returns the number of items at the moment it held the lock.
func (d *Locked[T]) Len() int {
	d.mu.Lock()
	n := d.n
	d.mu.Unlock()
	return n
}
