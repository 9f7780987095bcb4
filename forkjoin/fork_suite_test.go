package forkjoin_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// The fork suite: every entry point of the two-way fork (runtime's fork
// protocol, written out in runtime.JoinCurrent, forkjoin's fork and
// forkjoin.Join) goes through the same cases, so that the copies cannot
// drift apart: a fork returns only after both halves ran once each, hands
// back both results whether or not the second half was stolen, and raises
// the first half's panic when both panicked.

// forkEntry is one entry point seen through one signature.
type forkEntry struct {
	name string
	// fork forks a and b from a worker of p and reports whether the
	// results (where the entry has any) came back in their places.
	fork func(p *pool.Pool, a, b func()) (resultsOK bool)
	// bound: fork forks on p itself (Pool.Join); the others fork on the
	// pool of the worker that calls them.
	bound bool
}

var forkEntries = []forkEntry{
	{name: "pool.Join", fork: func(_ *pool.Pool, a, b func()) bool {
		pool.Join(a, b)
		return true
	}},
	{name: "Pool.Join", bound: true, fork: func(p *pool.Pool, a, b func()) bool {
		p.Join(a, b)
		return true
	}},
	{name: "forkjoin.Call", fork: func(_ *pool.Pool, a, b func()) bool {
		halves := [2]func(){a, b}
		x, y := forkjoin.Call(func(i int) int {
			halves[i]()
			return 10 + i
		}, 0, 1)
		return x == 10 && y == 11
	}},
	{name: "forkjoin.Do", fork: func(_ *pool.Pool, a, b func()) bool {
		halves := [2]func(){a, b}
		forkjoin.Do(func(i int) { halves[i]() }, 0, 1)
		return true
	}},
	{name: "forkjoin.Join", fork: func(_ *pool.Pool, a, b func()) bool {
		x, y := forkjoin.Join(
			func() int { a(); return 10 },
			func() string { b(); return "b" },
		)
		return x == 10 && y == "b"
	}},
}

// halves is one fork's pair of halves and what they saw. With steal, a
// waits until b has started (on the pool's other worker, which must steal
// it), so the fork's second half is stolen deterministically; b, stolen,
// outlasts a (it waits until a has finished or is panicking, then a little
// more), so a fork that did not wait for its thief would be seen. With
// bFirst it is the other way round: a waits until b has finished (and
// is about to panic, with bPanics).
type halves struct {
	steal            bool
	aPanics, bPanics bool
	bFirst           bool

	aRuns, bRuns       atomic.Int32
	aWorker, bWorker   atomic.Int32
	bStarted, aOver    atomic.Bool
	bFinished          atomic.Bool
	stealSeen, aWaited atomic.Bool
}

func (h *halves) a() {
	h.aRuns.Add(1)
	h.aWorker.Store(int32(pool.WorkerIndex()))
	if h.steal {
		h.stealSeen.Store(waitFor(h.bStarted.Load))
	}
	if h.bFirst {
		waitFor(h.bFinished.Load)
	}
	h.aOver.Store(true)
	if h.aPanics {
		panic("a")
	}
}

func (h *halves) b() {
	h.bRuns.Add(1)
	h.bWorker.Store(int32(pool.WorkerIndex()))
	h.bStarted.Store(true)
	if h.steal && !h.bFirst {
		h.aWaited.Store(waitFor(h.aOver.Load))
		time.Sleep(10 * time.Millisecond) // a's fork is waiting for b by now, usually
	}
	h.bFinished.Store(true)
	if h.bPanics {
		panic("b")
	}
}

// panicValue returns the Value of the *pool.PanicError v, failing the test
// if v is something else.
func panicValue(t *testing.T, v any) any {
	t.Helper()
	var pe *pool.PanicError
	err, _ := v.(error)
	require.ErrorAs(t, err, &pe, "recovered %#v", v)
	require.Same(t, pe, v, "the fork raised a wrapped *pool.PanicError")
	_, nested := pe.Value.(*pool.PanicError)
	require.False(t, nested, "a *pool.PanicError inside a *pool.PanicError")
	return pe.Value
}

func TestForkSuiteHalves(t *testing.T) {
	cases := []struct {
		name             string
		steal            bool
		aPanics, bPanics bool
		bFirst           bool
	}{
		{name: "not stolen"},
		{name: "stolen", steal: true},
		{name: "panic in a, not stolen", aPanics: true},
		{name: "panic in a, stolen", steal: true, aPanics: true},
		{name: "panic in b, not stolen", bPanics: true},
		{name: "panic in b, stolen", steal: true, bPanics: true},
		{name: "panic in both, not stolen", aPanics: true, bPanics: true},
		{name: "panic in both, stolen", steal: true, aPanics: true, bPanics: true},
		{name: "panic in both, stolen, b's first", steal: true, aPanics: true, bPanics: true, bFirst: true},
	}
	for _, e := range forkEntries {
		for _, c := range cases {
			t.Run(e.name+"/"+c.name, func(t *testing.T) {
				if c.steal {
					testutil.NeedTwoPs(t)
				}
				workers := 1 // no thief: the fork takes b back
				if c.steal {
					workers = 2
				}
				// No guests: the forks run on the pool's workers, so with
				// one worker nobody can steal.
				p := newPool(t, workers, pool.WithGuests(0))
				// Two forks in a row on the same worker: the second reuses
				// the record the first left, after its steal or panic.
				type round struct {
					h                         *halves
					resultsOK, bFinishedFirst bool
					v                         any
				}
				var rounds [2]round
				watchdog(t, func() {
					p.Run(func() {
						for i := range rounds {
							r := &rounds[i]
							r.h = &halves{steal: c.steal, aPanics: c.aPanics, bPanics: c.bPanics, bFirst: c.bFirst}
							r.v = recoverValue(func() { r.resultsOK = e.fork(p, r.h.a, r.h.b) })
							r.bFinishedFirst = r.h.bFinished.Load()
						}
					})
				})
				for i, r := range rounds {
					h := r.h
					assert.Equal(t, int32(1), h.aRuns.Load(), "fork %d: a's runs", i)
					assert.Equal(t, int32(1), h.bRuns.Load(), "fork %d: b's runs", i)
					assert.True(t, r.bFinishedFirst, "fork %d returned or raised before b finished", i)
					if c.steal {
						assert.True(t, h.stealSeen.Load(), "fork %d: b was not started by another worker within %v", i, waitDeadline)
						assert.True(t, c.bFirst || h.aWaited.Load(), "fork %d: a did not finish while b ran", i)
						assert.NotEqual(t, h.aWorker.Load(), h.bWorker.Load(), "fork %d: b ran on a's worker", i)
					} else {
						assert.Equal(t, h.aWorker.Load(), h.bWorker.Load(), "fork %d: b ran on another worker", i)
					}
					switch {
					case c.aPanics:
						assert.Equal(t, "a", panicValue(t, r.v), "fork %d: a's panic wins", i)
					case c.bPanics:
						assert.Equal(t, "b", panicValue(t, r.v), "fork %d", i)
					default:
						assert.Nil(t, r.v, "fork %d", i)
						assert.True(t, r.resultsOK, "fork %d: results out of place", i)
					}
				}
			})
		}
	}
}

// TestForkSuiteNested forks a tree of depth 6 whose every level goes
// through the next entry point, so frames of every entry's record type
// meet at every depth of a worker's frame stack; then the same tree with
// its leftmost leaf panicking, whose panic must come out of the root as
// the leaf's own *pool.PanicError after every leaf ran.
func TestForkSuiteNested(t *testing.T) {
	const depth = 6
	for i, e := range forkEntries {
		for _, panics := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/panic=%v", e.name, panics), func(t *testing.T) {
				p := newPool(t, 2)
				var leaves, badResults atomic.Int32
				var tree func(d, path int)
				tree = func(d, path int) {
					if d == 0 {
						leaves.Add(1)
						if panics && path == 0 {
							panic("leaf")
						}
						return
					}
					next := forkEntries[(i+d)%len(forkEntries)]
					if !next.fork(pool.Current(), func() { tree(d-1, 2*path) }, func() { tree(d-1, 2*path+1) }) {
						badResults.Add(1)
					}
				}
				var v any
				watchdog(t, func() {
					p.Run(func() { v = recoverValue(func() { tree(depth, 0) }) })
				})
				assert.Equal(t, int32(1<<depth), leaves.Load(), "leaves run")
				if panics {
					assert.Equal(t, "leaf", panicValue(t, v))
				} else {
					assert.Nil(t, v)
					assert.Zero(t, badResults.Load(), "forks whose results came back out of place")
				}
			})
		}
	}
}

// TestForkSuiteAcrossPools forks on a worker of pool A halves that call
// Pool.Join of pool B: the halves run on A, B's halves on B, and a panic
// on B comes back through both pools' forks as its *pool.PanicError.
func TestForkSuiteAcrossPools(t *testing.T) {
	for _, e := range forkEntries {
		for _, workersA := range []int{1, 2} {
			for _, panics := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/A=%d/panic=%v", e.name, workersA, panics), func(t *testing.T) {
					pa, pb := newPool(t, workersA), newPool(t, 2)
					var onA, onB, elsewhere atomic.Int32
					leaf := func() {
						if pool.Current() == pb {
							onB.Add(1)
						} else {
							elsewhere.Add(1)
						}
					}
					half := func(name string) func() {
						return func() {
							if pool.Current() == pa {
								onA.Add(1)
							} else {
								elsewhere.Add(1)
							}
							pb.Join(leaf, func() {
								leaf()
								if panics && name == "b" {
									panic("on B")
								}
							})
						}
					}
					var resultsOK bool
					var v any
					watchdog(t, func() {
						pa.Run(func() {
							v = recoverValue(func() { resultsOK = e.fork(pa, half("a"), half("b")) })
						})
					})
					assert.Equal(t, int32(2), onA.Load(), "halves run on A")
					assert.Equal(t, int32(4), onB.Load(), "B's halves run on B")
					assert.Zero(t, elsewhere.Load(), "halves run on neither pool")
					if panics {
						assert.Equal(t, "on B", panicValue(t, v))
					} else {
						assert.Nil(t, v)
						assert.True(t, resultsOK, "results out of place")
					}
				})
			}
		}
	}
}

// TestForkSuiteWhileClosing forks, with its second half stolen, inside a
// call that is in progress while Close waits for it: the fork completes
// and Close returns after it. Then a fork from outside the closed pool
// panics with an error wrapping pool.ErrClosed, running neither half.
//
// The pool has no guests, so that the call runs on a worker and the other
// worker steals b: a guest's fork is not offered while the guests fill the
// Ps, which the calls that probe for Close's refusal do for a moment, and
// a here waits for b's thief instead of taking b back.
func TestForkSuiteWhileClosing(t *testing.T) {
	testutil.NeedTwoPs(t)
	for _, e := range forkEntries {
		t.Run(e.name, func(t *testing.T) {
			p, err := pool.New(pool.WithWorkers(2), pool.WithGuests(0))
			require.NoError(t, err)
			h := &halves{steal: true}
			var resultsOK bool
			watchdog(t, func() {
				started, proceed, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
				go func() {
					defer close(done)
					p.Run(func() {
						close(started)
						<-proceed
						resultsOK = e.fork(p, h.a, h.b)
					})
				}()
				<-started
				closed := make(chan error, 1)
				go func() { closed <- p.Close() }()
				// Close has begun once it refuses calls from outside.
				refusing := waitFor(func() bool {
					v := recoverValue(func() { p.Run(func() {}) })
					return v != nil
				})
				close(proceed)
				require.NoError(t, <-closed)
				<-done
				require.True(t, refusing, "Close did not start refusing calls within %v", waitDeadline)
			})
			assert.True(t, resultsOK, "results out of place")
			assert.Equal(t, int32(1), h.aRuns.Load(), "a's runs")
			assert.Equal(t, int32(1), h.bRuns.Load(), "b's runs")
			assert.True(t, h.stealSeen.Load(), "b was not stolen within %v", waitDeadline)

			after := &halves{}
			v := recoverValue(func() {
				if e.bound {
					e.fork(p, after.a, after.b)
				} else {
					p.Run(func() { e.fork(p, after.a, after.b) })
				}
			})
			err, _ = v.(error)
			assert.ErrorIs(t, err, pool.ErrClosed, "fork from outside after Close: recovered %#v", v)
			assert.Zero(t, after.aRuns.Load()+after.bRuns.Load(), "halves run on a closed pool")
		})
	}
}

// TestForkSuiteOffPool forks from a goroutine that is no worker (the
// unbound entries fork on pool.Default()): each half runs once and the
// results come back in place.
func TestForkSuiteOffPool(t *testing.T) {
	for _, e := range forkEntries {
		t.Run(e.name, func(t *testing.T) {
			p := newPool(t, 1)
			h := &halves{}
			var resultsOK bool
			watchdog(t, func() {
				if e.bound {
					resultsOK = e.fork(p, h.a, h.b)
				} else {
					resultsOK = e.fork(nil, h.a, h.b)
				}
			})
			assert.True(t, resultsOK, "results out of place")
			assert.Equal(t, int32(1), h.aRuns.Load(), "a's runs")
			assert.Equal(t, int32(1), h.bRuns.Load(), "b's runs")
		})
	}
}
