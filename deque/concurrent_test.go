package deque

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tracked is an item that counts how often it was handed out.
type tracked struct {
	id    int
	taken atomic.Int32
}

// stealerStats is one thief's tally, written only by that thief.
type stealerStats struct {
	steals, retries, empties int64
	// lastID is the id of the thief's previous successful steal. With a
	// push-only owner, one thief's steals must come out in push order.
	lastID     int
	outOfOrder int64
}

// TestConcurrentExactlyOnce runs one owner pushing and popping at random
// against three thieves, then checks that every item was handed out exactly
// once and that pushes = pops + steals + remaining.
func TestConcurrentExactlyOnce(t *testing.T) {
	needTwoPs(t)
	tests := []struct {
		name string
		// items is how many items the owner pushes in total.
		items int
		// popPercent is the owner's chance, per step, to pop instead of
		// push; near 50 the deque hovers around empty and the owner and
		// thieves fight over the last item, lower values let it grow.
		popPercent int
		// burstPercent is the chance that a push step pushes a burst of
		// up to 64 items, forcing growth while thieves are stealing.
		burstPercent int
		capacity     int
	}{
		// The main case: a million items, mostly near-empty races.
		{name: "near-empty", items: 1_000_000, popPercent: 48, burstPercent: 1, capacity: 2},
		{name: "growing", items: 200_000, popPercent: 25, burstPercent: 5, capacity: 1},
		{name: "push-only", items: 200_000, popPercent: 0, burstPercent: 2, capacity: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.items
			if testing.Short() {
				n /= 10
			}
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			const thieves = 3

			items := make([]tracked, n)
			for i := range items {
				items[i].id = i
			}
			d := NewChaseLev[tracked](tt.capacity)
			stats := make([]stealerStats, thieves)
			var pops int64
			var stop atomic.Bool
			var badSteals atomic.Int64 // Success with a nil item

			runWithWatchdog(t, watchdogLimit, func() {
				var wg sync.WaitGroup
				for w := range thieves {
					wg.Go(func() {
						s := &stats[w]
						s.lastID = -1
						for !stop.Load() {
							v, res := d.Steal()
							switch res {
							case Success:
								if v == nil {
									badSteals.Add(1)
									continue
								}
								v.taken.Add(1)
								s.steals++
								if v.id <= s.lastID {
									s.outOfOrder++
								}
								s.lastID = v.id
							case Retry:
								s.retries++
							case Empty:
								s.empties++
							}
						}
					})
				}

				rng := rand.New(rand.NewPCG(seed, 0x5eed))
				next := 0
				for next < n {
					r := rng.IntN(100)
					switch {
					case r < tt.popPercent:
						if v := d.Pop(); v != nil {
							v.taken.Add(1)
							pops++
						}
					case r < tt.popPercent+tt.burstPercent:
						for k := 1 + rng.IntN(64); k > 0 && next < n; k-- {
							d.Push(&items[next])
							next++
						}
					default:
						d.Push(&items[next])
						next++
					}
				}
				stop.Store(true)
				wg.Wait()
			})

			// Everyone has stopped: Len is exact now.
			remaining := d.Len()
			drained := 0
			for v := d.Pop(); v != nil; v = d.Pop() {
				v.taken.Add(1)
				drained++
			}
			require.Equal(t, remaining, drained, "Len after the run vs items drained by Pop")

			var steals, retries, empties, outOfOrder int64
			for _, s := range stats {
				steals += s.steals
				retries += s.retries
				empties += s.empties
				outOfOrder += s.outOfOrder
			}
			t.Logf("pushes %d = pops %d + steals %d + remaining %d; retries %d, empties %d",
				n, pops, steals, remaining, retries, empties)

			require.Zero(t, badSteals.Load(), "Steal returned (nil, Success)")
			require.Equal(t, int64(n), pops+steals+int64(remaining), "pushes = pops + steals + remaining")
			for i := range items {
				if c := items[i].taken.Load(); c != 1 {
					t.Fatalf("item %d handed out %d times", i, c)
				}
			}
			assert.Positive(t, steals, "thieves never stole anything; the test proved little")
			if tt.popPercent == 0 {
				assert.Zero(t, outOfOrder, "a thief's steals from a push-only owner came out of push order")
			}
		})
	}
}
