package main

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// future submits tasks and waits for them, from outside and from inside
// tasks (a task waits for the futures it submitted); once Wait has
// returned, Done must be closed and TryGet give the same result.
//
// Half the operations submit the outer tasks with SubmitContext on one
// context, cancelled before the submissions, right after them, from a
// timer, from the task of a random future, or never. Each future is then
// either cancelled before its task started (Err is the cause, Wait the
// zero value, and the task never runs: it checks, when it starts, that
// its future is not done already) or ran it (Err nil, the result right).
func (s *soak) future(r *rand.Rand, p *pool.Pool) {
	n := 1 + r.IntN(16)
	inj := s.newInjector(r, famFuture, 2*n)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	cause := &taskErr{-1}
	withContext, moment, cancelAt := r.IntN(2) == 0, r.IntN(5), r.IntN(n)
	if withContext && moment == 0 {
		cancel(cause)
	}
	futs := make([]atomic.Pointer[pool.Future[int]], n)
	ran := make([]atomic.Int32, n)
	var got, want int
	v := catch(func() {
		for i := range futs {
			task := func() int {
				ran[i].Add(1)
				if f := futs[i].Load(); f != nil {
					if _, done := f.TryGet(); done {
						s.violate(famFuture, "SubmitContext: task %d started after its future was done", i)
					}
				}
				inner := pool.Submit(p, func() int { inj.maybe(uint64(2*i + 1)); return i })
				inj.maybe(uint64(2 * i))
				if withContext && moment == 3 && i == cancelAt {
					cancel(cause)
				}
				return inner.Wait() + i
			}
			if withContext {
				futs[i].Store(pool.SubmitContext(ctx, p, task))
			} else {
				futs[i].Store(pool.Submit(p, task))
			}
		}
		if withContext {
			switch moment {
			case 1:
				cancel(cause)
			case 2:
				tm := time.AfterFunc(time.Duration(r.IntN(200))*time.Microsecond, func() { cancel(cause) })
				defer tm.Stop()
			}
		}
		// Wait for all before re-panicking, so that no task outlives the
		// operation.
		var first any
		for i := range futs {
			f := futs[i].Load()
			var res int
			w := catch(func() { res = f.Wait() })
			if w != nil && first == nil {
				first = w
			}
			s.settled(f, w)
			if withContext {
				s.checkCancelled(f, i, res, w, ran[i].Load(), cause)
			}
			got += res
			if f.Err() == nil {
				want += 2 * i // i + i: the task and its inner future
			}
		}
		if first != nil {
			panic(first)
		}
	})
	if s.outcome(famFuture, inj, v) && got != want {
		s.violate(famFuture, "%d tasks summed to %d, want %d", n, got, want)
	}
}

// checkCancelled checks future i of SubmitContext once Wait returned res
// (or panicked with w), its task having started ran times so far: Err is
// the cause and the task never ran, with Wait the zero value; or Err is
// nil and the task ran once.
func (s *soak) checkCancelled(f *pool.Future[int], i, res int, w any, ran int32, cause error) {
	switch err := f.Err(); {
	case err == cause:
		if ran != 0 || res != 0 || w != nil {
			s.violate(famFuture, "SubmitContext: future %d cancelled, but its task ran %d times (Wait returned %d, panicked with %v)", i, ran, res, w)
		}
	case err != nil:
		s.violate(famFuture, "SubmitContext: future %d: Err returned %v, want nil or the cause", i, err)
	case ran != 1:
		s.violate(famFuture, "SubmitContext: future %d not cancelled, but its task ran %d times", i, ran)
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
