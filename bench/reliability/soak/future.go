package main

import (
	"math/rand/v2"

	"github.com/spindle-go/spindle/pool"
)

// future submits tasks and waits for them, from outside and from inside
// tasks (a task waits for the futures it submitted); once Wait has
// returned, Done must be closed and TryGet give the same result.
func (s *soak) future(r *rand.Rand, p *pool.Pool) {
	n := 1 + r.IntN(16)
	inj := s.newInjector(r, famFuture, 2*n)
	var got int
	v := catch(func() {
		futs := make([]*pool.Future[int], n)
		for i := range futs {
			futs[i] = pool.Submit(p, func() int {
				inner := pool.Submit(p, func() int { inj.maybe(uint64(2*i + 1)); return i })
				inj.maybe(uint64(2 * i))
				return inner.Wait() + i
			})
		}
		// Wait for all before re-panicking, so that no task outlives the
		// operation.
		var first any
		for _, f := range futs {
			w := catch(func() { got += f.Wait() })
			if w != nil && first == nil {
				first = w
			}
			s.settled(f, w)
		}
		if first != nil {
			panic(first)
		}
	})
	if s.outcome(famFuture, inj, v) && got != n*(n-1) {
		s.violate(famFuture, "%d tasks summed to %d, want %d", n, got, n*(n-1))
	}
}

// settled checks a future whose Wait returned, or panicked with w: Done
// is closed and TryGet reports the same.
func (s *soak) settled(f *pool.Future[int], w any) {
	select {
	case <-f.Done():
	default:
		s.violate(famFuture, "Wait returned, Done is not closed")
	}
	var ok bool
	if t := catch(func() { _, ok = f.TryGet() }); t != w {
		s.violate(famFuture, "after Wait panicked with %v, TryGet panicked with %v", w, t)
	} else if t == nil && !ok {
		s.violate(famFuture, "after Wait returned, TryGet reports the task unfinished")
	}
}
