package deque

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewABPPanics(t *testing.T) {
	assert.PanicsWithValue(t, "deque: NewABP capacity 0 not in [1, 1<<30]", func() { NewABP[int](0) })
	assert.Panics(t, func() { NewABP[int](maxCapacity + 1) })
	assert.Equal(t, 5, NewABP[int](5).Cap(), "any capacity, not only powers of two")
}

// TestABPResetBumpsTag checks the ABA guard: every time the owner finds the
// deque empty it moves top and bot back to 0 and counts one more reset in
// the tag, whether it won the last item, lost it or found nothing.
func TestABPResetBumpsTag(t *testing.T) {
	d := NewABP[int](4)
	items := newInts(4)
	tag := func() uint32 { return ageTag(d.age.Load()) }

	require.Nil(t, d.Pop(), "bot = 0: nothing to reset")
	require.Zero(t, tag())

	d.TryPush(items[0])
	d.TryPush(items[1])
	require.Same(t, items[1], d.Pop(), "not the last item: no reset")
	require.Zero(t, tag())
	require.Same(t, items[0], d.Pop(), "the last item: won by CAS, reset")
	require.Equal(t, uint32(1), tag())
	require.Zero(t, ageTop(d.age.Load()))
	require.Zero(t, d.bot.Load())

	d.TryPush(items[2])
	v, res := d.Steal()
	require.Equal(t, Success, res)
	require.Same(t, items[2], v)
	require.Equal(t, int64(1), ageTop(d.age.Load()), "a steal advances top")
	for range 3 {
		require.True(t, d.TryPush(items[3]))
	}
	require.False(t, d.TryPush(items[3]), "full: bot counts the stolen slot until a reset")
	require.Equal(t, 3, d.Len())
	for range 3 {
		require.Same(t, items[3], d.Pop())
	}
	require.Equal(t, uint32(2), tag(), "the third pop took the last item")
	require.Nil(t, d.Pop())
	require.Equal(t, uint32(2), tag(), "bot = 0: nothing to reset")

	d.TryPush(items[0])
	_, res = d.Steal()
	require.Equal(t, Success, res)
	require.Nil(t, d.Pop(), "thieves took everything")
	require.Equal(t, uint32(3), tag(), "found empty with bot > 0: reset by store")
	require.True(t, d.TryPush(items[1]), "room again after the reset")
}

// TestABPLayout checks that age, bot and the slot header sit on separate
// cache-line pairs.
func TestABPLayout(t *testing.T) {
	var d ABP[int]
	assert.GreaterOrEqual(t, unsafe.Offsetof(d.age), uintptr(cacheLinePad))
	assert.GreaterOrEqual(t, unsafe.Offsetof(d.bot)-unsafe.Offsetof(d.age), uintptr(cacheLinePad))
	assert.GreaterOrEqual(t, unsafe.Offsetof(d.slots)-unsafe.Offsetof(d.bot), uintptr(cacheLinePad))
}
