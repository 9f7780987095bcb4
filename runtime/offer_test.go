package runtime

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
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
