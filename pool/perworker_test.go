package pool_test

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/pool"
)

// A task per node that returns nothing counts with a PerWorker: every
// update lands, from the pool's workers, from goroutines that are no
// worker, and from another pool's workers (the shared value, under its
// lock; go test -race checks that nothing races).
func TestPerWorkerCountsEveryUpdateFromAnywhere(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := newPool(t, pool.WithWorkers(workers))
		other := newPool(t, pool.WithWorkers(2))
		counts := pool.NewPerWorker[int64](p)
		watchdog(t, func() {
			const depth = 12 // 2^13-1 nodes
			var visit func(s *pool.Scope, d int)
			visit = func(s *pool.Scope, d int) {
				counts.Update(func(n *int64) { *n++ })
				if d > 0 {
					s.Spawn(func(s *pool.Scope) { visit(s, d-1) })
					s.Spawn(func(s *pool.Scope) { visit(s, d-1) })
				}
			}
			var outside sync.WaitGroup
			for range 4 {
				outside.Go(func() {
					for range 1000 {
						counts.Update(func(n *int64) { *n++ })
					}
				})
			}
			other.Scope(func(s *pool.Scope) {
				for range 100 {
					s.Spawn(func(*pool.Scope) { counts.Update(func(n *int64) { *n++ }) })
				}
			})
			p.Scope(func(s *pool.Scope) { visit(s, depth) })
			outside.Wait()
			sum := counts.Combine(func(a, b int64) int64 { return a + b })
			assert.EqualValues(t, 1<<(depth+1)-1+4000+100, sum, "workers=%d", workers)
			counts.Reset()
			assert.Zero(t, counts.Combine(func(a, b int64) int64 { return a + b }))
		})
	}
}

// Two workers' values are a cache line apart at least, so that their
// updates do not contend.
func TestPerWorkerValuesAreOnLinesOfTheirOwn(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	vals := pool.NewPerWorker[int64](p)
	var addrs []uintptr
	var mu sync.Mutex
	p.Scope(func(s *pool.Scope) {
		for range 64 {
			s.Spawn(func(*pool.Scope) {
				vals.Update(func(v *int64) {
					mu.Lock()
					addrs = append(addrs, uintptr(unsafe.Pointer(v)))
					mu.Unlock()
				})
			})
		}
	})
	vals.Update(func(v *int64) { addrs = append(addrs, uintptr(unsafe.Pointer(v))) })
	for _, a := range addrs {
		for _, b := range addrs {
			if a != b {
				assert.GreaterOrEqual(t, max(a, b)-min(a, b), uintptr(128))
			}
		}
	}
}

func TestNewPerWorkerOfNilPoolPanics(t *testing.T) {
	assert.PanicsWithValue(t, "pool.NewPerWorker: nil *pool.Pool", func() { pool.NewPerWorker[int](nil) })
}
