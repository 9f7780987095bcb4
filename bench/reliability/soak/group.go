package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// taskErr is the error a soak task returns; each is a distinct pointer,
// so a returned error can be traced to the task that returned it.
type taskErr struct{ task int }

func (e *taskErr) Error() string { return fmt.Sprintf("soak: task %d failed", e.task) }

// followerWait is how long a follower waits for the failure it follows.
const followerWait = 500 * time.Microsecond

// afterFailure waits, inside pool.Block (so that its worker runs other
// tasks meanwhile), up to d for ctx to be done, and reports whether it
// is. The first-error checks let a task other than the designated first
// one fail only after this reports true: its error then comes after the
// first failure cancelled ctx, so the first error returned is known
// exactly, however the tasks interleave.
func afterFailure(ctx context.Context, d time.Duration) bool {
	done := false
	pool.Block(func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			done = true
		case <-t.C:
		}
	})
	return done
}

// ranOnce reports the first task of ran that ran more than once, or, if
// all is set, not exactly once: its index, or -1.
func ranOnce(ran []atomic.Int32, all bool) int {
	for i := range ran {
		if c := ran[i].Load(); c > 1 || all && c != 1 {
			return i
		}
	}
	return -1
}

// randomLimit is a limit for SetLimit: 1 to 4, or none (-1).
func randomLimit(r *rand.Rand) int {
	if r.IntN(5) == 0 {
		return -1
	}
	return 1 + r.IntN(4)
}

// groupErrors queues tasks on a group from NewGroup (with or without a
// limit) of which one, the leader, fails, and a few others fail only once
// the group's context is done: Wait must return exactly the leader's
// error, which is also the context's cause, or with SetAllErrors (half
// the runs) the leader's first and then every follower's. Now and then a
// task calls Wait, which must panic rather than wait for itself.
func (s *soak) groupErrors(r *rand.Rand, p *pool.Pool) {
	n := 1 + r.IntN(16)
	leader := r.IntN(n)
	follows := make([]bool, n)
	for range 1 + r.IntN(3) {
		follows[r.IntN(n)] = true
	}
	misuse := -1
	if r.IntN(4) == 0 {
		misuse = r.IntN(n)
	}
	inj := s.newInjector(r, famGroupErrors, n)
	g, gctx := p.NewGroup(context.Background())
	g.SetLimit(randomLimit(r))
	all := r.IntN(2) == 0
	g.SetAllErrors(all)
	t := &tracked{g: g}
	leaderErr := &taskErr{leader}
	ran := make([]atomic.Int32, n)
	var mu sync.Mutex
	var followed []error // the followers' errors, returned after the leader's
	task := func(i int) func() error {
		return func() error {
			ran[i].Add(1)
			if i == misuse {
				if v := catch(func() { _ = g.Wait() }); !strings.Contains(fmt.Sprint(v), "pool.Group.Wait") {
					s.violate(famGroupErrors, "Wait inside one of the group's tasks: panicked with %v, want a panic naming pool.Group.Wait", v)
				}
			}
			inj.maybe(uint64(i))
			switch {
			case i == leader:
				return leaderErr
			case follows[i] && afterFailure(gctx, followerWait):
				err := &taskErr{i}
				mu.Lock()
				followed = append(followed, err)
				mu.Unlock()
				return err
			}
			return nil
		}
	}
	var err error
	v := catch(func() {
		for i := range n {
			t.Go(s, task(i))
		}
		err = t.Wait(s)
	})
	if i := ranOnce(ran, false); i >= 0 {
		s.violate(famGroupErrors, "task %d of %d ran %d times", i, n, ran[i].Load())
	}
	if !s.outcome(famGroupErrors, inj, v) {
		return
	}
	switch {
	case !all || len(followed) == 0:
		if err != leaderErr {
			s.violate(famGroupErrors, "Wait returned %v, want the first error a task returned (%v)", err, leaderErr)
		}
	default: // SetAllErrors: the leader's first, then every follower's
		if !strings.HasPrefix(fmt.Sprint(err), leaderErr.Error()+"\n") {
			s.violate(famGroupErrors, "Wait returned %q, want every error, the first (%v) first", err, leaderErr)
		}
		for _, e := range followed {
			if !errors.Is(err, e) {
				s.violate(famGroupErrors, "Wait returned %q, without the error %v a task returned (SetAllErrors)", err, e)
			}
		}
	}
	if c := context.Cause(gctx); c != leaderErr {
		s.violate(famGroupErrors, "the group's context has cause %v, want the first error (%v)", c, leaderErr)
	}
	if c := ran[leader].Load(); c != 1 {
		s.violate(famGroupErrors, "the failing task ran %d times, want 1 (nothing cancelled the group before it)", c)
	}
}

// groupLimit runs a group with a limit (or none), from NewGroup on p or a
// zero-value Group on pool.Default(). Flat: tasks are queued from outside
// by Go and TryGo, and no more than the limit may run at once. Nested:
// tasks call Go from inside, which at the limit runs the new task in
// place (under a limit of 1, before Go returns). Either way every task
// handed over must run exactly once and Wait return nil; SetLimit while a
// task runs must panic.
func (s *soak) groupLimit(r *rand.Rand, p *pool.Pool) {
	limit := randomLimit(r)
	var g *pool.Group
	zero := r.IntN(2) == 0
	if zero {
		g = new(pool.Group) // runs on Default(), and never skips a task
	} else {
		g, _ = p.NewGroup(context.Background())
	}
	g.SetLimit(limit)
	t := &tracked{g: g}
	n := 1 + r.IntN(16)
	nested := r.IntN(2) == 0
	inj := s.newInjector(r, famGroupLimit, 3*n)
	var handed, ran, live, peak atomic.Int64
	var next atomic.Uint64 // task ids
	var task func(depth int) func() error
	task = func(depth int) func() error {
		id := next.Add(1)
		return func() error {
			ran.Add(1)
			l := live.Add(1)
			for old := peak.Load(); l > old && !peak.CompareAndSwap(old, l); old = peak.Load() {
			}
			_ = spin(int(id % 64 * 16))
			if nested && depth < 2 {
				for range id % 3 {
					child := task(depth + 1)
					var done atomic.Bool
					t.Go(s, func() error { defer done.Store(true); return child() })
					handed.Add(1)
					// Under a limit of 1 this task holds the only slot, so
					// the child ran in place, before Go returned (unless a
					// panic cancelled the group and it was skipped).
					if limit == 1 && !done.Load() && inj.count() == 0 {
						s.violate(famGroupLimit, "Go from inside a task at the limit returned before the new task ran")
					}
				}
			}
			live.Add(-1)
			inj.maybe(id)
			return nil
		}
	}
	busy := r.IntN(4) == 0
	var err error
	v := catch(func() {
		if busy {
			release, started := make(chan struct{}), make(chan struct{})
			t.Go(s, func() error {
				ran.Add(1)
				close(started)
				pool.Block(func() { <-release })
				return nil
			})
			handed.Add(1)
			<-started
			if v := catch(func() { g.SetLimit(1) }); !strings.Contains(fmt.Sprint(v), "pool.Group.SetLimit") {
				s.violate(famGroupLimit, "SetLimit while a task runs: panicked with %v, want a panic naming pool.Group.SetLimit", v)
			}
			close(release)
		}
		for range n {
			if r.IntN(3) == 0 {
				ok := t.TryGo(s, task(0))
				if !ok && limit < 0 {
					s.violate(famGroupLimit, "TryGo without a limit returned false")
				}
				if ok {
					handed.Add(1)
				}
				continue
			}
			t.Go(s, task(0))
			handed.Add(1)
		}
		err = t.Wait(s)
	})
	returned := s.outcome(famGroupLimit, inj, v)
	h, c := handed.Load(), ran.Load()
	switch {
	case c > h:
		s.violate(famGroupLimit, "%d tasks handed over, %d ran", h, c)
	case c < h && (returned || zero):
		// A zero-value Group never skips, panics or not; a group from
		// NewGroup skips only once a panic cancelled its context.
		s.violate(famGroupLimit, "%d tasks handed over, %d ran; Wait returned %v", h, c, err)
	}
	if returned && err != nil {
		s.violate(famGroupLimit, "Wait returned %v, no task failed", err)
	}
	if pk := peak.Load(); !nested && limit > 0 && pk > int64(limit) {
		s.violate(famGroupLimit, "%d tasks ran at once under a limit of %d", pk, limit)
	}
}

// groupCancel cancels the parent context of a group from NewGroup at a
// random moment: before the first Go, from inside a task, from outside
// between two Go calls, or from a timer. No task fails, so Wait must
// return nil if every task ran (exactly once), or the parent's cause if
// some task was skipped.
func (s *soak) groupCancel(r *rand.Rand, p *pool.Pool) {
	n := 1 + r.IntN(24)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	cause := &taskErr{-1}
	g, _ := p.NewGroup(ctx)
	g.SetLimit(randomLimit(r))
	t := &tracked{g: g}
	moment, k := r.IntN(4), r.IntN(n)
	inj := s.newInjector(r, famGroupCancel, n)
	ran := make([]atomic.Int32, n)
	var err error
	v := catch(func() {
		switch moment {
		case 0:
			cancel(cause)
		case 3:
			tm := time.AfterFunc(time.Duration(r.IntN(200))*time.Microsecond, func() { cancel(cause) })
			defer tm.Stop()
		}
		for i := range n {
			if moment == 2 && i == k {
				cancel(cause)
			}
			t.Go(s, func() error {
				ran[i].Add(1)
				if moment == 1 && i == k {
					cancel(cause)
				}
				_ = spin(256)
				inj.maybe(uint64(i))
				return nil
			})
		}
		err = t.Wait(s)
	})
	if i := ranOnce(ran, false); i >= 0 {
		s.violate(famGroupCancel, "task %d of %d ran %d times", i, n, ran[i].Load())
	}
	if !s.outcome(famGroupCancel, inj, v) {
		return
	}
	switch i := ranOnce(ran, true); {
	case err == nil && i >= 0:
		s.violate(famGroupCancel, "Wait returned nil, but task %d of %d ran %d times", i, n, ran[i].Load())
	case err == cause && i < 0:
		s.violate(famGroupCancel, "Wait returned the parent's cause, but every task ran")
	case err != nil && err != cause:
		s.violate(famGroupCancel, "Wait returned %v, want nil or the parent's cause", err)
	}
}

// groupNested runs groups inside the tasks of a group: each outer task
// makes a group (from the package-level NewGroup with the outer context,
// or a zero value, both on the worker's pool), whose tasks fail now and
// then, and returns its Wait's error. Wait must return nil if no task
// failed (then every task ran exactly once), else an error some outer task
// returned, wrapping one an inner task returned.
func (s *soak) groupNested(r *rand.Rand, p *pool.Pool) {
	n, m := 1+r.IntN(6), 1+r.IntN(8)
	failEvery := []uint64{0, 8, 32}[r.IntN(3)]
	seed := r.Uint64()
	inj := s.newInjector(r, famGroupNested, n*m)
	var outer *pool.Group
	octx := context.Background()
	if r.IntN(2) == 0 {
		outer, octx = p.NewGroup(octx)
	} else {
		outer = new(pool.Group) // on Default()
	}
	outer.SetLimit(randomLimit(r))
	t := &tracked{g: outer}
	ran := make([]atomic.Int32, n*m)
	var mu sync.Mutex
	inner := map[error]bool{} // errors inner tasks returned
	var err error
	v := catch(func() {
		for i := range n {
			t.Go(s, func() error {
				var g *pool.Group
				if i%2 == 0 {
					g, _ = pool.NewGroup(octx)
				} else {
					g = new(pool.Group)
				}
				g.SetLimit(randomLimitFrom(seed ^ uint64(i)))
				for j := range m {
					id := i*m + j
					g.Go(func() error {
						ran[id].Add(1)
						inj.maybe(uint64(id))
						if failEvery != 0 && splitmix(seed^uint64(id))%failEvery == 0 {
							e := &taskErr{id}
							mu.Lock()
							inner[e] = true
							mu.Unlock()
							return e
						}
						return nil
					})
				}
				if err := g.Wait(); err != nil {
					return fmt.Errorf("outer task %d: %w", i, err)
				}
				return nil
			})
		}
		err = t.Wait(s)
	})
	if i := ranOnce(ran, false); i >= 0 {
		s.violate(famGroupNested, "inner task %d ran %d times", i, ran[i].Load())
	}
	if !s.outcome(famGroupNested, inj, v) {
		return
	}
	if len(inner) == 0 {
		if err != nil {
			s.violate(famGroupNested, "Wait returned %v, no task failed", err)
		}
		if i := ranOnce(ran, true); i >= 0 {
			s.violate(famGroupNested, "no task failed, but inner task %d ran %d times", i, ran[i].Load())
		}
		return
	}
	var te *taskErr
	switch {
	case err == nil:
		s.violate(famGroupNested, "%d inner tasks failed, Wait returned nil", len(inner))
	case !t.returned(err):
		s.violate(famGroupNested, "Wait returned %v, which no outer task returned", err)
	case !errors.As(err, &te) || !inner[te]:
		s.violate(famGroupNested, "Wait returned %v, which wraps no error an inner task returned", err)
	}
}

// randomLimitFrom is randomLimit drawn from a hash, for tasks, which have
// no generator of their own.
func randomLimitFrom(h uint64) int {
	return randomLimit(rand.New(rand.NewPCG(h, 0)))
}

// returned reports whether a task of the group returned err.
func (t *tracked) returned(err error) bool {
	t.log.mu.Lock()
	defer t.log.mu.Unlock()
	for _, e := range t.log.errs {
		if e == err {
			return true
		}
	}
	return false
}
