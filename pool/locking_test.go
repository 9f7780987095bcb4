package pool_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// TestWithLockedThreads checks that the option reaches the workers: every
// worker that runs a task is locked to its thread by default and with
// WithLockedThreads(true), and none is with WithLockedThreads(false).
func TestWithLockedThreads(t *testing.T) {
	tests := []struct {
		name   string
		opts   []pool.Option
		locked bool
	}{
		{"default", nil, true},
		{"true", []pool.Option{pool.WithLockedThreads(true)}, true},
		{"false", []pool.Option{pool.WithLockedThreads(false)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// No guests: every task runs on the pool's workers.
			p := newPool(t, append([]pool.Option{pool.WithWorkers(2), pool.WithGuests(0)}, tt.opts...)...)
			var locked, unlocked atomic.Int64
			watchdog(t, func() {
				p.Scope(func(s *pool.Scope) {
					s.SpawnMany(256, func(*pool.Scope, int) {
						if pool.WorkerLocked() {
							locked.Add(1)
						} else {
							unlocked.Add(1)
						}
					})
				})
			})
			if tt.locked {
				assert.Equal(t, int64(256), locked.Load())
			} else {
				assert.Equal(t, int64(256), unlocked.Load())
			}
		})
	}
}

func TestPinningNeedsLockedThreads(t *testing.T) {
	p, err := pool.New(pool.WithPinning(true), pool.WithLockedThreads(false))
	require.Error(t, err)
	assert.Nil(t, p)
	assert.Contains(t, err.Error(), "pinning needs workers locked to their threads")
}

// TestUnlockedWorkersRunEverything runs each way of handing work to a
// pool on workers that are ordinary goroutines, and checks the results.
func TestUnlockedWorkersRunEverything(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2), pool.WithLockedThreads(false))
	watchdog(t, func() {
		for range 20 {
			var joined, called int
			p.Run(func() {
				joined = fib(18)
				called = forkjoinFib(18)
			})
			require.Equal(t, 2584, joined)
			require.Equal(t, 2584, called)

			var ran atomic.Int64
			p.Scope(func(s *pool.Scope) {
				for range 100 {
					s.Spawn(func(s *pool.Scope) {
						ran.Add(1)
						s.SpawnMany(10, func(*pool.Scope, int) { ran.Add(1) })
					})
				}
			})
			require.Equal(t, int64(1100), ran.Load())

			var sum atomic.Int64
			p.Run(func() {
				forkjoin.For(0, 1000, 7, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						sum.Add(int64(i))
					}
				})
			})
			require.Equal(t, int64(999*1000/2), sum.Load())

			_, finish := classicDeadlock(p, func(ch chan struct{}) {
				pool.Block(func() { <-ch })
			})
			finish()
		}
	})
}

func forkjoinFib(n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Call(forkjoinFib, n-1, n-2)
	return a + b
}
