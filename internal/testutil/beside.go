package testutil

import (
	"sync"
	"sync/atomic"
)

// ComputeBeside starts n goroutines that compute (the program's own load,
// beside a pool) until the function it returns is called, which waits for
// them to end.
func ComputeBeside(n int) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for !done.Load() {
			}
		})
	}
	return func() { done.Store(true); wg.Wait() }
}
