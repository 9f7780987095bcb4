package runtime

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A thief that takes a worker's exposed job asks it for the next one: the
// worker's next fork publishes its oldest private job, although the fork
// path reads no shared state (Worker.Offer). Two workers, A and B. B is
// kept busy while A forks b0 (published: A's deque was empty) and then b1
// (kept private: b0 is still exposed and nobody looks, so A's fork clears
// its offer flag). Then B is let go, steals b0 and returns, and A forks
// trivially until B has b1 too. B gets b1 only if its steal of b0 set A's
// flag: nothing else on A's fork path would look at its deque again.
func TestAThiefsStealMakesTheVictimPublishItsNextJob(t *testing.T) {
	r := newRegistry(t, Config{Workers: 2})
	watchdog(t, func() {
		var busyStarted, releaseBusy, b0Stolen, b1Stolen atomic.Bool
		var trivial atomic.Int64 // the trivial forks' halves may run on two workers
		r.Run("test", func() {
			a := CurrentWorker()
			r.Spawn("test", func() { // B takes it and spins
				busyStarted.Store(true)
				for !releaseBusy.Load() {
				}
			})
			for !busyStarted.Load() {
			}
			join(func() {
				join(func() {
					releaseBusy.Store(true)
					for !b1Stolen.Load() {
						join(func() { trivial.Add(1) }, func() { trivial.Add(1) })
					}
				}, func() {
					if CurrentWorker() != a {
						b1Stolen.Store(true)
					}
				})
			}, func() {
				if CurrentWorker() != a {
					b0Stolen.Store(true)
				}
			})
		})
		assert.True(t, b0Stolen.Load(), "b0 stolen")
		assert.True(t, b1Stolen.Load(), "b1 stolen")
	})
}

// While workers look for work, every fork publishes one more job, until
// a job it published comes back untaken: the lookers do not keep up (at
// many Ps, more than the CPUs can run), and a job nobody takes is popped
// back through the deque's fence at its join. From then on a fork keeps
// minOffered published, until thieves take all it offered. A worker
// looking (played by the test in an unused slot's place, so that nobody
// steals): ten nested forks publish ten jobs; after a join whose half
// came back untaken, ten more keep minOffered.
func TestForksOfferLessOnceAnOfferCameBackUntaken(t *testing.T) {
	r := newUnmonitored(t, Config{Workers: 1, Spares: 1}) // the spare's slot plays the looker
	watchdog(t, func() {
		r.Run("test", func() {
			w := CurrentWorker()
			r.sleep.StartLooking(1)
			defer r.sleep.WorkFound(func() bool { return false })
			require.True(t, r.sleep.Looking())
			deepest := -1
			var nest func(d int)
			nest = func(d int) {
				if d == 0 {
					deepest = w.publicLen()
					return
				}
				join(func() { nest(d - 1) }, func() {})
			}
			nest(10)
			assert.Equal(t, 10, deepest, "jobs published at the deepest fork while a worker looks")
			require.True(t, w.offerUntaken, "the published halves came back untaken")
			nest(10)
			assert.Equal(t, minOffered, deepest, "jobs published at the deepest fork once offers came back untaken")
		})
	})
}
