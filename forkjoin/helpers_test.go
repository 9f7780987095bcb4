package forkjoin_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// watchdog runs body on the test goroutine (so require works) and ends the
// test binary with every goroutine's stack if body has not returned within
// testutil.Limit: a deadlock (or a quadratic sort) fails instead of
// hanging.
func watchdog(t *testing.T, body func()) { testutil.Watchdog(t, testutil.Limit, body) }

// newPool returns a pool of workers workers and no guests, which the test
// closes when it ends: a test's p.Run then runs on one of the workers, and
// they are all there is to run its forks, as the tests of worker counts
// assume. Calls from outside, where the caller takes part as a guest, run
// on pool.Default() (the off-pool place). The test gets as many Ps as
// workers: a pool parks the workers past GOMAXPROCS.
func newPool(t testing.TB, workers int, opts ...pool.Option) *pool.Pool {
	t.Helper()
	testutil.NeedProcs(t, workers)
	p, err := pool.New(append([]pool.Option{pool.WithWorkers(workers), pool.WithGuests(0)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

// place is where a test runs the code under test: on the calling
// goroutine (off-pool, so on pool.Default(), the caller taking part as a
// guest), or inside Run of a pool with 1 or 2 workers, no guests and no
// spares, so that the body runs on one of those workers and they are all
// there is (a spare, started when a worker looks blocked, which a loaded
// machine can make a busy one look, would run pieces in a slot of its own).
type place struct {
	name    string
	workers int // 0: off-pool
}

var places = []place{{"off-pool", 0}, {"1 worker", 1}, {"2 workers", 2}}

// runAt runs body at pl (under a watchdog), creating the pool if needed.
// body must not call t.FailNow (require) when it runs on a worker.
func runAt(t *testing.T, pl place, body func()) {
	t.Helper()
	watchdog(t, func() {
		if pl.workers == 0 {
			body()
			return
		}
		newPool(t, pl.workers, pool.WithSpares(0)).Run(body)
	})
}

// recoverValue runs f and returns what it panicked with, or nil.
func recoverValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// catchPanicError runs f, which must panic with a *pool.PanicError, and
// returns that. It may run on a pool's worker, where t.FailNow must not be
// called (runtime.Goexit would end the worker goroutine, and the Run
// waiting for it would hang): on failure it reports with t.Errorf and
// returns an empty *PanicError, which fails the caller's checks.
func catchPanicError(t *testing.T, f func()) *pool.PanicError {
	t.Helper()
	v := recoverValue(f)
	pe, ok := v.(*pool.PanicError)
	if !ok {
		t.Errorf("panic value %T (%v) is not *pool.PanicError", v, v)
		return &pool.PanicError{}
	}
	return pe
}

// raiseMax raises max to v if v is larger.
func raiseMax(max *atomic.Int64, v int64) {
	for {
		m := max.Load()
		if v <= m || max.CompareAndSwap(m, v) {
			return
		}
	}
}

// waitDeadline bounds waitFor: a condition that never comes fails the
// test that waits for it instead of hanging it.
const waitDeadline = 10 * time.Second

// waitFor spins, sleeping a little, until cond holds or waitDeadline has
// passed, and reports whether cond held.
func waitFor(cond func() bool) bool {
	for end := time.Now().Add(waitDeadline); !cond(); time.Sleep(10 * time.Microsecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}
