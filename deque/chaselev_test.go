package deque

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ringSize reports the current ring's slot count (tests live in the package).
func ringSize[T any](d *ChaseLev[T]) int {
	return len(d.ring.Load().slots)
}

// newInts returns pointers to 1..n, so that a nil result is never a value.
func newInts(n int) []*int {
	ps := make([]*int, n)
	vals := make([]int, n)
	for i := range vals {
		vals[i] = i + 1
		ps[i] = &vals[i]
	}
	return ps
}

func TestStealResultString(t *testing.T) {
	tests := []struct {
		r    StealResult
		want string
	}{
		{Empty, "Empty"},
		{Success, "Success"},
		{Retry, "Retry"},
		{StealResult(7), "StealResult(7)"},
		{StealResult(-1), "StealResult(-1)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.r.String())
		assert.Equal(t, tt.want, fmt.Sprint(tt.r), "fmt uses String")
	}
}

func TestNewChaseLevCapacity(t *testing.T) {
	tests := []struct {
		hint, want int
	}{
		{-5, defaultCapacity},
		{0, defaultCapacity},
		{1, 1},
		{2, 2},
		{3, 4},
		{5, 8},
		{64, 64},
		{65, 128},
		{1000, 1024},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.hint), func(t *testing.T) {
			d := NewChaseLev[int](tt.hint)
			assert.Equal(t, tt.want, ringSize(d))
			assert.Equal(t, int64(tt.want-1), d.ring.Load().mask)
			assert.Zero(t, d.Len())
		})
	}
	assert.PanicsWithValue(t, "deque: NewChaseLev capacity 1073741825 exceeds 1<<30",
		func() { NewChaseLev[int](maxCapacity + 1) })
}

// TestLayout checks the padding promised in ChaseLev's comments: top, bottom
// and ring at least cacheLinePad bytes apart and from the struct's ends.
func TestLayout(t *testing.T) {
	var d ChaseLev[int]
	top := unsafe.Offsetof(d.top)
	bottom := unsafe.Offsetof(d.bottom)
	ring := unsafe.Offsetof(d.ring)
	size := unsafe.Sizeof(d)
	assert.GreaterOrEqual(t, top, uintptr(cacheLinePad))
	assert.GreaterOrEqual(t, bottom-top, uintptr(cacheLinePad))
	assert.GreaterOrEqual(t, ring-bottom, uintptr(cacheLinePad))
	assert.GreaterOrEqual(t, size-ring, uintptr(cacheLinePad))
}

// step is one operation of a scripted sequential test and the deque's
// expected length after it.
type step struct {
	op   string // "push", "pop" or "steal"
	v    int    // pushed value (push) or expected value (pop, steal)
	size int    // expected Len afterwards
}

func TestMixedSequences(t *testing.T) {
	tests := []struct {
		name     string
		capacity int
		steps    []step
	}{
		{"empty", 4, []step{
			{"pop", 0, 0}, {"steal", 0, 0}, {"pop", 0, 0},
		}},
		{"one item popped", 4, []step{
			{"push", 1, 1}, {"pop", 1, 0}, {"pop", 0, 0}, {"steal", 0, 0},
		}},
		{"one item stolen", 4, []step{
			{"push", 1, 1}, {"steal", 1, 0}, {"steal", 0, 0}, {"pop", 0, 0},
		}},
		{"both ends", 4, []step{
			{"push", 1, 1}, {"push", 2, 2}, {"push", 3, 3},
			{"steal", 1, 2}, {"pop", 3, 1}, {"push", 4, 2},
			{"steal", 2, 1}, {"steal", 4, 0}, {"pop", 0, 0},
		}},
		{"refill after empty", 2, []step{
			{"push", 1, 1}, {"pop", 1, 0}, {"pop", 0, 0},
			{"push", 2, 1}, {"steal", 2, 0}, {"steal", 0, 0},
			{"push", 3, 1}, {"push", 4, 2}, {"pop", 4, 1}, {"pop", 3, 0},
		}},
		{"wrap around without growing", 4, []step{
			{"push", 1, 1}, {"push", 2, 2}, {"push", 3, 3}, {"push", 4, 4},
			{"steal", 1, 3}, {"steal", 2, 2},
			{"push", 5, 3}, {"push", 6, 4}, // indices 4, 5 reuse slots 0, 1
			{"steal", 3, 3}, {"pop", 6, 2}, {"steal", 4, 1}, {"pop", 5, 0},
		}},
		{"grow with a wrapped live range", 4, []step{
			{"push", 1, 1}, {"push", 2, 2}, {"push", 3, 3}, {"push", 4, 4},
			{"steal", 1, 3}, {"steal", 2, 2},
			{"push", 5, 3}, {"push", 6, 4},
			{"push", 7, 5}, // full: grows to 8 and copies indices 2..5
			{"steal", 3, 4}, {"steal", 4, 3}, {"pop", 7, 2}, {"steal", 5, 1}, {"pop", 6, 0},
			{"steal", 0, 0},
		}},
		{"capacity one", 1, []step{
			{"push", 1, 1}, {"push", 2, 2}, {"push", 3, 3},
			{"steal", 1, 2}, {"pop", 3, 1}, {"pop", 2, 0}, {"pop", 0, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewChaseLev[int](tt.capacity)
			for i, s := range tt.steps {
				switch s.op {
				case "push":
					v := s.v
					d.Push(&v)
				case "pop":
					got := d.Pop()
					if s.v == 0 {
						require.Nil(t, got, "step %d: pop", i)
					} else {
						require.NotNil(t, got, "step %d: pop", i)
						require.Equal(t, s.v, *got, "step %d: pop", i)
					}
				case "steal":
					got, res := d.Steal()
					if s.v == 0 {
						require.Equal(t, Empty, res, "step %d: steal", i)
						require.Nil(t, got, "step %d: steal", i)
					} else {
						require.Equal(t, Success, res, "step %d: steal", i)
						require.NotNil(t, got, "step %d: steal", i)
						require.Equal(t, s.v, *got, "step %d: steal", i)
					}
				default:
					t.Fatalf("bad op %q", s.op)
				}
				require.Equal(t, s.size, d.Len(), "step %d: Len after %s", i, s.op)
			}
		})
	}
}

// TestGrowthFromCapacityOne pushes a little over a million items into a
// deque that starts with one slot (21 doublings), then takes the older half
// by Steal and the newer half by Pop, checking identity and order.
func TestGrowthFromCapacityOne(t *testing.T) {
	const n = 1<<20 + 3
	d := NewChaseLev[int](1)
	items := newInts(n)
	for _, p := range items {
		d.Push(p)
	}
	require.Equal(t, n, d.Len())
	require.Equal(t, 1<<21, ringSize(d))

	half := n / 2
	for i := range half {
		v, res := d.Steal()
		if res != Success || v != items[i] {
			t.Fatalf("steal %d: got (%v, %v), want item %d", i, v, res, i+1)
		}
	}
	require.Equal(t, n-half, d.Len())
	for i := n - 1; i >= half; i-- {
		if v := d.Pop(); v != items[i] {
			t.Fatalf("pop: got %v, want item %d", v, i+1)
		}
	}
	require.Zero(t, d.Len())
	require.Nil(t, d.Pop())
	_, res := d.Steal()
	require.Equal(t, Empty, res)
	require.Equal(t, 1<<21, ringSize(d), "the ring never shrinks")
}

// TestReusedItems covers the owner pattern Push optimises for: the same
// item pushed again at the same index after being popped (Push skips the
// slot store), and a different item replacing it there.
func TestReusedItems(t *testing.T) {
	d := NewChaseLev[int](4)
	items := newInts(3)
	for range 3 {
		d.Push(items[0])
		d.Push(items[1])
		require.Same(t, items[1], d.Pop())
		require.Same(t, items[0], d.Pop())
	}
	d.Push(items[0])
	d.Push(items[1]) // same index as before: no store needed
	v, res := d.Steal()
	require.Equal(t, Success, res)
	require.Same(t, items[0], v)
	require.Same(t, items[1], d.Pop())
	d.Push(items[2]) // a different item at a used index must replace it
	v, res = d.Steal()
	require.Equal(t, Success, res)
	require.Same(t, items[2], v)
	require.Nil(t, d.Pop())
}

// TestZeroAllocs checks that once the ring is big enough, Push, Pop and
// Steal allocate nothing.
func TestZeroAllocs(t *testing.T) {
	d := NewChaseLev[int](1)
	items := newInts(8)
	mix := func() {
		for _, p := range items {
			d.Push(p)
		}
		for range 3 {
			d.Steal()
		}
		for d.Pop() != nil {
		}
	}
	mix() // grow to 8 slots
	assert.Zero(t, testing.AllocsPerRun(100, mix))
	assert.Zero(t, testing.AllocsPerRun(1000, func() {
		d.Push(items[0])
		d.Pop()
	}))
}
