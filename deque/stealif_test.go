package deque

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStealIfTakesTheOldestOnlyWhenKept(t *testing.T) {
	d := NewChaseLev[int](4)
	items := newInts(3)
	for _, p := range items {
		d.Push(p)
	}
	even := func(p *int) bool { return *p%2 == 0 }

	got, res := d.StealIf(even)
	assert.Nil(t, got, "1 is the oldest and odd: refused")
	assert.Equal(t, Empty, res)
	assert.Equal(t, 3, d.Len(), "a refused item stays")

	got, res = d.Steal()
	require.Equal(t, Success, res)
	assert.Equal(t, 1, *got)
	got, res = d.StealIf(even)
	require.Equal(t, Success, res)
	assert.Equal(t, 2, *got)
	assert.Equal(t, 3, *d.Peek())
	assert.Equal(t, 3, *d.Pop())
	assert.Nil(t, d.Peek())
	got, res = d.StealIf(func(*int) bool { return true })
	assert.Nil(t, got)
	assert.Equal(t, Empty, res)
}

// Owner pops (after a Peek) and choosy thieves race for every item: each
// is taken exactly once, the thieves only take what they keep, and a Pop
// after a Peek returns the peeked item or nil.
func TestStealIfExactlyOnceUnderRaces(t *testing.T) {
	needTwoPs(t)
	const n = 20000
	d := NewChaseLev[int](8)
	items := newInts(n)
	var taken [n + 1]atomic.Int32
	var wrongKind, wrongPeek atomic.Int32
	runWithWatchdog(t, watchdogLimit, func() {
		var stop atomic.Bool
		var wg sync.WaitGroup
		for th := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				keep := func(p *int) bool { return p != nil && *p%2 == th }
				for !stop.Load() || !d.Empty() {
					if v, res := d.StealIf(keep); res == Success {
						if *v%2 != th {
							wrongKind.Add(1)
						}
						taken[*v].Add(1)
					} else if stop.Load() {
						return
					}
				}
			}()
		}
		for i, p := range items {
			d.Push(p)
			if i%3 == 0 {
				peek := d.Peek()
				if v := d.Pop(); v != nil {
					if v != peek {
						wrongPeek.Add(1)
					}
					taken[*v].Add(1)
				}
			}
		}
		stop.Store(true)
		wg.Wait()
		for v := d.Pop(); v != nil; v = d.Pop() {
			taken[*v].Add(1)
		}
	})
	assert.Zero(t, wrongKind.Load(), "a thief took an item it refused")
	assert.Zero(t, wrongPeek.Load(), "Pop after Peek returned another item")
	for i := 1; i <= n; i++ {
		if got := taken[i].Load(); got != 1 {
			t.Fatalf("item %d taken %d times", i, got)
		}
	}
}
