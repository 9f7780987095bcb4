package deque

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ownerPattern is how the owner mixes pushes and pops in the concurrent
// tests.
type ownerPattern int

const (
	// randomOps pushes or pops at random, slightly more pushes, so the
	// deque hovers near empty and owner and thieves race for the last
	// items (and, for BWoS, for blocks being taken back).
	randomOps ownerPattern = iota
	// fillDrain pushes until the deque is full (or holds the capacity, for
	// the growing variants), then pops until it is empty, as the
	// thesis-style benchmark does: it crosses every block and ring
	// boundary and, for ABP, hits full and reset over and over.
	fillDrain
)

// runExactlyOnce has one owner push n tracked items into d with pattern
// while thieves steal, then drains d and checks that every item came out
// exactly once and that pushes = pops + steals + remaining.
func runExactlyOnce(t *testing.T, d Deque[tracked], n, capacity, thieves int, pattern ownerPattern) {
	t.Helper()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	items := make([]tracked, n)
	for i := range items {
		items[i].id = i
	}
	stats := make([]stealerStats, thieves)
	var pops, fulls int64
	var stop atomic.Bool
	var badSteals atomic.Int64

	runWithWatchdog(t, watchdogLimit, func() {
		var wg sync.WaitGroup
		var ready sync.WaitGroup
		ready.Add(thieves)
		for w := range thieves {
			wg.Go(func() {
				s := &stats[w]
				ready.Done()
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
					case Retry:
						s.retries++
					case Empty:
						// Yield now and then so that, with more
						// goroutines than cores, an idle thief does
						// not hold a CPU the owner needs.
						if s.empties++; s.empties%64 == 0 {
							runtime.Gosched()
						}
					}
				}
			})
		}

		rng := rand.New(rand.NewPCG(seed, 0xd0))
		pop := func() bool {
			v := d.Pop()
			if v != nil {
				v.taken.Add(1)
				pops++
			}
			return v != nil
		}
		// Start once every thief runs, and give them room: a short
		// random spin per step lets them catch up with the owner, and
		// an occasional yield lets the thieves that have no CPU take
		// their turn (they yield back when they find nothing).
		ready.Wait()
		next := 0
		for step := 1; next < n; step++ {
			spin(rng.IntN(4))
			if step%256 == 0 {
				runtime.Gosched()
			}
			switch pattern {
			case randomOps:
				if rng.IntN(100) < 45 {
					pop()
				} else if d.TryPush(&items[next]) {
					next++
				} else {
					fulls++
					pop()
				}
			case fillDrain:
				for k := 0; k < capacity && next < n; k++ {
					if !d.TryPush(&items[next]) {
						fulls++
						break
					}
					next++
				}
				for pop() {
				}
			}
		}
		stop.Store(true)
		wg.Wait()
	})

	remaining := d.Len()
	drained := 0
	for v := d.Pop(); v != nil; v = d.Pop() {
		v.taken.Add(1)
		drained++
	}
	require.Equal(t, remaining, drained, "Len after the run vs items drained by Pop")

	var steals, retries, empties int64
	for _, s := range stats {
		steals += s.steals
		retries += s.retries
		empties += s.empties
	}
	t.Logf("pushes %d = pops %d + steals %d + remaining %d; full %d, retries %d, empties %d",
		n, pops, steals, remaining, fulls, retries, empties)
	require.Zero(t, badSteals.Load(), "Steal returned (nil, Success)")
	require.Equal(t, int64(n), pops+steals+int64(remaining), "pushes = pops + steals + remaining")
	for i := range items {
		if c := items[i].taken.Load(); c != 1 {
			t.Fatalf("item %d handed out %d times", i, c)
		}
	}
	assert.Positive(t, steals, "thieves never stole anything; the test proved little")
}

// TestVariantsExactlyOnce runs every variant with one owner and three
// thieves, in both owner patterns, with small blocks and capacities so that
// the boundaries (BWoS's blocks and ring, ABP's reset, growth, Bulk's
// segments) are crossed thousands of times.
func TestVariantsExactlyOnce(t *testing.T) {
	needTwoPs(t)
	n := 500_000
	switch {
	case testing.Short():
		n = 20_000
	case raceEnabled:
		n = 100_000
	}
	shapes := []struct {
		pattern         ownerPattern
		capacity, block int
	}{
		{randomOps, 16, 4},
		{fillDrain, 64, 8},
	}
	for _, v := range variants {
		for _, sh := range shapes {
			name := fmt.Sprintf("%s/random", v.name)
			if sh.pattern == fillDrain {
				name = fmt.Sprintf("%s/fill-drain", v.name)
			}
			t.Run(name, func(t *testing.T) {
				runExactlyOnce(t, v.tracked(sh.capacity, sh.block), n, sh.capacity, 3, sh.pattern)
			})
		}
	}
}
