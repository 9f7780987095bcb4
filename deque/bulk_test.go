package deque

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewBulkSegmentSize(t *testing.T) {
	assert.Equal(t, defaultSegmentSize, NewBulk[int](0).segSize)
	assert.Equal(t, defaultSegmentSize, NewBulk[int](-1).segSize)
	assert.Equal(t, 3, NewBulk[int](3).segSize, "any size, not only powers of two")
	assert.PanicsWithValue(t, "deque: NewBulk segment size 1073741825 exceeds 1<<30",
		func() { NewBulk[int](maxCapacity + 1) })
}

// TestBulkBatches covers PushBatch, StealBatch and StealFraction alone,
// with segments of 3 so that every batch crosses segment boundaries.
func TestBulkBatches(t *testing.T) {
	d := NewBulk[int](3)
	items := newInts(20)
	d.PushBatch(nil)
	d.PushBatch(items[:0])
	require.Zero(t, d.Len(), "empty batches push nothing")

	d.PushBatch(items[:7])
	d.Push(items[7])
	d.PushBatch(items[8:20])
	require.Equal(t, 20, d.Len())

	buf := make([]*int, 4)
	n, res := d.StealBatch(buf)
	require.Equal(t, Success, res)
	require.Equal(t, 4, n, "a batch is limited by the buffer")
	require.Equal(t, items[0:4], buf)

	// 16 left: half is 8, but the buffer holds 4.
	n, res = d.StealFraction(0.5, buf)
	require.Equal(t, Success, res)
	require.Equal(t, 4, n)
	require.Equal(t, items[4:8], buf)

	big := make([]*int, 32)
	n, res = d.StealFraction(0.1, big) // 12 left: ceil(1.2) = 2
	require.Equal(t, Success, res)
	require.Equal(t, 2, n)
	require.Equal(t, items[8:10], big[:2])

	n, res = d.StealFraction(0.6, big) // 10 left: 6
	require.Equal(t, Success, res)
	require.Equal(t, items[10:16], big[:n])

	require.Same(t, items[19], d.Pop())
	n, res = d.StealBatch(big) // everything: 16, 17, 18
	require.Equal(t, Success, res)
	require.Equal(t, items[16:19], big[:n])

	n, res = d.StealBatch(big)
	assert.Equal(t, Empty, res)
	assert.Zero(t, n)
	n, res = d.StealFraction(1, big)
	assert.Equal(t, Empty, res)
	assert.Zero(t, n)
	assert.Nil(t, d.Pop())
	assert.Zero(t, d.Len())
}

func TestBulkFractionClamps(t *testing.T) {
	tests := []struct {
		fraction float64
		want     int // of 10 items
	}{
		{0, 1}, {-1, 1}, {math.NaN(), 1}, {0.01, 1}, {0.25, 3}, {0.5, 5}, {1, 10}, {7, 10}, {math.Inf(1), 10},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.fraction), func(t *testing.T) {
			d := NewBulk[int](4)
			d.PushBatch(newInts(10))
			buf := make([]*int, 16)
			n, res := d.StealFraction(tt.fraction, buf)
			require.Equal(t, Success, res)
			assert.Equal(t, tt.want, n)
			assert.Equal(t, 10-tt.want, d.Len())
		})
	}
	d := NewBulk[int](4)
	d.Push(new(int))
	n, res := d.StealBatch(nil)
	assert.Equal(t, Empty, res, "nothing fits in an empty buffer")
	assert.Zero(t, n)
	assert.Equal(t, 1, d.Len())
}

func TestBulkPushBatchNilPanics(t *testing.T) {
	d := NewBulk[int](2)
	items := newInts(3)
	items[1] = nil
	require.PanicsWithValue(t, "deque: Bulk.PushBatch of a nil item", func() { d.PushBatch(items) })
	assert.Zero(t, d.Len(), "a rejected batch leaves the deque unchanged")
	assert.Nil(t, d.Pop())
	require.PanicsWithValue(t, "deque: Bulk.Push of a nil item", func() { d.Push(nil) })
}

// TestBulkSegments checks the owner's segment bookkeeping: an owner that
// pops back and pushes forward across boundaries reuses the spare segments
// instead of allocating, and once thieves have taken whole segments the
// owner's back links no longer reach them.
func TestBulkSegments(t *testing.T) {
	d := NewBulk[int](4)
	items := newInts(64)
	d.PushBatch(items[:5]) // second segment in use
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		d.Pop() // back into the first segment
		d.Pop()
		d.Push(items[3]) // forward into the spare
		d.Push(items[4])
	}))
	d.PushBatch(items[5:17]) // five segments
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		for d.Len() > 1 {
			d.Pop() // back to the first segment
		}
		d.PushBatch(items[1:17]) // forward through four spares
	}), "the spares are kept")
	for d.Pop() != nil {
	}
	d.PushBatch(items[:5])

	d.PushBatch(items[5:40]) // ten segments
	buf := make([]*int, 64)
	n, res := d.StealBatch(buf[:37])
	require.Equal(t, Success, res)
	require.Equal(t, items[:37], buf[:n])
	d.PushBatch(items[40:44]) // crosses a boundary: cuts the back links
	back := 0
	for s := d.seg; s.prev != nil; s = s.prev {
		back++
	}
	assert.LessOrEqual(t, back, 1, "back links below top were cut")
	assert.Equal(t, d.hint.Load(), segmentOf(d, 36), "the hint moved to the last stolen index")
	for i := 43; i >= 37; i-- {
		require.Same(t, items[i], d.Pop())
	}
	assert.Nil(t, d.Pop())
}

// segmentOf finds the segment holding index i from the hint on.
func segmentOf[T any](d *Bulk[T], i int64) *bulkSegment[T] {
	for s := d.hint.Load(); s != nil; s = s.next.Load() {
		if i >= s.base && i < s.base+int64(len(s.items)) {
			return s
		}
	}
	return nil
}

// TestBulkIndexWrap starts the deque's 32-bit ends just below 2^32, as if
// four billion items had gone through it, and checks that every operation
// carries across the wrap.
func TestBulkIndexWrap(t *testing.T) {
	for _, start := range []uint32{math.MaxUint32 - 5, math.MaxUint32, 0} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			d := NewBulk[int](4)
			// The owner's full index and the segments keep counting
			// from 0; only the packed word starts at start. Both ends
			// are equal, so the deque is empty and consistent.
			d.ends.Store(uint64(start)<<32 | uint64(start))
			d.bottom = int64(start)
			d.seg.base = int64(start)
			items := newInts(12)
			d.PushBatch(items[:10])
			d.Push(items[10])
			buf := make([]*int, 4)
			n, res := d.StealBatch(buf)
			require.Equal(t, Success, res)
			require.Equal(t, items[:4], buf[:n])
			v, res := d.Steal()
			require.Equal(t, Success, res)
			require.Same(t, items[4], v)
			require.Equal(t, 6, d.Len())
			for i := 10; i >= 5; i-- {
				require.Same(t, items[i], d.Pop())
			}
			require.Nil(t, d.Pop())
			require.Zero(t, d.Len())
		})
	}
}
