package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// errPieceBound is the most indexes a body of FoldErr gets with a grain
// of at most 16Ki: pieces of 16Ki, the last of a run of Fold's up to
// twice that, less one.
const errPieceBound = 2<<14 - 1

// foldIndexesErr is foldIndexes through FoldErr with a body that never
// fails: the indexes of [lo, hi) in order.
func foldIndexesErr(ctx context.Context, lo, hi, grain int, c *foldCounts, maxSize *atomic.Int64) ([]int, error) {
	return forkjoin.FoldErr(ctx, lo, hi, grain,
		func() []int { c.inits.Add(1); return nil },
		func(_ context.Context, acc []int, l, h int) ([]int, error) {
			c.piece(l, h)
			raiseMax(maxSize, int64(h-l))
			for i := l; i < h; i++ {
				acc = append(acc, i)
			}
			return acc, nil
		},
		func(a, b []int) []int { return append(a, b...) })
}

// With nothing failing and nothing cancelled, FoldErr folds what Fold
// folds (the indexes in order: a merge out of order shows), from at most
// one init per body call, in bodies of at least grain indexes and, for
// grains up to 16Ki, under 32Ki: the stop is checked between them.
func TestFoldErrMatchesFold(t *testing.T) {
	type tc struct{ lo, n, grain int }
	cases := []tc{{0, 1, 1}, {-5, 7, 1}, {0, 1000, 1}, {0, 1000, 999}, {10, 100_003, 7}, {0, 1 << 20, 0}, {-3, 300_000, -1}, {0, 200_000, 40_000}}
	for _, pl := range places {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/lo %d n %d grain %d", pl.name, c.lo, c.n, c.grain), func(t *testing.T) {
				counts := newFoldCounts()
				var maxSize atomic.Int64
				var got, want []int
				var err error
				runAt(t, pl, func() {
					got, err = foldIndexesErr(context.Background(), c.lo, c.lo+c.n, c.grain, counts, &maxSize)
					want = foldIndexes(c.lo, c.lo+c.n, c.grain, newFoldCounts())
				})
				require.NoError(t, err)
				require.Equal(t, want, got)
				require.Len(t, got, c.n)
				pieces := counts.pieces.Load()
				assert.LessOrEqual(t, counts.inits.Load(), pieces, "init at most once per body call")
				if pieces > 1 {
					assert.GreaterOrEqual(t, counts.minSize.Load(), int64(c.grain), "bodies get at least grain indexes")
				}
				assert.LessOrEqual(t, maxSize.Load(), int64(max(2*c.grain-1, errPieceBound)), "indexes in one body")
			})
		}
	}
	for _, r := range [][2]int{{0, 0}, {5, 3}} {
		got, err := forkjoin.FoldErr(context.Background(), r[0], r[1], 1,
			func() []string { return []string{"init"} },
			func(_ context.Context, acc []string, l, h int) ([]string, error) {
				t.Error("body called")
				return acc, nil
			},
			func(a, b []string) []string { t.Error("merge called"); return a })
		require.NoError(t, err)
		assert.Equal(t, []string{"init"}, got, "an empty range folds to init()")
	}
}

// affines returns n affine maps (algos_test.go), for reductions by
// composition: associative and not commutative.
func affines(n int) []affine {
	in := make([]affine, n)
	for i := range in {
		in[i] = affine{uint64(2*i + 3), uint64(i*i + 1)}
	}
	return in
}

// With its context never done, ReduceContext returns Reduce's result;
// an empty input returns identity.
func TestReduceContextMatchesReduce(t *testing.T) {
	identity := affine{1, 0}
	for _, pl := range places {
		for _, n := range []int{0, 1, 2, 1000, 100_003, 1 << 20} {
			t.Run(fmt.Sprintf("%s/n %d", pl.name, n), func(t *testing.T) {
				in := affines(n)
				var got, want affine
				var err error
				runAt(t, pl, func() {
					got, err = forkjoin.ReduceContext(context.Background(), in, identity, then)
					want = forkjoin.Reduce(in, identity, then)
				})
				require.NoError(t, err)
				serial := identity
				for _, f := range in {
					serial = then(serial, f)
				}
				assert.Equal(t, serial, want)
				assert.Equal(t, want, got)
			})
		}
	}
}

// runnersAfter bounds the bodies that may start after a stop, at the
// place the call runs: one per runner of the current pool other than the
// one that stopped it, or per runner when the stop came from outside
// (others 1); none on one worker that failed, which starts nothing after.
func runnersAfter(others int) int64 {
	return int64(pool.Current().MaxWorkers() - 1 + others)
}

// Once a body has returned an error, no body starts but those another
// runner had let through already (at most one per runner, none on one
// worker), no merge runs, FoldErr returns exactly that error and the zero
// result, and (on a pool of one or two workers) only a part of the
// bodies ran. A body that starts after the failure
// waits for the context it was given to be cancelled, so that a runner
// preempted between the failure and its cancellation cannot let the
// others run body after body meanwhile (and the cancellation must come).
func TestFoldErrStopsAtTheFirstError(t *testing.T) {
	const n = 1 << 22 // 256 bodies of 16Ki
	for _, pl := range places {
		for _, at := range []struct {
			name  string
			index int
		}{{"first body", 0}, {"middle body", n / 2}} {
			t.Run(pl.name+"/"+at.name, func(t *testing.T) {
				var started, late, merges atomic.Int64
				var failed atomic.Bool
				var got int
				var err error
				var bound int64
				runAt(t, pl, func() {
					bound = runnersAfter(0)
					got, err = forkjoin.FoldErr(context.Background(), 0, n, 0,
						func() int { return 0 },
						func(ctx context.Context, acc, l, h int) (int, error) {
							if failed.Load() {
								late.Add(1)
								<-ctx.Done()
							}
							started.Add(1)
							if l <= at.index && at.index < h {
								failed.Store(true)
								return acc, errBody
							}
							return acc + h - l, nil
						},
						func(a, b int) int { merges.Add(1); return a + b })
				})
				assert.Same(t, errBody, err)
				assert.Zero(t, got, "the result with an error")
				assert.Zero(t, merges.Load(), "merges of a failed fold, whose result is dropped")
				assert.LessOrEqual(t, late.Load(), bound, "bodies started after the failing one returned")
				if pl.workers == 1 && at.index == 0 {
					assert.Equal(t, int64(1), started.Load(), "one worker runs nothing after the first body fails")
				}
				if pl.workers > 0 {
					// On the default pool at many Ps, Fold's pieces (8 per
					// worker) are each a body, and all may have started
					// before the failing one (GOMAXPROCS=64: 257).
					assert.Less(t, started.Load(), int64(n/(16<<10)), "bodies run in all")
				}
			})
		}
	}
}

// Called from a goroutine while the default pool's callers fill its Ps,
// FoldErr folds on the caller, in order (as Fold does), and a failure
// there stops it at once: nothing after the failing body runs.
func TestFoldErrStopsOnTheCallerWhileCallersFillThePs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("saturation is read over the blocked-task monitor's rounds, which run only where it can watch threads")
	}
	watchdog(t, func() {
		release := fillDefaultPool(t)
		defer release()
		var mu sync.Mutex
		var where []int
		_, err := forkjoin.FoldErr(context.Background(), 0, 1<<20, 0,
			func() int { return 0 },
			func(_ context.Context, acc, l, h int) (int, error) {
				mu.Lock()
				where = append(where, pool.WorkerIndex())
				mu.Unlock()
				if l == 0 {
					return acc, errBody
				}
				return acc + h - l, nil
			},
			func(a, b int) int { return a + b })
		assert.Same(t, errBody, err)
		assert.Equal(t, []int{-1}, where, "the bodies run: only the first, on the caller")
	})
}

// reductionsWithAContext are FoldErr and ReduceContext over [0, n), whose
// body (FoldErr) or op (ReduceContext, once per element) calls step(ctx)
// first, ctx being the caller's context (body and op never fail: only
// the context stops them).
var reductionsWithAContext = []struct {
	name   string
	reduce func(ctx context.Context, n int, step func(ctx context.Context)) (uint64, error)
}{
	{"FoldErr", func(ctx context.Context, n int, step func(ctx context.Context)) (uint64, error) {
		return forkjoin.FoldErr(ctx, 0, n, 0,
			func() uint64 { return 0 },
			func(_ context.Context, acc uint64, l, h int) (uint64, error) {
				step(ctx)
				for i := l; i < h; i++ {
					acc += uint64(i)
				}
				return acc, nil
			},
			func(a, b uint64) uint64 { step(ctx); return a + b })
	}},
	{"ReduceContext", func(ctx context.Context, n int, step func(ctx context.Context)) (uint64, error) {
		in := make([]uint64, n)
		for i := range in {
			in[i] = uint64(i)
		}
		return forkjoin.ReduceContext(ctx, in, 0, func(a, b uint64) uint64 { step(ctx); return a + b })
	}},
}

// A context cancelled from another goroutine while the pieces run stops
// the call: it returns the cause and the zero result, and the work
// started after cancel returned is at most a piece per runner (FoldErr:
// one body; ReduceContext: a body's op calls), a small part of the
// whole. From the 8th call of body (op) on, each waits for the
// cancellation, which therefore comes while the call runs, whatever the
// scheduler does.
func TestFoldErrAndReduceContextStopWhenCancelled(t *testing.T) {
	const n = 1 << 20
	for _, rc := range reductionsWithAContext {
		for _, pl := range places {
			t.Run(rc.name+"/"+pl.name, func(t *testing.T) {
				cause := errors.New("the client went away")
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				var calls, late atomic.Int64
				var cancelled atomic.Bool
				var cancelledAt time.Time
				reached, cancelDone := make(chan struct{}), make(chan struct{})
				reach := sync.OnceFunc(func() { close(reached) })
				go func() {
					defer close(cancelDone)
					<-reached
					cancel(cause)
					cancelledAt = time.Now()
					cancelled.Store(true)
				}()
				step := func(ctx context.Context) {
					if cancelled.Load() {
						late.Add(1)
					}
					switch c := calls.Add(1); {
					case c == 8:
						reach()
						fallthrough
					case c > 8:
						<-ctx.Done()
					}
				}
				var got uint64
				var err error
				var bound int64
				runAt(t, pl, func() {
					bound = runnersAfter(1)
					got, err = rc.reduce(ctx, n, step)
				})
				returned := time.Now()
				reach() // in case the call ended before its 8th step
				<-cancelDone
				require.Same(t, cause, err)
				assert.Zero(t, got, "the result with an error")
				t.Logf("%d calls, %d after the cancel, returned %v after it", calls.Load(), late.Load(), returned.Sub(cancelledAt))
				total := int64(n / (16 << 10)) // FoldErr: bodies
				if rc.name == "ReduceContext" {
					bound *= errPieceBound
					total = n // op calls
				}
				assert.LessOrEqual(t, late.Load(), bound, "work started after the cancel returned")
				if pl.workers > 0 || rc.name == "ReduceContext" {
					// On the default pool at many Ps, Fold's pieces (8 per
					// worker) are each a body, and every worker may have
					// started one before the cancellation (GOMAXPROCS=128:
					// 81 of 1024).
					assert.Less(t, calls.Load(), total/2, "the call ran on after the cancellation")
				}
			})
		}
	}
}

// A context already done runs nothing (no init, body, merge or op) and
// returns its cause, but an empty range still returns init() (identity)
// and nil, as ForErr returns nil.
func TestFoldErrAndReduceContextWithADoneContextRunNothing(t *testing.T) {
	cause := errors.New("gone before the call")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			var calls atomic.Int64
			var foldErr, reduceErr, emptyErr error
			var fold, empty []int
			var reduced affine
			runAt(t, pl, func() {
				fold, foldErr = forkjoin.FoldErr(ctx, 0, 1<<20, 0,
					func() []int { calls.Add(1); return []int{-1} },
					func(_ context.Context, acc []int, l, h int) ([]int, error) { calls.Add(1); return acc, nil },
					func(a, b []int) []int { calls.Add(1); return a })
				reduced, reduceErr = forkjoin.ReduceContext(ctx, affines(1<<20), affine{1, 0},
					func(a, b affine) affine { calls.Add(1); return then(a, b) })
				empty, emptyErr = forkjoin.FoldErr(ctx, 3, 3, 0,
					func() []int { return []int{-1} },
					func(_ context.Context, acc []int, l, h int) ([]int, error) { calls.Add(1); return acc, nil },
					func(a, b []int) []int { calls.Add(1); return a })
			})
			assert.Same(t, cause, foldErr)
			assert.Nil(t, fold)
			assert.Same(t, cause, reduceErr)
			assert.Equal(t, affine{}, reduced)
			assert.Zero(t, calls.Load(), "functions called with a done context")
			assert.NoError(t, emptyErr)
			assert.Equal(t, []int{-1}, empty)
			got, err := forkjoin.ReduceContext(ctx, nil, affine{1, 0}, then)
			assert.NoError(t, err)
			assert.Equal(t, affine{1, 0}, got)
		})
	}
}

// A context that ends once every body has started stops nothing: FoldErr
// returns Fold's result and nil, as ForErr returns nil when nothing was
// skipped, even when it ends in a merge (merges run once every body has
// returned). Cancelled by the last body (the one holding hi-1), a call on
// one worker has run every body; elsewhere a body may still have been
// waiting, and the call returns the cause if one was skipped. For a merge
// to run, body 0 waits on 2 workers until the other has run a body.
func TestFoldErrCancelledOnceEveryBodyStartedReturnsTheResult(t *testing.T) {
	const n = 1 << 18
	for _, pl := range places {
		for _, by := range []string{"last body", "merge"} {
			if by == "merge" && pl.workers != 2 {
				continue
			}
			t.Run(pl.name+"/"+by, func(t *testing.T) {
				cause := errors.New("too late to matter")
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				var stolen, merged atomic.Bool
				var got int
				var err error
				runAt(t, pl, func() {
					first := pool.WorkerIndex()
					got, err = forkjoin.FoldErr(ctx, 0, n, 0,
						func() int { return 0 },
						func(_ context.Context, acc, l, h int) (int, error) {
							if pool.WorkerIndex() != first {
								stolen.Store(true)
							}
							if by == "merge" && l == 0 {
								waitFor(stolen.Load)
							}
							if by == "last body" && h == n {
								cancel(cause)
							}
							return acc + h - l, nil
						},
						func(a, b int) int {
							if by == "merge" {
								merged.Store(true)
								cancel(cause)
							}
							return a + b
						})
				})
				if by == "merge" {
					require.True(t, merged.Load(), "no merge ran")
				}
				if err == nil || by == "merge" || pl.workers == 1 {
					require.NoError(t, err)
					assert.Equal(t, n, got)
					return
				}
				assert.Same(t, cause, err)
				assert.Zero(t, got)
			})
		}
	}
}

// A body that runs long sees the context it was given cancelled when
// another body fails, with the error as the cause, or panics, with the
// *pool.PanicError (as in TestForErrCancelsRunningBodies: body 1 fails
// only once body 0 has started).
func TestFoldErrCancelsRunningBodies(t *testing.T) {
	for _, how := range []string{"error", "panic"} {
		t.Run(how, func(t *testing.T) {
			var err error
			var cause error
			var pv any
			started := make(chan struct{})
			runAt(t, place{"2 workers", 2}, func() {
				pv = recoverValue(func() {
					_, err = forkjoin.FoldErr(context.Background(), 0, 2, 1,
						func() int { return 0 },
						func(ctx context.Context, acc, lo, hi int) (int, error) {
							if lo == 1 {
								<-started
								if how == "panic" {
									panic(errBoom)
								}
								return acc, errBody
							}
							close(started)
							<-ctx.Done() // would never return without the cancellation
							cause = context.Cause(ctx)
							return acc, ctx.Err()
						},
						func(a, b int) int { return a + b })
				})
			})
			if how == "error" {
				assert.Nil(t, pv)
				assert.Same(t, errBody, err)
				assert.Same(t, errBody, cause)
				return
			}
			pe, ok := pv.(*pool.PanicError)
			require.True(t, ok, "panic value %T", pv)
			assert.ErrorIs(t, pe, errBoom)
			assert.ErrorIs(t, cause, errBoom, "the cause, a *pool.PanicError")
		})
	}
}

// A panic in init, body or op comes out as a *pool.PanicError once no
// body runs, and stops the call: on one worker, nothing after it.
func TestFoldErrPanics(t *testing.T) {
	for _, pl := range places {
		for _, where := range []string{"init", "body", "ReduceContext op"} {
			t.Run(pl.name+"/"+where, func(t *testing.T) {
				var running, after atomic.Int64
				var panicked atomic.Bool
				runAt(t, pl, func() {
					pe := catchPanicError(t, func() {
						if where == "ReduceContext op" {
							_, _ = forkjoin.ReduceContext(context.Background(), affines(100_000), affine{1, 0}, func(a, b affine) affine {
								if b.a == 2*50_001+3 { // never a piece's first element
									panic(errBoom)
								}
								return then(a, b)
							})
							return
						}
						_, _ = forkjoin.FoldErr(context.Background(), 0, 1<<20, 0,
							func() int {
								if where == "init" {
									panic(errBoom)
								}
								return 0
							},
							func(_ context.Context, acc, l, h int) (int, error) {
								if panicked.Load() {
									after.Add(1)
								}
								running.Add(1)
								defer running.Add(-1)
								if where == "body" && l == 0 {
									panicked.Store(true)
									panic(errBoom)
								}
								return acc + h - l, nil
							},
							func(a, b int) int { return a + b })
					})
					assert.ErrorIs(t, pe, errBoom)
					assert.Zero(t, running.Load(), "a body still running after the panic came out")
				})
				if pl.workers == 1 {
					assert.Zero(t, after.Load(), "bodies started after the panic")
				}
			})
		}
	}
}

func TestFoldErrAndReduceContextBadInput(t *testing.T) {
	init := func() int { return 0 }
	body := func(_ context.Context, acc, l, h int) (int, error) { return acc, nil }
	merge := func(a, b int) int { return a + b }
	bg := context.Background()
	for _, tc := range []struct {
		name, want string
		call       func()
	}{
		//lint:ignore SA1012 the bad input under test
		{"FoldErr ctx", "forkjoin.FoldErr: nil context", func() { _, _ = forkjoin.FoldErr(nil, 0, 10, 1, init, body, merge) }},
		//lint:ignore SA1012 the bad input under test
		{"FoldErr ctx, empty range", "forkjoin.FoldErr: nil context", func() { _, _ = forkjoin.FoldErr(nil, 0, 0, 1, init, body, merge) }},
		{"FoldErr init", "forkjoin.FoldErr: nil function", func() { _, _ = forkjoin.FoldErr(bg, 0, 10, 1, nil, body, merge) }},
		{"FoldErr body", "forkjoin.FoldErr: nil function", func() { _, _ = forkjoin.FoldErr[int](bg, 0, 10, 1, init, nil, merge) }},
		{"FoldErr merge", "forkjoin.FoldErr: nil function", func() { _, _ = forkjoin.FoldErr(bg, 0, 10, 1, init, body, nil) }},
		//lint:ignore SA1012 the bad input under test
		{"ReduceContext ctx", "forkjoin.ReduceContext: nil context", func() { _, _ = forkjoin.ReduceContext(nil, []int{1, 2}, 0, merge) }},
		{"ReduceContext op", "forkjoin.ReduceContext: nil function", func() { _, _ = forkjoin.ReduceContext(bg, []int{1, 2}, 0, nil) }},
	} {
		assert.Equal(t, tc.want, recoverValue(tc.call), tc.name)
	}
}
