package main

import (
	"math/bits"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/pool"
)

// soakPanic is the value of every injected panic.
type soakPanic struct {
	inj  *injector
	task uint64
}

// injector decides which tasks of an operation panic: a task panics if a
// hash of the operation's seed and the task's id falls below a threshold,
// so that the decision is the same whichever worker runs the task, and
// tasks can decide concurrently. A nil injector never panics.
type injector struct {
	seed      uint64
	threshold uint64
	raised    atomic.Int64
	total     *atomic.Int64   // the family's count of injected panics
	detached  *sync.WaitGroup // detached tasks not yet finished
	also      *atomic.Int64   // a second count to add to, if not nil
}

func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// newInjector returns an injector for an operation of family f of about
// tasks tasks: with probability panicRate one that panics about one to
// three of them, else nil.
func (s *soak) newInjector(r *rand.Rand, f fam, tasks int) *injector {
	if r.Float64() >= s.panicRate {
		return nil
	}
	per := float64(1+r.IntN(3)) / float64(max(tasks, 1))
	return &injector{seed: r.Uint64(), threshold: uint64(min(per, 1) * (1 << 63) * 2), total: &s.fams[f].injected}
}

// maybe panics if task is one of the injected ones.
func (inj *injector) maybe(task uint64) {
	if inj == nil || splitmix(inj.seed^splitmix(task)) >= inj.threshold {
		return
	}
	inj.raised.Add(1)
	inj.total.Add(1)
	if inj.also != nil {
		inj.also.Add(1)
	}
	panic(soakPanic{inj, task})
}

// count is how many panics the injector raised so far.
func (inj *injector) count() int64 {
	if inj == nil {
		return 0
	}
	return inj.raised.Load()
}

func (inj *injector) detachedDone() { inj.detached.Done() }

// outcome checks how an operation of family f ended: v is what it
// panicked with (nil if it returned). An operation with injected panics
// must re-panic with one of them as a *pool.PanicError; one without must
// return. It reports whether the operation returned normally.
func (s *soak) outcome(f fam, inj *injector, v any) (returned bool) {
	raised := inj.count()
	switch {
	case v == nil && raised == 0:
		return true
	case v == nil:
		s.violate(f, "%d tasks panicked, the operation returned normally", raised)
	case raised == 0:
		s.violate(f, "unexpected panic %T: %v", v, v)
	default:
		pe, ok := v.(*pool.PanicError)
		if !ok {
			s.violate(f, "panicked with %T %v, want *pool.PanicError", v, v)
			break
		}
		if sp, ok := pe.Value.(soakPanic); !ok || sp.inj != inj {
			s.violate(f, "PanicError value %v is not one of the operation's injected panics", pe.Value)
			break
		}
		s.caught.Add(1)
	}
	return false
}

func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// size returns a length in [0, limit]: log-uniform, so that the small
// inputs where the algorithms take their serial paths come up as often as
// the large ones, and 0, 1 and 2 now and then.
func size(r *rand.Rand, limit int) int {
	if r.IntN(16) == 0 {
		return min(r.IntN(3), limit)
	}
	n := 1 << r.IntN(bits.Len(uint(limit)))
	return min(n+r.IntN(n), limit)
}

// spin does about n units of work that the compiler cannot remove.
func spin(n int) uint64 {
	x := uint64(n)
	for range n {
		x = splitmix(x)
	}
	return x
}
