package deque

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewBWoSPanics(t *testing.T) {
	for _, args := range [][2]int{{1, 4}, {0, 4}, {2, 0}, {2, -1}, {4, maxCapacity/2 + 1}} {
		assert.Panics(t, func() { NewBWoS[int](args[0], args[1]) }, "NewBWoS(%d, %d)", args[0], args[1])
	}
	assert.Equal(t, 6, NewBWoS[int](2, 3).Cap())
}

// TestBWoSBlocks walks the owner through the block protocol step by step:
// items become stealable only when their block is granted, a pop into a
// granted block takes it back with what the thieves left, and the ring
// reuses a slot once thieves have emptied it.
func TestBWoSBlocks(t *testing.T) {
	d := NewBWoS[int](3, 2)
	items := newInts(12)
	push := func(i int) { require.True(t, d.TryPush(items[i]), "push %d", i) }
	steal := func(want int) {
		t.Helper()
		v, res := d.Steal()
		if want < 0 {
			require.Equal(t, Empty, res)
			require.Nil(t, v)
			return
		}
		require.Equal(t, Success, res)
		require.Same(t, items[want], v)
	}

	push(0)
	push(1)
	steal(-1) // block 0 is the owner's
	push(2)   // grants block 0
	steal(0)
	push(3)
	push(4) // grants block 1; owner in block 2 (slot 2)
	require.Equal(t, 4, d.Len())

	// The owner pops its block empty, then takes block 1 back whole.
	require.Same(t, items[4], d.Pop())
	require.Same(t, items[3], d.Pop())
	require.Equal(t, int64(1), d.owner, "block 1 is the owner's again")
	assert.Equal(t, [2]int{0, 1}, [2]int{d.lo, d.hi}, "holding item 2")
	// Block 0 still has item 1 for thieves; block 1 is the owner's now.
	steal(1)
	steal(-1)
	require.Same(t, items[2], d.Pop())
	require.Nil(t, d.Pop(), "block 0 is exhausted: empty")
	require.Zero(t, d.Len())

	// Fill the ring again from block 1: blocks 1, 2, 3 (slot 0, reused
	// since thieves emptied block 0).
	for i := 5; i < 11; i++ {
		push(i)
	}
	require.Equal(t, int64(3), d.owner)
	require.False(t, d.TryPush(items[11]), "full: slot 1 holds block 1 with items")
	steal(5)
	require.False(t, d.TryPush(items[11]), "still full: block 1 not exhausted")
	steal(6)
	push(11) // block 4 reuses slot 1
	require.Equal(t, 5, d.Len())
	for _, want := range []int{11, 10, 9, 8, 7} {
		require.Same(t, items[want], d.Pop())
	}
	require.Nil(t, d.Pop())
	steal(-1)
}

// TestBWoSPartialTakeBack takes back a block thieves have partly stolen:
// the owner gets exactly the rest.
func TestBWoSPartialTakeBack(t *testing.T) {
	d := NewBWoS[int](2, 4)
	items := newInts(5)
	for _, p := range items {
		require.True(t, d.TryPush(p))
	}
	for i := range 2 {
		v, res := d.Steal()
		require.Equal(t, Success, res)
		require.Same(t, items[i], v)
	}
	require.Same(t, items[4], d.Pop())
	require.Same(t, items[3], d.Pop()) // takes block 0 back at entry 2
	assert.Equal(t, 2, d.lo)
	require.Same(t, items[2], d.Pop())
	require.Nil(t, d.Pop())
	// The owner refills block 0 from entry 2 and hands it out again.
	more := newInts(4)
	for _, p := range more {
		require.True(t, d.TryPush(p))
	}
	v, res := d.Steal()
	require.Equal(t, Success, res)
	require.Same(t, more[0], v)
	require.Equal(t, 3, d.Len())
}

// TestBWoSOwnerFastPathIsPlain checks the point of the design: within a
// block the owner's Push and Pop allocate nothing and leave every word
// thieves read untouched.
func TestBWoSOwnerFastPathIsPlain(t *testing.T) {
	d := NewBWoS[int](2, 64)
	x := new(int)
	words := func() []uint64 {
		var w []uint64
		for i := range d.blocks {
			w = append(w, d.blocks[i].word.Load(), uint64(d.blocks[i].consumed.Load()))
		}
		return append(w, uint64(d.thief.Load()))
	}
	before := words()
	assert.Zero(t, testing.AllocsPerRun(1000, func() {
		d.TryPush(x)
		d.TryPush(x)
		d.Pop()
		d.Pop()
	}))
	assert.Equal(t, before, words())
}

// TestBWoSLayout checks the padding: thief on its own lines, the fields
// every Steal reads apart from the owner's position, and in each block the
// thieves' words apart from the owner's fields.
func TestBWoSLayout(t *testing.T) {
	var d BWoS[int]
	assert.GreaterOrEqual(t, unsafe.Offsetof(d.thief), uintptr(cacheLinePad))
	assert.GreaterOrEqual(t, unsafe.Offsetof(d.blocks)-unsafe.Offsetof(d.thief), uintptr(cacheLinePad))
	assert.GreaterOrEqual(t, unsafe.Offsetof(d.cur)-unsafe.Offsetof(d.blocks), uintptr(cacheLinePad),
		"what thieves read is off the owner's line")
	assert.GreaterOrEqual(t, unsafe.Sizeof(d)-unsafe.Offsetof(d.hi), uintptr(cacheLinePad))
	var b bwosBlock[int]
	assert.GreaterOrEqual(t, unsafe.Offsetof(b.entries)-unsafe.Offsetof(b.consumed), uintptr(cacheLinePad-8))
	assert.Equal(t, uintptr(2*cacheLinePad), unsafe.Sizeof(b), "blocks in an array do not share lines")
}
