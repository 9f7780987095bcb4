package forkjoin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// forkjoin's functions called from a goroutine that is no worker run on
// the pool given to pool.SetDefault.
func TestCallsFromOutsideAPoolRunOnTheDefaultSet(t *testing.T) {
	p := newPool(t, 2)
	old := pool.Default()
	pool.SetDefault(p)
	t.Cleanup(func() { pool.SetDefault(old) })
	watchdog(t, func() {
		onP := func() bool { return pool.Current() == p }
		a, b := forkjoin.Call(func(int) bool { return onP() }, 0, 1)
		assert.True(t, a && b, "Call")
		var all [64]bool
		forkjoin.For(0, len(all), 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				all[i] = onP()
			}
		})
		for i, ok := range all {
			assert.True(t, ok, "For, item %d", i)
		}
		sum := forkjoin.Fold(0, 1000, 0, func() int64 { return 0 }, func(acc int64, lo, hi int) int64 {
			for i := lo; i < hi; i++ {
				if onP() {
					acc += int64(i)
				}
			}
			return acc
		}, func(x, y int64) int64 { return x + y })
		assert.EqualValues(t, 999*1000/2, sum, "Fold")
	})
}
