package deque

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReverseNewestReversesTheNewestItems(t *testing.T) {
	cases := []struct {
		name     string
		pushed   int   // items pushed, 1 first (newInts)
		k        int64 // ReverseNewest's argument
		reversed bool
		popOrder []int // every item, as Pop returns them
	}{
		{"four above one", 5, 4, true, []int{2, 3, 4, 5, 1}},
		{"two above three", 5, 2, true, []int{4, 5, 3, 2, 1}},
		{"three above one", 4, 3, true, []int{2, 3, 4, 1}},
		{"all of them", 4, 4, true, []int{1, 2, 3, 4}},
		{"all of nine", 9, 9, false, []int{9, 8, 7, 6, 5, 4, 3, 2, 1}},
		{"all of eight", 8, 8, true, []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{"more than held", 3, 5, true, []int{1, 2, 3}},
		{"one held", 1, 4, false, []int{1}},
		{"one", 3, 1, false, []int{3, 2, 1}},
		{"none", 3, 0, false, []int{3, 2, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewChaseLev[int](4) // small, so that indices wrap the ring
			items := newInts(c.pushed)
			for _, it := range items {
				d.Push(it)
			}
			assert.Equal(t, c.reversed, d.ReverseNewest(c.k))
			var got []int
			for v := d.Pop(); v != nil; v = d.Pop() {
				got = append(got, *v)
			}
			assert.Equal(t, c.popOrder, got)
		})
	}
}

// TestReverseNewestRacingThievesLosesAndDoublesNothing has an owner push
// runs of items and reverse them while thieves steal: every item must come
// out exactly once, and the owner must pop what is left of each reversed
// run oldest first.
func TestReverseNewestRacingThievesLosesAndDoublesNothing(t *testing.T) {
	needTwoPs(t)
	const (
		rounds  = 200000
		run     = 4
		thieves = 2
	)
	items := make([]tracked, rounds*(run+1))
	for i := range items {
		items[i].id = i
	}
	d := NewChaseLev[tracked](8)
	d.PublishWithRelease()
	var stop atomic.Bool
	var stolen atomic.Int64
	var reversals, outOfOrder, next int
	runWithWatchdog(t, watchdogLimit, func() {
		var wg sync.WaitGroup
		for range thieves {
			wg.Go(func() {
				for !stop.Load() {
					if v, res := d.Steal(); res == Success {
						v.taken.Add(1)
						stolen.Add(1)
					}
				}
			})
		}
		for round := range rounds {
			// Every other round one item below the run (the reversal in
			// place), else the run alone (the reversal by taking them
			// all), then the run.
			if round%2 == 0 {
				d.Push(&items[next])
				next++
			}
			first := next
			for range run {
				d.Push(&items[next])
				next++
			}
			if d.ReverseNewest(run) {
				reversals++
				// Pop the run back: oldest first, unless thieves took
				// some (they take the item below first).
				var ids []int
				for range run {
					v := d.Pop()
					if v == nil {
						break
					}
					v.taken.Add(1)
					ids = append(ids, v.id)
				}
				// Whatever thieves took (the oldest before the
				// reversal, the newest after it), the owner pops the
				// rest of the run oldest first: consecutive ids.
				for i, id := range ids {
					if id != ids[0]+i || id < first || id >= first+run {
						outOfOrder++
						break
					}
				}
			}
			// Drain what is left, so that every round starts empty and
			// the thieves race the owner for the item below the run and
			// the run's oldest.
			for v := d.Pop(); v != nil; v = d.Pop() {
				v.taken.Add(1)
			}
		}
		for v := d.Pop(); v != nil; v = d.Pop() {
			v.taken.Add(1)
		}
		stop.Store(true)
		wg.Wait()
	})
	for i := range items[:next] {
		require.EqualValues(t, 1, items[i].taken.Load(), "item %d", i)
	}
	assert.Positive(t, reversals)
	assert.Zero(t, outOfOrder, "reversed runs that the owner popped in another order")
	t.Logf("reversals %d of %d rounds, %d items stolen", reversals, rounds, stolen.Load())
}
