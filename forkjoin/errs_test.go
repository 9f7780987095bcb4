package forkjoin_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
)

var errBody = errors.New("body failed")

func TestForErrCoversTheRangeWithoutError(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			const n = 100_000
			seen := make([]atomic.Int32, n)
			var err error
			runAt(t, pl, func() {
				err = forkjoin.ForErr(context.Background(), 0, n, 0, func(ctx context.Context, lo, hi int) error {
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
					return nil
				})
			})
			require.NoError(t, err)
			for i := range seen {
				require.EqualValues(t, 1, seen[i].Load(), "index %d", i)
			}
		})
	}
}

// Stopping early: a failure at the start of a
// million-element range runs under 1% of the bodies on one worker.
func TestForErrStopsAtFirstErrorOnOneWorker(t *testing.T) {
	const n, grain = 1_000_000, 100
	var bodies atomic.Int64
	var err error
	runAt(t, place{"1 worker", 1}, func() {
		err = forkjoin.ForErr(context.Background(), 0, n, grain, func(ctx context.Context, lo, hi int) error {
			bodies.Add(1)
			if lo == 0 {
				return errBody
			}
			return nil
		})
	})
	assert.Same(t, errBody, err)
	assert.Less(t, bodies.Load(), int64(n/grain/100), "bodies run after the first failed")
}

func TestMapErrStopsAtFirstErrorOnOneWorker(t *testing.T) {
	in := make([]int, 1_000_000)
	for i := range in {
		in[i] = i
	}
	var calls atomic.Int64
	var out []int
	var err error
	runAt(t, place{"1 worker", 1}, func() {
		out, err = forkjoin.MapErr(context.Background(), in, func(ctx context.Context, v int) (int, error) {
			calls.Add(1)
			if v == 0 {
				return 0, errBody
			}
			return v, nil
		})
	})
	assert.Same(t, errBody, err)
	assert.Nil(t, out)
	assert.Less(t, calls.Load(), int64(len(in)/100))
}

// A body that runs long sees its context cancelled, with the failure as
// the cause, when another body fails.
//
// Chunk 1 fails only once chunk 0 has started: a chunk that has not
// started when the call fails is skipped, and the caller offers chunk 1 to
// the other worker before it starts chunk 0 (.ci/run failed once with
// chunk 0 skipped, cause nil).
func TestForErrCancelsRunningBodies(t *testing.T) {
	var err error
	var cause error
	started := make(chan struct{})
	runAt(t, place{"2 workers", 2}, func() {
		err = forkjoin.ForErr(context.Background(), 0, 2, 1, func(ctx context.Context, lo, hi int) error {
			if lo == 1 {
				<-started
				return errBody
			}
			close(started)
			<-ctx.Done() // would never return without the cancellation
			cause = context.Cause(ctx)
			return ctx.Err()
		})
	})
	// Either body may fail first in time, but the one that waits can
	// only return after the other one failed.
	assert.Same(t, errBody, err)
	assert.Same(t, errBody, cause)
}

func TestMapErrCancelsRunningCalls(t *testing.T) {
	var out []int
	var err error
	runAt(t, place{"2 workers", 2}, func() {
		out, err = forkjoin.MapErr(context.Background(), []int{0, 1}, func(ctx context.Context, v int) (int, error) {
			if v == 1 {
				return 0, errBody
			}
			<-ctx.Done()
			return 0, context.Cause(ctx)
		})
	})
	assert.Nil(t, out)
	assert.Same(t, errBody, err)
}

func TestForErrParentCancelled(t *testing.T) {
	cause := errors.New("caller gave up")
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			var bodies atomic.Int64
			var err error
			runAt(t, pl, func() {
				err = forkjoin.ForErr(ctx, 0, 1000, 1, func(ctx context.Context, lo, hi int) error {
					// Bodies after the tenth wait for its cancel: a thread
					// preempted between the count and the cancel must not
					// let the others run every body meanwhile.
					switch n := bodies.Add(1); {
					case n == 10:
						cancel(cause)
					case n > 10:
						<-ctx.Done()
					}
					return nil
				})
			})
			assert.Same(t, cause, err)
			assert.Less(t, bodies.Load(), int64(1000))

			// Already done on entry: nothing runs.
			bodies.Store(0)
			out, err := forkjoin.MapErr(ctx, []int{1, 2, 3}, func(ctx context.Context, v int) (int, error) {
				bodies.Add(1)
				return v, nil
			})
			assert.Nil(t, out)
			assert.Same(t, cause, err)
			assert.Zero(t, bodies.Load())
		})
	}
}

func TestMapErrResults(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			in := make([]int, 50_000)
			for i := range in {
				in[i] = i
			}
			var out []string
			var err error
			runAt(t, pl, func() {
				out, err = forkjoin.MapErr(context.Background(), in, func(ctx context.Context, v int) (string, error) {
					return string(rune('a' + v%26)), nil
				})
			})
			require.NoError(t, err)
			require.Len(t, out, len(in))
			for i, s := range out {
				require.Equal(t, string(rune('a'+i%26)), s)
			}
			empty, err := forkjoin.MapErr(context.Background(), []int(nil), func(ctx context.Context, v int) (int, error) { return v, nil })
			require.NoError(t, err)
			assert.NotNil(t, empty)
			assert.Empty(t, empty)
		})
	}
}

// A panic stops the call like an error and comes out as a
// *pool.PanicError after the other bodies finished.
func TestForErrPanic(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			var after atomic.Int64
			runAt(t, pl, func() {
				pe := catchPanicError(t, func() {
					_ = forkjoin.ForErr(context.Background(), 0, 10_000, 1, func(ctx context.Context, lo, hi int) error {
						if lo == 0 {
							panic("boom")
						}
						after.Add(1)
						return nil
					})
				})
				assert.Equal(t, "boom", pe.Value)
			})
			if pl.workers == 1 {
				assert.Zero(t, after.Load(), "chunks started after the panic")
			}
		})
	}
}

func TestErrCallsBadInput(t *testing.T) {
	body := func(ctx context.Context, lo, hi int) error { return nil }
	f := func(ctx context.Context, v int) (int, error) { return v, nil }
	//lint:ignore SA1012 the bad input under test
	assert.PanicsWithValue(t, "forkjoin.ForErr: nil context", func() { _ = forkjoin.ForErr(nil, 0, 1, 1, body) })
	assert.PanicsWithValue(t, "forkjoin.ForErr: nil function", func() { _ = forkjoin.ForErr(context.Background(), 0, 1, 1, nil) })
	//lint:ignore SA1012 the bad input under test
	assert.PanicsWithValue(t, "forkjoin.MapErr: nil context", func() { _, _ = forkjoin.MapErr(nil, []int{1}, f) })
	assert.PanicsWithValue(t, "forkjoin.MapErr: nil function", func() {
		_, _ = forkjoin.MapErr[int, int](context.Background(), []int{1}, nil)
	})
}
