package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// groupWaiters calls Wait on one group from several places at once:
// goroutines, and tasks of another group (on workers, which help while
// they wait, possibly above the first Wait on the same stack). Every
// Wait must return once no task of the group runs (those not started
// when one failed are skipped), each with the same error, one that a task
// returned (or nil if none failed). A
// Wait that never returns is the stall detector's to report.
func (s *soak) groupWaiters(r *rand.Rand, p *pool.Pool) {
	n := 1 + r.IntN(12)
	fails := r.IntN(3) != 0
	g, _ := p.NewGroup(context.Background())
	t := &tracked{g: g}
	var running atomic.Int32 // tasks started and not finished (the others are skipped once one fails)
	for i := range n {
		t.Go(s, func() error {
			running.Add(1)
			defer running.Add(-1)
			if r := i % 3; r == 0 {
				time.Sleep(time.Duration(20+10*i) * time.Microsecond)
			}
			if fails && i == n/2 {
				return &taskErr{i}
			}
			return nil
		})
	}
	outside, inside := r.IntN(4), r.IntN(3)
	if outside+inside < 2 {
		outside = 2
	}
	var mu sync.Mutex
	var errs []error
	wait := func() {
		err := t.waitWith(s)
		if got := running.Load(); got != 0 {
			s.violate(famGroupWaiters, "a Wait returned with %d tasks still running", got)
		}
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	var goroutines sync.WaitGroup
	for range outside {
		goroutines.Go(wait)
	}
	other, _ := p.NewGroup(context.Background())
	for range inside {
		other.Go(func() error { wait(); return nil })
	}
	goroutines.Wait()
	if err := other.Wait(); err != nil {
		s.violate(famGroupWaiters, "the waiting group's Wait: %v", err)
	}
	for _, err := range errs {
		if err != errs[0] {
			s.violate(famGroupWaiters, "overlapping Waits returned %v and %v", errs[0], err)
			return
		}
	}
	if errs[0] != nil && !t.returned(errs[0]) {
		s.violate(famGroupWaiters, "Wait returned %v, which no task returned", errs[0])
	}
	if fails && errs[0] == nil {
		s.violate(famGroupWaiters, "Wait returned nil after a task failed")
	}
}

// waitWith is Group.Wait for one of several overlapping waiters: under
// the lone-waiter mutant, a Wait that starts while another one waits
// returns nil at once, as a group that let only one waiter through would
// have to (the real bug, a second Wait that never returns, would hang
// the soak instead).
func (t *tracked) waitWith(s *soak) error {
	if t.waiting.Add(1) > 1 && s.mutant == mutLoneWaiter {
		t.waiting.Add(-1)
		return nil
	}
	defer t.waiting.Add(-1)
	return t.Wait(s)
}
