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

// ownerPattern is how the owner mixes pushes and pops in the concurrent
// tests.
type ownerPattern int

const (
	// randomOps pushes (now and then a burst) or pops at random, as the
	// case's percentages say: near 50% pops the deque hovers near empty
	// and owner and thieves race for the last items (and, for BWoS, for
	// blocks being taken back); fewer pops let it grow; none makes the
	// owner push-only.
	randomOps ownerPattern = iota
	// fillDrain pushes until the deque is full (or holds the capacity, for
	// the growing variants), then pops until it is empty, as the
	// thesis-style benchmark does: it crosses every block and ring
	// boundary and, for ABP, hits full and reset over and over.
	fillDrain
)

// exactlyOnceCase is how runExactlyOnce drives the owner.
type exactlyOnceCase struct {
	name    string
	pattern ownerPattern
	// popPercent is randomOps' chance, per step, to pop instead of push;
	// burstPercent the chance that a push step pushes a burst of up to 64
	// items (forcing growth while thieves steal).
	popPercent, burstPercent int
	// capacity is the bound of a bounded variant and the initial size of
	// a growing one (and how many items fillDrain pushes in a row); block
	// is BWoS's block size and Bulk's segment size.
	capacity, block int
	// itemsPercent scales the test's item count.
	itemsPercent int
	// thieves is how many goroutines steal.
	thieves int
	// growing runs the case only on the variants that grow.
	growing bool
	// batches runs the case only on Bulk: its bursts are PushBatch calls
	// of up to 99 items, and its thieves take single items, batches and
	// fractions at random.
	batches bool
}

// runExactlyOnce has one owner push n tracked items into d as c says
// while thieves steal, then drains d and checks that every item came out
// exactly once and that pushes = pops + steals + remaining; with a
// push-only owner, also that each thief's steals came out in push order.
func runExactlyOnce(t *testing.T, d Deque[tracked], n int, c exactlyOnceCase) {
	t.Helper()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	items := make([]tracked, n)
	for i := range items {
		items[i].id = i
	}
	bulk, _ := d.(*Bulk[tracked])
	// stealInto takes one item, or with c.batches a batch or a fraction,
	// into buf.
	stealInto := func(rng *rand.Rand, buf []*tracked) (int, StealResult) {
		if c.batches {
			switch rng.IntN(3) {
			case 1:
				return bulk.StealBatch(buf[:1+rng.IntN(len(buf))])
			case 2:
				return bulk.StealFraction([]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}[rng.IntN(6)], buf)
			}
		}
		v, res := d.Steal()
		if res != Success {
			return 0, res
		}
		buf[0] = v
		return 1, res
	}
	thieves := c.thieves
	stats := make([]stealerStats, thieves)
	var pops, fulls, batches int64
	var stop atomic.Bool
	var badSteals atomic.Int64
	// stolen is set at the first steal: a fill-drain owner that has seen
	// none yet yields before draining, so that thieves starved of CPU on
	// a loaded machine still get the chance the test is about.
	var stolen atomic.Bool

	runWithWatchdog(t, watchdogLimit, func() {
		var wg sync.WaitGroup
		var ready sync.WaitGroup
		ready.Add(thieves)
		for w := range thieves {
			wg.Go(func() {
				s := &stats[w]
				s.lastID = -1
				rng := rand.New(rand.NewPCG(seed, uint64(w)+1))
				buf := make([]*tracked, 64)
				ready.Done()
				for !stop.Load() {
					k, res := stealInto(rng, buf)
					if res == Success && k == 0 {
						badSteals.Add(1)
					}
					for _, v := range buf[:k] {
						if v == nil {
							badSteals.Add(1)
							continue
						}
						v.taken.Add(1)
						if s.steals++; s.steals == 1 && !stolen.Load() {
							stolen.Store(true)
						}
						if v.id <= s.lastID {
							s.outOfOrder++
						}
						s.lastID = v.id
					}
					switch res {
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
		batch := make([]*tracked, 0, 100)
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
			switch c.pattern {
			case randomOps:
				r := rng.IntN(100)
				switch {
				case r < c.popPercent:
					pop()
				case r < c.popPercent+c.burstPercent && c.batches:
					batch = batch[:0]
					for k := rng.IntN(100); k > 0 && next < n; k-- {
						batch = append(batch, &items[next])
						next++
					}
					bulk.PushBatch(batch)
					batches++
				case r < c.popPercent+c.burstPercent:
					for k := 1 + rng.IntN(64); k > 0 && next < n; k-- {
						if !d.TryPush(&items[next]) {
							fulls++
							break
						}
						next++
					}
				case d.TryPush(&items[next]):
					next++
				default:
					fulls++
					pop()
				}
			case fillDrain:
				for k := 0; k < c.capacity && next < n; k++ {
					if !d.TryPush(&items[next]) {
						fulls++
						break
					}
					next++
				}
				for y := 0; y < 64 && !stolen.Load(); y++ {
					runtime.Gosched()
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

	var steals, retries, empties, outOfOrder int64
	for _, s := range stats {
		steals += s.steals
		retries += s.retries
		empties += s.empties
		outOfOrder += s.outOfOrder
	}
	t.Logf("pushes %d (%d batches) = pops %d + steals %d + remaining %d; full %d, retries %d, empties %d",
		n, batches, pops, steals, remaining, fulls, retries, empties)
	require.Zero(t, badSteals.Load(), "a steal reported a nil item or Success with nothing")
	require.Equal(t, int64(n), pops+steals+int64(remaining), "pushes = pops + steals + remaining")
	for i := range items {
		if c := items[i].taken.Load(); c != 1 {
			t.Fatalf("item %d handed out %d times", i, c)
		}
	}
	assert.Positive(t, steals, "thieves never stole anything; the test proved little")
	if c.pattern == randomOps && c.popPercent == 0 {
		assert.Zero(t, outOfOrder, "a thief's steals from a push-only owner came out of push order")
	}
}

// TestExactlyOnce runs every variant with one owner and three thieves:
// near empty, and filling and draining, with small blocks and capacities
// so that the boundaries (BWoS's blocks and ring, ABP's reset, growth,
// Bulk's segments) are crossed thousands of times; and the growing
// variants from one slot, growing while thieves steal, with an owner that
// mostly pushes and with one that only pushes; and Bulk with batch pushes
// against thieves that take batches and fractions.
func TestExactlyOnce(t *testing.T) {
	needTwoPs(t)
	n := 500_000
	switch {
	case testing.Short():
		n = 20_000
	case raceEnabled:
		n = 100_000
	}
	cases := []exactlyOnceCase{
		{name: "near-empty", pattern: randomOps, popPercent: 48, burstPercent: 1, capacity: 16, block: 4, itemsPercent: 100, thieves: 3},
		{name: "fill-drain", pattern: fillDrain, capacity: 64, block: 8, itemsPercent: 100, thieves: 3},
		{name: "growing", pattern: randomOps, popPercent: 25, burstPercent: 5, capacity: 1, block: 4, itemsPercent: 40, thieves: 3, growing: true},
		{name: "push-only", pattern: randomOps, popPercent: 0, burstPercent: 2, capacity: 1, block: 4, itemsPercent: 40, thieves: 3, growing: true},
		// Bulk's paper has one thief; this deque allows several.
		{name: "batches/thieves=1", pattern: randomOps, popPercent: 40, burstPercent: 10, capacity: 16, block: 16, itemsPercent: 80, thieves: 1, batches: true},
		{name: "batches/thieves=3", pattern: randomOps, popPercent: 40, burstPercent: 10, capacity: 16, block: 16, itemsPercent: 80, thieves: 3, batches: true},
	}
	for _, v := range variants {
		for _, c := range cases {
			if c.growing && v.bounded || c.batches && !v.batches {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", v.name, c.name), func(t *testing.T) {
				runExactlyOnce(t, v.tracked(c.capacity, c.block), n*c.itemsPercent/100, c)
			})
		}
	}
}
