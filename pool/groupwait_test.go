package pool_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// TestConcurrentWaitsAllReturn: Waits that overlap, from goroutines and
// from tasks of another group (on workers, which help while they wait),
// all return once the group's task is done, with its error, or all
// re-panic with its panic, as errgroup's Waits do. With one waiter
// allowed, the second never returned.
func TestConcurrentWaitsAllReturn(t *testing.T) {
	for _, tc := range []struct {
		name             string
		outside, onTasks int // waiters on goroutines, waiters in another group's tasks
	}{
		{"2 goroutines", 2, 0},
		{"8 goroutines", 8, 0},
		{"a goroutine and a task of another group", 1, 1},
		{"2 tasks of another group", 0, 2},
	} {
		for _, panics := range []bool{false, true} {
			name := tc.name + "/error"
			if panics {
				name = tc.name + "/panic"
			}
			t.Run(name, func(t *testing.T) {
				p := newPool(t, pool.WithWorkers(2))
				watchdog(t, func() {
					g, _ := p.NewGroup(context.Background())
					release := make(chan struct{})
					g.Go(func() error {
						<-release // blocks its worker until every waiter waits
						if panics {
							panic(errTask)
						}
						return errTask
					})
					var mu sync.Mutex
					var results []any // each waiter's error, or its *PanicError's value
					wait := func() {
						defer func() {
							if v := recover(); v != nil {
								pe, ok := v.(*pool.PanicError)
								mu.Lock()
								if ok {
									results = append(results, pe.Value)
								} else {
									results = append(results, v)
								}
								mu.Unlock()
							}
						}()
						err := g.Wait()
						mu.Lock()
						results = append(results, err)
						mu.Unlock()
					}
					var outside sync.WaitGroup
					for range tc.outside {
						outside.Go(wait)
					}
					other, _ := p.NewGroup(context.Background())
					for range tc.onTasks {
						other.Go(func() error { wait(); return nil })
					}
					time.Sleep(20 * time.Millisecond) // not a timing assertion: lets the waiters start waiting
					close(release)
					outside.Wait()
					require.NoError(t, other.Wait())
					require.Len(t, results, tc.outside+tc.onTasks)
					for _, r := range results {
						assert.Same(t, errTask, r, "a waiter's result")
					}
				})
			})
		}
	}
}

// TestWaitAfterConcurrentWaitsStartsANewRound: once overlapping Waits have
// returned, a zero-value group runs a new round and a later Wait waits for
// it (and returns the first error still, as errgroup's does).
func TestWaitAfterConcurrentWaitsStartsANewRound(t *testing.T) {
	watchdog(t, func() {
		var g pool.Group // on the default pool
		g.Go(func() error { time.Sleep(5 * time.Millisecond); return errTask })
		var waiters sync.WaitGroup
		for range 3 {
			waiters.Go(func() { assert.Same(t, errTask, g.Wait()) })
		}
		waiters.Wait()
		ran := false
		g.Go(func() error { time.Sleep(time.Millisecond); ran = true; return nil })
		assert.Same(t, errTask, g.Wait())
		assert.True(t, ran)
	})
}
