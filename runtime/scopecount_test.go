package runtime

import (
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
)

// scopeTree spawns a random tree of tasks on one scope in every way a
// task can be added to a scope (Spawn from the owner and from other
// workers, SpawnMany, Spawn from a goroutine that is no worker, a nested
// scope on the same worker) and checks the scope's end: when Scope
// returns every task counted has run, and no task of the scope starts
// after that.
type scopeTree struct {
	spawned, ran atomic.Int64
	returned     atomic.Bool // set once the scope under test has returned
	late         atomic.Int64
}

func (tr *scopeTree) task(s *Scope, depth int, r *rand.Rand) {
	if tr.returned.Load() {
		tr.late.Add(1)
	}
	tr.ran.Add(1)
	if depth == 0 {
		if r.IntN(64) == 0 {
			// Finish late on whichever worker runs this, so the owner is
			// often already looking (or asleep) when the last task ends.
			time.Sleep(20 * time.Microsecond)
		}
		return
	}
	children := r.IntN(4)
	for range children {
		seed := r.Uint64()
		switch r.IntN(8) {
		case 0: // a bulk spawn
			n := 1 + r.IntN(5)
			tr.spawned.Add(int64(n))
			s.SpawnMany(n, func(s *Scope, i int) {
				tr.task(s, depth-1, rand.New(rand.NewPCG(seed, uint64(i))))
			})
		case 1: // from a goroutine that is no worker, waited for
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				tr.spawned.Add(1)
				s.Spawn(func(s *Scope) { tr.task(s, depth-1, rand.New(rand.NewPCG(seed, 1))) })
			}()
			wg.Wait()
		case 2: // a nested scope on this worker, with its own tasks
			currentScope(func(inner *Scope) {
				var innerRan atomic.Int64
				for range 3 {
					inner.Spawn(func(*Scope) { innerRan.Add(1) })
				}
				tr.spawned.Add(1)
				s.Spawn(func(s *Scope) { tr.task(s, depth-1, rand.New(rand.NewPCG(seed, 2))) })
			})
		default:
			tr.spawned.Add(1)
			s.Spawn(func(s *Scope) { tr.task(s, depth-1, rand.New(rand.NewPCG(seed, 3))) })
		}
	}
}

// TestScopeEndIsExact runs many random scope trees on registries of several
// sizes, with workers locked to their threads and not, and checks, for
// each, that Scope returns only after every task has run.
func TestScopeEndIsExact(t *testing.T) {
	rounds := 300
	if testutil.RaceEnabled {
		rounds = 60
	}
	for _, c := range []struct {
		workers int
		locked  bool
	}{{1, true}, {2, true}, {4, true}, {8, true}, {2, false}, {4, false}} {
		workers := c.workers
		t.Run(fmt.Sprintf("workers=%d/locked=%v", workers, c.locked), func(t *testing.T) {
			p := newRegistry(t, Config{Workers: workers, Unlocked: !c.locked})
			watchdog(t, func() {
				for round := range rounds {
					tr := &scopeTree{}
					p.Scope("test scope", func(s *Scope) {
						r := rand.New(rand.NewPCG(uint64(workers), uint64(round)))
						for range 1 + r.IntN(4) {
							seed := r.Uint64()
							tr.spawned.Add(1)
							s.Spawn(func(s *Scope) { tr.task(s, 6, rand.New(rand.NewPCG(seed, 0))) })
						}
					})
					require.Equal(t, tr.spawned.Load(), tr.ran.Load(), "round %d: tasks counted vs run when Scope returned", round)
				}
			})
		})
	}
}

// TestScopeOwnerSleepsUntilRemoteFinish makes the last task of a scope
// end on another worker while the owner has nothing to do (it goes to
// sleep): the finisher must wake it.
func TestScopeOwnerSleepsUntilRemoteFinish(t *testing.T) {
	p := newRegistry(t, Config{Workers: 2})
	watchdog(t, func() {
		for range 20 {
			var ran atomic.Bool
			release := make(chan struct{})
			p.Scope("test scope", func(s *Scope) {
				s.Spawn(func(*Scope) {
					CurrentWorker().Block(func() { <-release })
					ran.Store(true)
				})
				// The body's worker must not run the task itself: let the
				// other worker take it, then release it a little later,
				// once the owner has run out of work and sleeps.
				go func() {
					time.Sleep(2 * time.Millisecond)
					close(release)
				}()
			})
			assert.True(t, ran.Load())
		}
	})
}

// TestScopeStressUnderGOMAXPROCSChanges repeats random scope trees while
// GOMAXPROCS changes, so workers are descheduled at arbitrary points of
// the count protocol.
func TestScopeStressUnderGOMAXPROCSChanges(t *testing.T) {
	p := newRegistry(t, Config{Workers: 4})
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	stop := make(chan struct{})
	var changer sync.WaitGroup
	changer.Add(1)
	go func() {
		defer changer.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
				goruntime.GOMAXPROCS(1 + i%4)
			}
		}
	}()
	watchdog(t, func() {
		rounds := 100
		if testutil.RaceEnabled {
			rounds = 20
		}
		for round := range rounds {
			tr := &scopeTree{}
			p.Scope("test scope", func(s *Scope) {
				tr.spawned.Add(1)
				s.Spawn(func(s *Scope) { tr.task(s, 7, rand.New(rand.NewPCG(uint64(round), 9))) })
			})
			require.Equal(t, tr.spawned.Load(), tr.ran.Load(), "round %d", round)
		}
	})
	close(stop)
	changer.Wait()
}
