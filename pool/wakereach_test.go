package pool_test

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// wakeTree records a pool's sleeps and wake-ups (WithTrace) and measures
// the tree of wake-ups of one burst of work: a worker woken from outside
// the pool is at depth 1, one woken by a worker at depth d is at d+1.
// Depths are computed once the burst is over: a woken worker may wake
// others before its own wake-up is traced (the waker reports it after
// the unpark).
type wakeTree struct {
	mu     sync.Mutex
	asleep map[int]bool
	waker  map[int]int // the waker of each worker's first wake-up since reset
}

func (wt *wakeTree) trace(e pool.Event) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	switch e.Kind {
	case pool.EventSleep:
		wt.asleep[e.Worker] = true
	case pool.EventWake:
		wt.asleep[e.Worker] = false
		if _, ok := wt.waker[e.Worker]; !ok {
			wt.waker[e.Worker] = e.Waker
		}
	}
}

// sleepers returns how many workers are blocked.
func (wt *wakeTree) sleepers() int {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	n := 0
	for _, a := range wt.asleep {
		if a {
			n++
		}
	}
	return n
}

// reset forgets the wake-ups so far and returns the depth of each worker
// woken. A waker that was not woken since the last reset was awake
// before the burst (depth 0).
func (wt *wakeTree) reset() map[int]int {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	depth := map[int]int{}
	var of func(w, hops int) int
	of = func(w, hops int) int {
		by, ok := wt.waker[w]
		switch {
		case !ok:
			return 0
		case by < 0 || hops > len(wt.waker): // from outside, or a cycle
			return 1
		}
		return of(by, hops+1) + 1
	}
	for w := range wt.waker {
		depth[w] = of(w, 0)
	}
	wt.waker = map[int]int{}
	return depth
}

// TestWakeUpsReachEveryWorkerInLogHops posts one burst of P pieces that
// wait for each other (testutil.Meeting) to a pool of P workers that are
// all asleep, and follows the wake-ups in the trace: every worker must be
// woken in every round, and the wake-up tree must reach all of them within
// ceil(log2 P)+1 wake-ups in a row from the post (the Run from outside
// wakes the first) in at least one round of each style. A bulk spawn
// posts its P tasks as one job and its runners split them for the
// sleepers.
//
// Why not in every round: on a machine with fewer cores than workers the
// OS often runs a woken thread at once in place of its waker, which then
// waits for a time slice before it wakes the next sleeper, while the
// woken thread wakes others in its place, one hop deeper. The depth of a
// round then says as much about the OS's choices as about the rule; a
// round within the bound shows the rule's reach, and a rule or a bulk path
// that leaves work stranded or sleepers unwoken fails every round. So the
// test runs minRounds rounds, then more, up to maxRounds, until one is
// within the bound: while another process held one of two cores (CI runs
// test binaries side by side), five rounds in a row once read depth 5.
func TestWakeUpsReachEveryWorkerInLogHops(t *testing.T) {
	const workers, minRounds, maxRounds = 8, 5, 20
	maxHops := bits.Len(uint(workers-1)) + 1
	styles := []struct {
		name string
		run  func(n int, piece func())
	}{
		{"SpawnMany", func(n int, piece func()) {
			pool.Current().Scope(func(s *pool.Scope) {
				s.SpawnMany(n, func(*pool.Scope, int) { piece() })
			})
		}},
		{"For", func(n int, piece func()) {
			forkjoin.For(0, n, 1, func(int, int) { piece() })
		}},
		{"Spawn", func(n int, piece func()) {
			pool.Current().Scope(func(s *pool.Scope) {
				for range n {
					s.Spawn(func(*pool.Scope) { piece() })
				}
			})
		}},
	}
	for _, st := range styles {
		t.Run(fmt.Sprintf("%s/P=%d", st.name, workers), func(t *testing.T) {
			testutil.WithProcs(t, workers+1)
			wt := &wakeTree{asleep: map[int]bool{}, waker: map[int]int{}}
			// No guests: the burst starts from a call injected from
			// outside, so that every worker's depth counts from there.
			// No spares: the monitor may take a piece that yields its P for
			// a blocked one (a wait for the collector looks the same) and
			// start a spare, a ninth thread in the tree (1 test run in 60 at
			// GOMAXPROCS=64); the rule under test is the workers' own.
			p, err := pool.New(pool.WithWorkers(workers), pool.WithTrace(wt.trace), pool.WithGuests(0), pool.WithSpares(0))
			require.NoError(t, err)
			defer func() { require.NoError(t, p.Close()) }()
			watchdog(t, func() {
				var deepest []int // each round's largest depth
				for round := 0; round < minRounds || (round < maxRounds && slices.Min(deepest) > maxHops); round++ {
					deepest = append(deepest, 0)
					deadline := time.Now().Add(testutil.MeetingWait)
					for wt.sleepers() < workers {
						require.True(t, time.Now().Before(deadline), "round %d: only %d of %d workers went to sleep", round, wt.sleepers(), workers)
						time.Sleep(time.Millisecond)
					}
					wt.reset()
					m := testutil.NewMeeting(workers, testutil.MeetingWait)
					p.Run(func() { st.run(workers, m.Arrive) })
					depth := wt.reset()
					t.Logf("round %d: wake-up depth of each worker: %v", round, depth)
					require.Zero(t, m.Missed(), "round %d: pieces that gave up waiting for all %d to start; wake-up depths %v", round, workers, depth)
					require.Len(t, depth, workers, "round %d: workers woken (by depth): %v", round, depth)
					for _, d := range depth {
						deepest[round] = max(deepest[round], d)
					}
				}
				assert.LessOrEqual(t, slices.Min(deepest), maxHops, "largest wake-up depth of each round: %v", deepest)
			})
		})
	}
}
