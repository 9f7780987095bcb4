package bench

import (
	"context"
	"slices"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// The engage workload of the fork-join peers (../shared/peers, engage.rs
// and engage.go there): how soon an idle pool of P workers has all of them
// working. After some idleness (the workers fall asleep), P leaves that
// each spin for a fixed time are handed to the pool, and each leaf records
// when it started. On many cores this is what every short parallel region
// pays before it runs at full width; on two, the second worker may simply
// run after the first leaf.
//
// The leaves do not wait for each other: a leaf queued behind another on
// a busy worker runs when that one is done, so every style completes even
// where the pool leaves idle workers asleep, and the start times show it.

// EngageWarmups is the number of untimed trials Engage runs first, as the
// peers do.
const EngageWarmups = 2

// EngageStyle is one way of handing leaves to a pool.
type EngageStyle struct {
	// Name names the style in the peers' rows (go-spindle-NAME) and in
	// BenchmarkEngage's sub-benchmarks.
	Name string
	// hand runs leaf(0) to leaf(n-1), n >= 1, on p and returns when all
	// have returned. It is called from outside p.
	hand func(p *pool.Pool, n int, leaf func(i int))
}

// EngageStyles are the styles the peers command prints, in its order:
//
//   - for: forkjoin.For(0, n, 1, ...) inside Pool.Run, one bulk spawn of
//     n chunks of one leaf (Rayon's par_iter with_max_len(1)).
//   - do: a tree of forkjoin.Do over halves of the leaves' range inside
//     Pool.Run, down to one leaf (Rayon's join tree).
//   - spawn: Pool.Scope with a Scope.Spawn per leaf.
//   - spawnmany: Pool.Scope with one Scope.SpawnMany(n, ...).
//   - group: a pool.Group of the pool with a Go per leaf, then Wait,
//     called from outside the pool as errgroup code would be.
var EngageStyles = []EngageStyle{
	{"for", engageFor},
	{"do", engageDo},
	{"spawn", engageSpawn},
	{"spawnmany", engageSpawnMany},
	{"group", engageGroup},
}

func engageFor(p *pool.Pool, n int, leaf func(int)) {
	p.Run(func() {
		forkjoin.For(0, n, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				leaf(i)
			}
		})
	})
}

// engageRange is a piece of the do style's tree: leaves lo to hi-1.
type engageRange struct {
	lo, hi int
	leaf   func(int)
}

func engageTree(r engageRange) {
	if r.hi-r.lo == 1 {
		r.leaf(r.lo)
		return
	}
	m := r.lo + (r.hi-r.lo)/2
	forkjoin.Do(engageTree, engageRange{r.lo, m, r.leaf}, engageRange{m, r.hi, r.leaf})
}

func engageDo(p *pool.Pool, n int, leaf func(int)) {
	p.Run(func() { engageTree(engageRange{0, n, leaf}) })
}

func engageSpawn(p *pool.Pool, n int, leaf func(int)) {
	p.Scope(func(s *pool.Scope) {
		for i := range n {
			s.Spawn(func(*pool.Scope) { leaf(i) })
		}
	})
}

func engageSpawnMany(p *pool.Pool, n int, leaf func(int)) {
	p.Scope(func(s *pool.Scope) {
		s.SpawnMany(n, func(_ *pool.Scope, i int) { leaf(i) })
	})
}

func engageGroup(p *pool.Pool, n int, leaf func(int)) {
	g, _ := p.NewGroup(context.Background())
	for i := range n {
		g.Go(func() error {
			leaf(i)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		panic(err) // no leaf returns an error
	}
}

// EngageSample is one trial of the engage workload, or the medians of
// several. First, Middle and Last are the starts of the 1st, (n/2+1)th
// and nth leaf to start, after the call; Lost is the call's time minus one
// leaf, what getting every worker going cost.
type EngageSample struct {
	First, Middle, Last, Lost time.Duration
}

// EngageTrial hands n leaves of leaf time each to p in the given style, at
// once, and returns when they started and the time lost. Each leaf spins
// on the clock (it does not yield), as the peers' leaves do. n must be at
// least 1.
func EngageTrial(p *pool.Pool, st EngageStyle, n int, leaf time.Duration) EngageSample {
	starts := make([]time.Duration, n)
	t0 := time.Now()
	st.hand(p, n, func(i int) {
		starts[i] = time.Since(t0)
		spinFor(leaf)
	})
	lost := time.Since(t0) - leaf
	slices.Sort(starts)
	return EngageSample{First: starts[0], Middle: starts[n/2], Last: starts[n-1], Lost: lost}
}

// Engage runs EngageWarmups and then trials trials of EngageTrial, each
// after sleeping for idle, and returns the medians of the timed ones. With
// an odd number of trials, as the peers' default of 25, the medians are
// the peers' medians; with an even number they are the mean of the middle
// two (Median), where the peers take the upper one.
func Engage(p *pool.Pool, st EngageStyle, n int, leaf, idle time.Duration, trials int) EngageSample {
	var s engageSamples
	for t := range EngageWarmups + trials {
		time.Sleep(idle)
		x := EngageTrial(p, st, n, leaf)
		if t >= EngageWarmups {
			s.add(x)
		}
	}
	return s.median()
}

// engageSamples collects trials, field by field, for their medians.
type engageSamples struct {
	first, middle, last, lost []time.Duration
}

func (s *engageSamples) add(x EngageSample) {
	s.first = append(s.first, x.First)
	s.middle = append(s.middle, x.Middle)
	s.last = append(s.last, x.Last)
	s.lost = append(s.lost, x.Lost)
}

func (s *engageSamples) median() EngageSample {
	return EngageSample{First: Median(s.first), Middle: Median(s.middle), Last: Median(s.last), Lost: Median(s.lost)}
}

// spinFor spins on the clock for d, as the peers' leaves do.
func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
