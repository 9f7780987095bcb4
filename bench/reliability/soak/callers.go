package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// manyCallers has many goroutines call one pool at once, each through a
// random entry point (Run with joins, Join, Scope, a forkjoin loop inside
// Run, Isolate, Submit, a group's Go and Wait, and a Fold from the
// goroutine, which runs on the default pool), the way a server's
// handlers do: more of them than the pool has guest slots now and then,
// so that some run their calls on their own goroutines and the rest hand
// them to the workers. Half the operations use a pool of their own with a
// random size and guest count, which another goroutine closes at a random
// moment while the calls race it.
//
// Every call must return the right result, or re-panic with one of its
// injected panics, or, on a pool that was closed, be refused with an
// error wrapping pool.ErrClosed before any of its work ran. A body keeps
// its WorkerIndex for as long as it runs, and once a call returns, its
// goroutine is in no pool (WorkerIndex -1, Current the default pool): a caller leaves
// no state behind. The caller-skip mutant breaks the first rule.
func (s *soak) manyCallers(r *rand.Rand, shared *pool.Pool) {
	p, own := shared, r.IntN(2) == 0
	if own {
		opts := []pool.Option{
			pool.WithWorkers(1 + r.IntN(3)),
			pool.WithGuests([]int{0, 1, 2, 4, pool.DefaultGuests}[r.IntN(5)]),
			pool.WithPanicHandler(s.handler),
		}
		if r.IntN(4) == 0 {
			opts = append(opts, pool.WithLockedThreads(false))
		}
		var err error
		if p, err = pool.New(opts...); err != nil {
			s.violate(famCallers, "pool.New: %v", err)
			return
		}
	}
	n := 8 + r.IntN(40)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		cr := rand.New(rand.NewPCG(r.Uint64(), r.Uint64()))
		skip := s.mutant == mutCallerSkip && i == n-1
		wg.Go(func() {
			<-start
			s.oneCall(cr, p, own, skip)
		})
	}
	closed := make(chan error, 1)
	if own {
		delay := time.Duration(r.IntN(300)) * time.Microsecond
		go func() {
			<-start
			time.Sleep(delay)
			closed <- p.Close()
		}()
	}
	close(start)
	wg.Wait()
	if own {
		if err := <-closed; err != nil {
			s.violate(famCallers, "Close while %d goroutines called: %v", n, err)
		}
	}
}

// oneCall is one goroutine's call in the callers family, through a random
// entry point, with its checks. mayClose says whether p may be closed
// during the call. skip (the caller-skip mutant) makes the call return as
// if its work had run, without calling the pool.
func (s *soak) oneCall(r *rand.Rand, p *pool.Pool, mayClose, skip bool) {
	const tasks = 16
	kind := r.IntN(8)
	inj := s.newInjector(r, famCallers, tasks)
	var ran [tasks]atomic.Int32
	index := func() {
		// A body keeps its place (a guest's slot, a worker's index) while
		// it runs, whatever it waits for.
		at := pool.WorkerIndex()
		pool.Join(func() { _ = spin(200) }, func() { _ = spin(200) })
		if now := pool.WorkerIndex(); now != at {
			s.violate(famCallers, "entry %d: the body ran at worker index %d, then %d", kind, at, now)
		}
	}
	task := func(i int) {
		ran[i].Add(1)
		_ = spin(50 + 20*i)
		inj.maybe(uint64(i))
	}
	var err error
	call := func() {
		if skip {
			return
		}
		switch kind {
		case 0: // Run with a join at every level
			p.Run(func() {
				index()
				var split func(lo, hi int)
				split = func(lo, hi int) {
					if hi-lo == 1 {
						task(lo)
						return
					}
					mid := (lo + hi) / 2
					pool.Join(func() { split(lo, mid) }, func() { split(mid, hi) })
				}
				split(0, tasks)
			})
		case 1: // Join from the goroutine
			p.Join(func() {
				index()
				for i := range tasks / 2 {
					task(i)
				}
			}, func() {
				for i := tasks / 2; i < tasks; i++ {
					task(i)
				}
			})
		case 2: // Scope
			p.Scope(func(sc *pool.Scope) {
				index()
				for i := range tasks {
					sc.Spawn(func(*pool.Scope) { task(i) })
				}
			})
		case 3: // a forkjoin loop, which runs on the caller's pool
			p.Run(func() {
				index()
				forkjoin.For(0, tasks, 1, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						task(i)
					}
				})
			})
		case 4: // Isolate inside Run
			p.Run(func() {
				pool.Isolate(func() {
					index()
					forkjoin.For(0, tasks, 2, func(lo, hi int) {
						for i := lo; i < hi; i++ {
							task(i)
						}
					})
				})
			})
		case 5: // Submit, then Wait from the goroutine
			var futs []*pool.Future[int]
			refused := catch(func() {
				for i := range tasks {
					futs = append(futs, pool.Submit(p, func() int { task(i); return i }))
				}
			})
			// Every future handed over is waited for, refused or not, so
			// that no task outlives the call.
			var first any
			for i, f := range futs {
				v := catch(func() {
					if got := f.Wait(); got != i {
						s.violate(famCallers, "future %d returned %d", i, got)
					}
				})
				if first == nil {
					first = v
				}
			}
			rethrow(refused, first)
		case 7: // a Fold from the goroutine, on the default pool: serially
			// on the caller while the callers fill its Ps, the pieces left
			// handed to the pool once overdue, which a first piece that
			// blocks for a while (as a read does) makes it now and then. A
			// task per piece, in order.
			block := time.Duration(r.IntN(2)) * time.Duration(1+r.IntN(3)) * time.Millisecond
			got := forkjoin.Fold(0, tasks, 1, func() []int { return nil }, func(acc []int, i, _ int) []int {
				if i == 0 {
					time.Sleep(block)
				}
				index()
				task(i)
				return append(acc, i)
			}, func(a, b []int) []int { return append(a, b...) })
			inOrder := len(got) == tasks
			for i := 0; inOrder && i < tasks; i++ {
				inOrder = got[i] == i
			}
			if !inOrder {
				s.violate(famCallers, "entry 7: Fold folded the pieces %v, want 0 to %d in order", got, tasks-1)
			}
		default: // a group, Go and Wait from the goroutine
			g, _ := p.NewGroup(context.Background())
			g.SetLimit(1 + r.IntN(tasks))
			refused := catch(func() {
				for i := range tasks {
					g.Go(func() error { task(i); return nil })
				}
			})
			rethrow(refused, catch(func() { err = g.Wait() }))
		}
	}
	v := catch(call)
	if at, cur := pool.WorkerIndex(), pool.Current(); at != -1 || cur != pool.Default() {
		s.violate(famCallers, "entry %d: after the call returned its goroutine is worker %d of pool %p", kind, at, cur)
	}
	var counts [tasks]int32
	for i := range ran {
		counts[i] = ran[i].Load()
	}
	if mayClose && isClosed(v) {
		s.refusedCalls.Add(1)
		// Refused before anything ran; Submit and Go are refused at one
		// task, after the ones before it were handed over: those ran once
		// (the group's maybe not, if one of them panicked), none after.
		for i, c := range counts {
			if c > 1 || kind < 5 && c != 0 || kind == 5 && i > 0 && c > counts[i-1] {
				s.violate(famCallers, "entry %d refused by a closed pool (%v) after its tasks ran %v times", kind, v, counts)
				return
			}
		}
		return
	}
	if !s.outcome(famCallers, inj, v) {
		return
	}
	if err != nil {
		s.violate(famCallers, "group from a goroutine: Wait returned %v, want nil", err)
	}
	for _, c := range counts {
		if c != 1 {
			s.violate(famCallers, "entry %d returned with its tasks run %v times, want once each", kind, counts)
			return
		}
	}
}

// rethrow panics with the first of vs that is not nil, if any.
func rethrow(vs ...any) {
	for _, v := range vs {
		if v != nil {
			panic(v)
		}
	}
}
