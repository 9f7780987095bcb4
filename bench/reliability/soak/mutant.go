package main

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// A mutant is a deliberately broken contract, to show that the checks
// catch it. The library is never changed: the soak calls Group.Go,
// Group.Wait, ForErr, MapErr and pool.Isolate through the wrappers below,
// which, under a mutant, turn what the library returned into what a
// library with that bug would return, or skip the call. Without a mutant
// they only pass the calls on.
type mutant int

const (
	mutNone mutant = iota
	// mutCloseDrop drops a group task that had not started when Close
	// was called, silently (Go returned, nothing ran, no error).
	mutCloseDrop
	// mutSecondError returns the second error tasks returned instead of
	// the first, from Group.Wait, ForErr and MapErr.
	mutSecondError
	// mutMapErrSkip leaves one element of MapErr's result at its zero
	// value, without calling f on it and without an error.
	mutMapErrSkip
	// mutNoIsolate runs pool.Isolate's function without the region: waits
	// inside it run any queued task.
	mutNoIsolate
	// mutNoSpares makes the soak's pools with WithSpares(0): tasks that
	// block without Block then hold their workers.
	mutNoSpares
	// mutLoneWaiter lets one Wait of a group through at a time: a Wait
	// that overlaps it returns nil at once.
	mutLoneWaiter
	// mutCallerSkip makes one of the callers family's goroutines return
	// from its call as if its work had run, without calling the pool.
	mutCallerSkip
	mutCount
)

var mutantNames = [mutCount]string{"", "close-drop", "second-error", "maperr-skip", "no-isolate", "no-spares", "lone-waiter", "caller-skip"}

var mutantDocs = [mutCount]string{
	"",
	"group tasks not yet started when Close is called are dropped without an error",
	"Group.Wait, ForErr and MapErr return the second error tasks returned instead of the first",
	"MapErr skips one element without an error, leaving its zero value",
	"pool.Isolate calls its function without isolating its waits",
	"the pools start no spare worker in place of a blocked one",
	"a Group.Wait that overlaps another returns nil at once",
	"one of many goroutines calling at once returns without its work done",
}

func parseMutant(name string) (mutant, bool) {
	for m, n := range mutantNames {
		if n == name {
			return mutant(m), true
		}
	}
	return mutNone, false
}

// errLog records the errors that tasks return, in the order they return
// them: what the second-error mutant picks from.
type errLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errLog) add(err error) {
	if err != nil {
		l.mu.Lock()
		l.errs = append(l.errs, err)
		l.mu.Unlock()
	}
}

// second is the error to return instead of err under mutSecondError.
func (s *soak) second(l *errLog, err error) error {
	if s.mutant != mutSecondError || err == nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) >= 2 {
		return l.errs[1]
	}
	return err
}

// tracked is a group with its error log.
type tracked struct {
	g   *pool.Group
	log errLog
	// waiting counts the Waits in progress (waitWith).
	waiting atomic.Int32
	// closing, if not nil, is set when Close of the group's pool is
	// called: a task that starts after that was queued at Close, and
	// mutCloseDrop drops it.
	closing *atomic.Bool
}

// Go is Group.Go.
func (t *tracked) Go(s *soak, f func() error) { t.g.Go(t.wrap(s, f)) }

// TryGo is Group.TryGo.
func (t *tracked) TryGo(s *soak, f func() error) bool { return t.g.TryGo(t.wrap(s, f)) }

func (t *tracked) wrap(s *soak, f func() error) func() error {
	return func() error {
		if s.mutant == mutCloseDrop && t.closing != nil && t.closing.Load() {
			return nil
		}
		err := f()
		t.log.add(err)
		return err
	}
}

// Wait is Group.Wait.
func (t *tracked) Wait(s *soak) error { return s.second(&t.log, t.g.Wait()) }

// callForErr is forkjoin.ForErr, or with fold forkjoin.FoldErr folding
// the count of the indexes its bodies ran, which it returns (ForErr: -1).
func (s *soak) callForErr(ctx context.Context, lo, hi, grain int, fold bool, body func(ctx context.Context, lo, hi int) error) (int, error) {
	var log errLog
	logged := func(ctx context.Context, lo, hi int) error {
		err := body(ctx, lo, hi)
		log.add(err)
		return err
	}
	if !fold {
		return -1, s.second(&log, forkjoin.ForErr(ctx, lo, hi, grain, logged))
	}
	count, err := forkjoin.FoldErr(ctx, lo, hi, grain,
		func() int { return 0 },
		func(ctx context.Context, acc, lo, hi int) (int, error) { return acc + hi - lo, logged(ctx, lo, hi) },
		func(a, b int) int { return a + b })
	return count, s.second(&log, err)
}

// callMapErr is forkjoin.MapErr over in[i] == i, the input of the maperr
// family, which the skip mutant uses to pick its element.
func (s *soak) callMapErr(ctx context.Context, in []int, f func(ctx context.Context, x int) (uint64, error)) ([]uint64, error) {
	var log errLog
	skip := -1
	if s.mutant == mutMapErrSkip {
		skip = len(in) / 2
	}
	out, err := forkjoin.MapErr(ctx, in, func(ctx context.Context, x int) (uint64, error) {
		if x == skip {
			return 0, nil
		}
		v, err := f(ctx, x)
		log.add(err)
		return v, err
	})
	return out, s.second(&log, err)
}

// isolateRegion is pool.Isolate, or, under the no-isolate mutant, a plain call.
func (s *soak) isolateRegion(f func()) {
	if s.mutant == mutNoIsolate {
		f()
		return
	}
	pool.Isolate(f)
}
