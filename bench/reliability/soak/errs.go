package main

import (
	"context"
	"math/rand/v2"
	"sync/atomic"

	"github.com/spindle-go/spindle/pool"
)

// failPlan is how a ForErr or MapErr operation fails, by index: mode 0
// never; mode 1 at leader, and at the followers only once the call's
// context is done (so the first error is the leader's, exactly); mode 2
// never, but the caller's context is cancelled with cause at index
// cancelAt (or before the call, when cancelAt is -1).
type failPlan struct {
	mode      int
	leader    int
	followers []int
	cancelAt  int
	cancel    context.CancelCauseFunc
	cause     error
	leaderErr error
}

// newFailPlan draws a plan over the indices [lo, lo+n) and returns it with
// the context to call with.
func newFailPlan(r *rand.Rand, lo, n int) (*failPlan, context.Context) {
	ctx, cancel := context.WithCancelCause(context.Background())
	pl := &failPlan{mode: r.IntN(3), leader: lo - 1, cancelAt: lo - 1, cancel: cancel, cause: &taskErr{-1}}
	if n == 0 && pl.mode == 1 {
		pl.mode = 0
	}
	switch pl.mode {
	case 1:
		pl.leader = lo + r.IntN(n)
		pl.leaderErr = &taskErr{pl.leader}
		for range 1 + r.IntN(3) {
			pl.followers = append(pl.followers, lo+r.IntN(n))
		}
	case 2:
		if r.IntN(4) == 0 || n == 0 {
			cancel(pl.cause)
		} else {
			pl.cancelAt = lo + r.IntN(n)
		}
	}
	return pl, ctx
}

// at is the plan's step for the indices [l, h), run by a body with the
// call's context ctx: it cancels the caller's context if cancelAt is
// there, and returns the error to return, if any.
func (pl *failPlan) at(ctx context.Context, l, h int) error {
	in := func(i int) bool { return l <= i && i < h }
	if in(pl.cancelAt) {
		pl.cancel(pl.cause)
	}
	if in(pl.leader) {
		return pl.leaderErr
	}
	for _, f := range pl.followers {
		if in(f) && afterFailure(ctx, followerWait) {
			return &taskErr{f}
		}
	}
	return nil
}

// checkPlan checks the error of a call that returned normally: covered
// reports whether every index was run.
func (s *soak) checkPlan(f fam, pl *failPlan, err error, covered bool) {
	switch {
	case pl.mode == 1 && err != pl.leaderErr:
		s.violate(f, "returned %v, want the first error a body returned (%v)", err, pl.leaderErr)
	case pl.mode != 1 && err == nil && !covered:
		s.violate(f, "returned nil, but some index was not run")
	case pl.mode == 2 && err == pl.cause && covered:
		s.violate(f, "returned the cause of the cancelled context, but every index was run")
	case pl.mode != 1 && err != nil && err != pl.cause:
		s.violate(f, "returned %v, want nil or the context's cause", err)
	case pl.mode == 0 && err != nil:
		s.violate(f, "returned %v, nothing failed", err)
	}
}

// forErr runs forkjoin.ForErr, or in half the runs forkjoin.FoldErr
// counting the indexes, over a random range and grain with a random fail
// plan; every index must be run at most once, and exactly once when it
// returns nil; FoldErr's count must be n with nil, 0 with an error.
func (s *soak) forErr(r *rand.Rand, p *pool.Pool) {
	lo := r.IntN(200) - 100
	n := size(r, 20_000)
	grain := []int{-1, 0, 1, 7, 100, 1000}[r.IntN(6)]
	fold, call := r.IntN(2) == 0, "ForErr"
	if fold {
		call = "FoldErr"
	}
	pl, ctx := newFailPlan(r, lo, n)
	defer pl.cancel(nil)
	inj := s.newInjector(r, famForErr, min(n, 64))
	seen := make([]atomic.Int32, n)
	body := func(ctx context.Context, l, h int) error {
		for i := l; i < h; i++ {
			seen[i-lo].Add(1)
		}
		inj.maybe(uint64(l))
		return pl.at(ctx, l, h)
	}
	var count int
	var err error
	v := onPoolOrNot(r, p, func() { count, err = s.callForErr(ctx, lo, lo+n, grain, fold, body) })
	if i := ranOnce(seen, false); i >= 0 {
		s.violate(famForErr, "%s [%d, %d) grain %d: index %d run %d times", call, lo, lo+n, grain, lo+i, seen[i].Load())
	}
	if s.outcome(famForErr, inj, v) {
		s.checkPlan(famForErr, pl, err, ranOnce(seen, true) < 0)
		if fold && (err == nil && count != n || err != nil && count != 0) {
			s.violate(famForErr, "FoldErr [%d, %d) grain %d: counted %d indexes with error %v (want %d with nil, 0 with an error)", lo, lo+n, grain, count, err, n)
		}
	}
}

// mapErr runs forkjoin.MapErr over 0..n-1 with a random fail plan: each
// element must be mapped at most once; the result, when there is no
// error, must be every element's image.
func (s *soak) mapErr(r *rand.Rand, p *pool.Pool) {
	n := size(r, 20_000)
	in := make([]int, n)
	for i := range in {
		in[i] = i
	}
	pl, ctx := newFailPlan(r, 0, n)
	defer pl.cancel(nil)
	inj := s.newInjector(r, famMapErr, n)
	calls := make([]atomic.Int32, n)
	f := func(ctx context.Context, x int) (uint64, error) {
		calls[x].Add(1)
		inj.maybe(uint64(x))
		if err := pl.at(ctx, x, x+1); err != nil {
			return 0, err
		}
		return splitmix(uint64(x)), nil
	}
	var out []uint64
	var err error
	v := onPoolOrNot(r, p, func() { out, err = s.callMapErr(ctx, in, f) })
	if i := ranOnce(calls, false); i >= 0 {
		s.violate(famMapErr, "%d elements: element %d mapped %d times", n, i, calls[i].Load())
	}
	if !s.outcome(famMapErr, inj, v) {
		return
	}
	all := ranOnce(calls, true)
	s.checkPlan(famMapErr, pl, err, all < 0)
	if err != nil {
		if out != nil {
			s.violate(famMapErr, "returned %v and a result", err)
		}
		return
	}
	if len(out) != n {
		s.violate(famMapErr, "%d elements, no error: %d results", n, len(out))
		return
	}
	bad := all
	for i := 0; bad < 0 && i < n; i++ {
		if out[i] != splitmix(uint64(i)) {
			bad = i
		}
	}
	if bad >= 0 {
		s.violate(famMapErr, "%d elements, no error: element %d is not f's result (f called %d times on it)", n, bad, calls[bad].Load())
	}
}
