package main

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// blocking runs tasks that block without pool.Block, as Go code does
// everywhere, and checks that they all finish, once each: the pool must
// notice workers blocked in tasks and run spares in their place
// (pool.WithSpares). One of:
//   - sleepers: k tasks of a group that sleep 50-500 µs each;
//   - ping-pong: two tasks of a group that pass a counter back and forth
//     over unbuffered channels, n times;
//   - barrier: k tasks (up to 16, more than any soak pool has workers) of
//     a group, Scope.Spawn or pool.Spawn that wait until all have arrived;
//   - locked fork: k tasks of a group that take one mutex, and fork under
//     it (inside pool.Isolate, as forking under a lock must) while the
//     others block on it.
//
// On a pool whose spares are off (the no-spares mutant) the barrier and
// ping-pong kinds hang as soon as more tasks wait than the pool has
// workers, and the stall detector reports it.
func (s *soak) blocking(r *rand.Rand, p *pool.Pool) {
	switch r.IntN(4) {
	case 0:
		k := 1 + r.IntN(16)
		ran := make([]atomic.Int32, k)
		var g pool.Group
		p.Run(func() {
			for i := range k {
				d := time.Duration(50+r.IntN(450)) * time.Microsecond
				g.Go(func() error { time.Sleep(d); ran[i].Add(1); return nil })
			}
			_ = g.Wait()
		})
		s.checkOnce(famBlocking, "sleeper", ran)
	case 1:
		n := 1 + r.IntN(200)
		ping, pong := make(chan int), make(chan int)
		var got int
		var g pool.Group
		p.Run(func() {
			g.Go(func() error {
				for i := range n {
					ping <- i
					<-pong
				}
				close(ping)
				return nil
			})
			g.Go(func() error {
				for i := range ping {
					got++
					pong <- i
				}
				return nil
			})
			_ = g.Wait()
		})
		if got != n {
			s.violate(famBlocking, "ping-pong passed %d of %d messages", got, n)
		}
	case 2:
		k := 2 + r.IntN(15)
		ran := make([]atomic.Int32, k)
		var arrived sync.WaitGroup
		arrived.Add(k)
		task := func(i int) {
			arrived.Done()
			arrived.Wait()
			ran[i].Add(1)
		}
		switch r.IntN(3) {
		case 0:
			var g pool.Group
			p.Run(func() {
				for i := range k {
					g.Go(func() error { task(i); return nil })
				}
				_ = g.Wait()
			})
		case 1:
			p.Scope(func(sc *pool.Scope) {
				for i := range k {
					sc.Spawn(func(*pool.Scope) { task(i) })
				}
			})
		default:
			var done sync.WaitGroup
			done.Add(k)
			p.Run(func() {
				for i := range k {
					pool.Spawn(func() { task(i); done.Done() })
				}
			})
			done.Wait()
		}
		s.checkOnce(famBlocking, "barrier task", ran)
	default:
		k := 2 + r.IntN(6)
		ran := make([]atomic.Int32, k)
		var mu sync.Mutex
		var sum atomic.Int64
		var g pool.Group
		p.Run(func() {
			for i := range k {
				g.Go(func() error {
					mu.Lock()
					defer mu.Unlock()
					pool.Isolate(func() {
						pool.Join(func() { sum.Add(1) }, func() {
							time.Sleep(100 * time.Microsecond)
							sum.Add(1)
						})
					})
					ran[i].Add(1)
					return nil
				})
			}
			_ = g.Wait()
		})
		s.checkOnce(famBlocking, "locked fork", ran)
		if got := sum.Load(); got != int64(2*k) {
			s.violate(famBlocking, "locked forks ran %d halves of %d", got, 2*k)
		}
	}
}

// checkOnce reports a violation of family f if a task of ran did not run
// exactly once.
func (s *soak) checkOnce(f fam, what string, ran []atomic.Int32) {
	for i := range ran {
		if c := ran[i].Load(); c != 1 {
			s.violate(f, "%s %d of %d ran %d times", what, i, len(ran), c)
			return
		}
	}
}
