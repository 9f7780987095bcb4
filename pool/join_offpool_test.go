package pool_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// The package-level Join calls a in place, so a and what it captures stay
// on the caller's stack: a fork costs the closure for b and the variable b
// writes, nothing else. A third or fourth allocation means a escaped.
func TestPackageJoinOnWorkerAllocatesOnlyForB(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	var allocs float64
	p.Run(func() {
		allocs = testing.AllocsPerRun(200, func() {
			var x, y int
			pool.Join(func() { x = 1 }, func() { y = 2 })
			if x+y != 3 {
				panic("pool.Join lost a result")
			}
		})
	})
	assert.LessOrEqual(t, allocs, 2.0, "allocations per pool.Join from a worker")
}

// From a goroutine that is no worker, a runs on the calling goroutine, so
// it still does not escape: the call allocates b's job record and the
// channel its caller may wait on, on top of b's two.
func TestPackageJoinOffPoolKeepsAOnTheStack(t *testing.T) {
	if pool.Default().Workers() < 1 {
		t.Skip("no default pool")
	}
	allocs := testing.AllocsPerRun(100, func() {
		var x, y int
		pool.Join(func() { x = 1 }, func() { y = 2 })
		if x+y != 3 {
			panic("pool.Join lost a result")
		}
	})
	assert.LessOrEqual(t, allocs, 4.0, "allocations per pool.Join from outside the pool")
}

// growThenJoin grows the calling goroutine's stack to about depth KiB,
// returns to the top, and joins there with closures that write to the
// caller's frame. The GC shrinks a stack that uses under a quarter of its
// size: writes from another thread into the caller's frame (a or b) must
// still land in the frame the caller reads.
func growThenJoin(depth int, seed int) (got [8]int) {
	deepen(depth)
	var mine [8]int
	pool.Join(func() {
		for i := range mine {
			mine[i] = seed + i
		}
		runtime.Gosched() // give the GC time to look at the caller
	}, func() {
		for i := range got {
			got[i] = seed * i
		}
	})
	for i := range got {
		got[i] += mine[i]
	}
	return got
}

//go:noinline
func deepen(n int) byte {
	var pad [1024]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return deepen(n-1) + pad[n%len(pad)]
}

func TestOffPoolJoinWhileStacksShrink(t *testing.T) {
	watchdog(t, func() {
		var stop atomic.Bool
		var gcs sync.WaitGroup
		gcs.Add(1)
		go func() { // keep the GC cycling so that it tries to shrink stacks
			defer gcs.Done()
			for !stop.Load() {
				runtime.GC()
			}
		}()
		deadline := time.Now().Add(time.Second)
		var wg sync.WaitGroup
		var rounds atomic.Int64
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; time.Now().Before(deadline); i++ {
					seed := g*1000 + i
					got := growThenJoin(64+i%64, seed)
					for k, v := range got {
						if v != seed+k+seed*k {
							t.Errorf("goroutine %d round %d: got[%d] = %d, want %d", g, i, k, v, seed+k+seed*k)
							return
						}
					}
					rounds.Add(1)
				}
			}()
		}
		wg.Wait()
		stop.Store(true)
		gcs.Wait()
		require.Positive(t, rounds.Load())
	})
}
