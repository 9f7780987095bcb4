package forkjoin_test

import (
	"context"
	"errors"
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
