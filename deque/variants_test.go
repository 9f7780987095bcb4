package deque

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// variant describes one deque implementation for the table-driven tests.
type variant struct {
	name string
	// make returns an empty deque. capacity is the bound of a bounded
	// variant (a multiple of block for BWoS) and the initial size of an
	// unbounded one; block is BWoS's block size and Bulk's segment size.
	make func(capacity, block int) Deque[int]
	// tracked is make for the concurrent tests' items.
	tracked func(capacity, block int) Deque[tracked]
	// spec returns the matching sequential specification.
	spec    func(capacity, block int) spec
	bounded bool
	// nilPush is the panic value of a push of nil.
	nilPush string
	// batches says whether it is Bulk, with batch operations.
	batches bool
	// thiefLen says whether goroutines other than the owner may call Len.
	thiefLen bool
}

var variants = []variant{
	{
		name:    "ChaseLev",
		nilPush: "deque: ChaseLev.Push of a nil item",
		make:    func(c, _ int) Deque[int] { return NewChaseLev[int](c) },
		tracked: func(c, _ int) Deque[tracked] { return NewChaseLev[tracked](c) },
		spec:    func(_, _ int) spec { return &sliceSpec{} }, thiefLen: true,
	},
	{
		// Release pushes (PublishWithRelease): seq-cst ChaseLev where the
		// platform does not grant them.
		name:    "ChaseLevRelease",
		nilPush: "deque: ChaseLev.Push of a nil item",
		make:    func(c, _ int) Deque[int] { return releaseChaseLev[int](c) },
		tracked: func(c, _ int) Deque[tracked] { return releaseChaseLev[tracked](c) },
		spec:    func(_, _ int) spec { return &sliceSpec{} }, thiefLen: true,
	},
	{
		name:    "ABP",
		nilPush: "deque: ABP.TryPush of a nil item",
		make:    func(c, _ int) Deque[int] { return NewABP[int](c) },
		tracked: func(c, _ int) Deque[tracked] { return NewABP[tracked](c) },
		spec:    func(c, _ int) spec { return &abpSpec{capacity: c} }, bounded: true, thiefLen: true,
	},
	{
		name:    "BWoS",
		nilPush: "deque: BWoS.TryPush of a nil item",
		make:    func(c, b int) Deque[int] { return NewBWoS[int](c/b, b) },
		tracked: func(c, b int) Deque[tracked] { return NewBWoS[tracked](c/b, b) },
		spec:    func(c, b int) spec { return newBWoSSpec(c/b, b) }, bounded: true,
	},
	{
		name:    "Locked",
		nilPush: "deque: Locked.Push of a nil item",
		make:    func(c, _ int) Deque[int] { return NewLocked[int](c) },
		tracked: func(c, _ int) Deque[tracked] { return NewLocked[tracked](c) },
		spec:    func(_, _ int) spec { return &sliceSpec{} }, thiefLen: true,
	},
	{
		name:    "Bulk",
		nilPush: "deque: Bulk.Push of a nil item",
		make:    func(_, b int) Deque[int] { return NewBulk[int](b) },
		tracked: func(_, b int) Deque[tracked] { return NewBulk[tracked](b) },
		spec:    func(_, _ int) spec { return &sliceSpec{} }, thiefLen: true, batches: true,
	},
}

// stealableAfterPushes is how many of n items, just pushed into an empty
// deque, Steal can take in a row: all of them, except that BWoS keeps the
// owner's current block (the one holding the newest item) from thieves.
func stealableAfterPushes(v variant, n, block int) int {
	if v.name == "BWoS" && n > 0 {
		return (n - 1) / block * block
	}
	return n
}

func TestPushNilPanics(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			d := v.make(8, 4)
			require.PanicsWithValue(t, v.nilPush, func() { d.TryPush(nil) })
			assert.Zero(t, d.Len(), "a rejected push leaves the deque unchanged")
			assert.Nil(t, d.Pop())
		})
	}
}

// orderShapes are the sizes the order tests run a variant at: a bounded
// one holds 16 items in blocks of 4; a growing one starts at the default
// size, at 1 (grows on the second push), at odd hints and at a size large
// enough never to grow here, and takes up to 100 items.
func orderShapes(v variant) (capacities, counts []int) {
	if v.bounded {
		return []int{16}, []int{0, 1, 2, 4, 5, 16}
	}
	return []int{0, 1, 2, 3, 7, 64}, []int{0, 1, 2, 4, 5, 16, 100}
}

func TestPopIsLIFO(t *testing.T) {
	for _, v := range variants {
		capacities, counts := orderShapes(v)
		for _, capacity := range capacities {
			for _, n := range counts {
				t.Run(fmt.Sprintf("%s/cap=%d/n=%d", v.name, capacity, n), func(t *testing.T) {
					d := v.make(capacity, 4)
					items := newInts(n)
					for i, p := range items {
						require.True(t, d.TryPush(p))
						require.Equal(t, i+1, d.Len())
					}
					for i := n - 1; i >= 0; i-- {
						require.Same(t, items[i], d.Pop())
						require.Equal(t, i, d.Len())
					}
					assert.Nil(t, d.Pop())
					assert.Nil(t, d.Pop(), "popping an empty deque twice")
					assert.Zero(t, d.Len())
				})
			}
		}
	}
}

func TestStealIsFIFO(t *testing.T) {
	for _, v := range variants {
		capacities, counts := orderShapes(v)
		for _, capacity := range capacities {
			for _, n := range counts {
				t.Run(fmt.Sprintf("%s/cap=%d/n=%d", v.name, capacity, n), func(t *testing.T) {
					const block = 4
					d := v.make(capacity, block)
					items := newInts(n)
					for _, p := range items {
						require.True(t, d.TryPush(p))
					}
					k := stealableAfterPushes(v, n, block)
					for i := range k {
						got, res := d.Steal()
						require.Equal(t, Success, res, "steal %d", i)
						require.Same(t, items[i], got, "steal %d", i)
						require.Equal(t, n-i-1, d.Len())
					}
					got, res := d.Steal()
					assert.Equal(t, Empty, res)
					assert.Nil(t, got)
					// What thieves could not reach, the owner pops, newest first.
					for i := n - 1; i >= k; i-- {
						require.Same(t, items[i], d.Pop())
					}
					assert.Nil(t, d.Pop())
					assert.Zero(t, d.Len())
				})
			}
		}
	}
}

// TestBoundedFull fills the bounded variants: the push after the last
// slot reports false and changes nothing; a pop makes room again.
func TestBoundedFull(t *testing.T) {
	for _, v := range variants {
		if !v.bounded {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			d := v.make(12, 4)
			items := newInts(13)
			for _, p := range items[:12] {
				require.True(t, d.TryPush(p))
			}
			require.False(t, d.TryPush(items[12]), "full")
			require.False(t, d.TryPush(items[12]), "still full")
			require.Equal(t, 12, d.Len())
			require.Same(t, items[11], d.Pop(), "a failed push left no trace")
			require.True(t, d.TryPush(items[12]), "a pop made room")
			require.False(t, d.TryPush(items[0]))
			got, res := d.Steal()
			require.Equal(t, Success, res)
			require.Same(t, items[0], got)
			require.Equal(t, 11, d.Len())
		})
	}
}

// TestUnboundedGrows pushes far past the initial size of the growing
// variants.
func TestUnboundedGrows(t *testing.T) {
	for _, v := range variants {
		if v.bounded {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			d := v.make(2, 4)
			items := newInts(1000)
			for _, p := range items {
				require.True(t, d.TryPush(p))
			}
			require.Equal(t, 1000, d.Len())
			for i := range 500 {
				got, res := d.Steal()
				require.Equal(t, Success, res)
				require.Same(t, items[i], got)
			}
			for i := 999; i >= 500; i-- {
				require.Same(t, items[i], d.Pop())
			}
			require.Nil(t, d.Pop())
		})
	}
}

// TestMatchSpec runs long random single-goroutine sequences on
// every variant, with small sizes so that BWoS crosses blocks and wraps its
// ring, ABP fills and resets, and the growing variants grow, and compares
// every result and Len with the variant's sequential specification.
func TestMatchSpec(t *testing.T) {
	shapes := []struct{ capacity, block int }{{2, 1}, {4, 2}, {12, 4}, {64, 8}}
	for _, v := range variants {
		for _, sh := range shapes {
			t.Run(fmt.Sprintf("%s/cap=%d/block=%d", v.name, sh.capacity, sh.block), func(t *testing.T) {
				seed := rand.Uint64()
				rng := rand.New(rand.NewPCG(seed, 1))
				d := v.make(sh.capacity, sh.block)
				s := v.spec(sh.capacity, sh.block)
				next := 1
				vals := make([]int, 0, 20000)
				for step := range 20000 {
					// Drift between mostly pushing and mostly taking,
					// so the deque fills up and drains again.
					pushBias := 30 + 40*((step/500)%2)
					switch r := rng.IntN(100); {
					case r < pushBias:
						vals = append(vals, next)
						ok := d.TryPush(&vals[len(vals)-1])
						require.Equal(t, s.push(next), ok, "seed %d step %d: push %d", seed, step, next)
						next++
					case r < pushBias+(100-pushBias)/2:
						require.Equal(t, s.pop(), deref0(d.Pop()), "seed %d step %d: pop", seed, step)
					default:
						got, res := d.Steal()
						want := s.steal()
						require.NotEqual(t, Retry, res, "seed %d step %d: Retry with no race", seed, step)
						require.Equal(t, want, deref0(got), "seed %d step %d: steal", seed, step)
						require.Equal(t, want == 0, res == Empty, "seed %d step %d: steal result %v", seed, step, res)
					}
					require.Equal(t, s.len(), d.Len(), "seed %d step %d: Len", seed, step)
				}
			})
		}
	}
}

// deref0 makes a nil item 0, as in the specs.
func deref0(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// releaseChaseLev returns a ChaseLev that publishes with release stores
// where the platform allows.
func releaseChaseLev[T any](capacity int) *ChaseLev[T] {
	d := NewChaseLev[T](capacity)
	d.PublishWithRelease()
	return d
}
