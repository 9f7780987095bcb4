package forkjoin_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// TestForErrInASynctestBubble: ForErr called inside a testing/synctest
// bubble on the default pool, made outside it, where a chunk that fails
// on one of the pool's workers cancels the context the caller's own
// chunks wait on. Before, the context's channel was the bubble's (made by
// the caller) and the worker's cancel closed it: a fatal error, or a false
// deadlock while the caller's chunks waited on it.
func TestForErrInASynctestBubble(t *testing.T) {
	pool.Default().Run(func() {}) // made outside any bubble
	boom := errors.New("boom")
	forErr := func() error {
		return forkjoin.ForErr(context.Background(), 0, 64, 1, func(ctx context.Context, lo, hi int) error {
			if pool.WorkerIndex() < pool.Default().Workers() {
				return boom // a worker of the pool, outside the bubble
			}
			<-ctx.Done() // the caller's chunks wait for a worker's failure
			return nil
		})
	}
	watchdog(t, func() {
		for range 20 {
			synctest.Test(t, func(t *testing.T) {
				assert.ErrorIs(t, forErr(), boom)
				// Inside a call: the caller is a guest of the pool.
				var err error
				pool.Default().Run(func() { err = forErr() })
				assert.ErrorIs(t, err, boom)
			})
		}
	})
}

// TestSortContextInASynctestBubble: the sorts with a context called
// inside a bubble, with a context of the bubble, on the default pool made
// outside it. The pool's workers may not receive from the context's
// channel (a fatal error), so there the sort learns of the end from a flag
// that context.AfterFunc sets; the cancellation still stops it.
func TestSortContextInASynctestBubble(t *testing.T) {
	pool.Default().Run(func() {}) // made outside any bubble
	in := make([]int, 1<<20)
	for i := range in {
		in[i] = (i * 7919) % len(in)
	}
	watchdog(t, func() {
		for range 5 {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				s := append([]int(nil), in...)
				var calls atomic.Int64
				err := forkjoin.SortFuncContext(ctx, s, func(a, b int) int {
					if calls.Add(1) == 1000 {
						cancel()
					}
					return a - b
				})
				assert.ErrorIs(t, err, context.Canceled)
				// A context of the bubble that ends only after the sorts:
				// the workers look at it at every piece.
				live, stop := context.WithCancel(context.Background())
				s = append([]int(nil), in...)
				assert.NoError(t, forkjoin.SortFuncContext(live, s, func(a, b int) int { return a - b }))
				s = append([]int(nil), in...)
				assert.NoError(t, forkjoin.SortStableFuncContext(live, s, func(a, b int) int { return a - b }))
				stop()
			})
		}
	})
}
