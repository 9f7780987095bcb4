package main

import (
	"math/rand/v2"
	"sync/atomic"

	"github.com/spindle-go/spindle/pool"
)

// block runs tasks that wait, inside pool.Block, for a channel that a
// task spawned before them closes. On one worker the waiting tasks run
// first (a scope's last spawn runs first), so without Block the pool would
// deadlock; with it, every task must run once. Now and then Block is
// called from outside the pool, where it just calls its function; a
// panic in Block's function comes out as a *pool.PanicError either way.
func (s *soak) block(r *rand.Rand, p *pool.Pool) {
	k := 1 + r.IntN(8)
	inj := s.newInjector(r, famBlock, k+1)
	if r.IntN(4) == 0 {
		ran := false
		v := catch(func() { pool.Block(func() { ran = true; inj.maybe(0) }) })
		s.outcome(famBlock, inj, v)
		if !ran {
			s.violate(famBlock, "Block from outside a pool did not call its function")
		}
		return
	}
	ready := make(chan struct{})
	ran := make([]atomic.Int32, k+1)
	v := catch(func() {
		p.Scope(func(sc *pool.Scope) {
			sc.Spawn(func(*pool.Scope) { ran[k].Add(1); close(ready) })
			for i := range k {
				sc.Spawn(func(*pool.Scope) {
					pool.Block(func() { <-ready; inj.maybe(uint64(i)) })
					ran[i].Add(1)
				})
			}
		})
	})
	returned := s.outcome(famBlock, inj, v)
	for i := range ran {
		c := ran[i].Load()
		if c > 1 || returned && c != 1 {
			s.violate(famBlock, "task %d of %d ran %d times", i, k+1, c)
			break
		}
	}
}
