package main

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// isolate is joinSum's operation under a lock, inside pool.Isolate. Every
// operation of the family on a pool takes that pool's one lock. Inside
// the region it joins the sum with a half that sleeps 100 µs; once another
// worker has started that half, a goroutine outside the pool queues a task
// that takes the lock too, and the operation's worker, done with the sum,
// waits for the sleeping half. A wait of the region that started that
// task would block its worker on the lock its own caller holds, and the
// stall detector would report the hang. Panics cross the region as
// elsewhere.
func (s *soak) isolate(r *rand.Rand, p *pool.Pool) {
	l, _ := s.locks.LoadOrStore(p, new(lockedCount))
	lc := l.(*lockedCount)
	s.sumOn(r, p, famIsolate, 1+size(r, 1<<12), func(body func()) {
		lc.mu.Lock()
		defer lc.mu.Unlock()
		s.isolateRegion(func() {
			var started atomic.Bool
			pool.Join(func() {
				for deadline := time.Now().Add(time.Millisecond); !started.Load() && time.Now().Before(deadline); {
					time.Sleep(10 * time.Microsecond)
				}
				if started.Load() {
					queued := make(chan struct{})
					go func() { p.Spawn(lc.add); close(queued) }()
					<-queued
				}
				body()
			}, func() {
				started.Store(true)
				time.Sleep(100 * time.Microsecond)
			})
		})
	})
}

// lockedCount is the isolate family's lock of a pool, and what the tasks
// that take it do.
type lockedCount struct {
	mu sync.Mutex
	n  int
}

func (c *lockedCount) add() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
}
