package pool_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// TestDefaultFollowsGOMAXPROCS: the default pool's size is GOMAXPROCS
// after each change and a call, and it computes right at each step.
func TestDefaultFollowsGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	data := make([]int64, 100_000)
	for i := range data {
		data[i] = int64(i)
	}
	watchdog(t, func() {
		for _, k := range []int{1, 3, 2, 1} {
			runtime.GOMAXPROCS(k)
			var sum atomic.Int64
			forkjoin.For(0, len(data), 1000, func(lo, hi int) {
				var s int64
				for _, v := range data[lo:hi] {
					s += v
				}
				sum.Add(s)
			})
			assert.Equal(t, int64(len(data))*int64(len(data)-1)/2, sum.Load(), "For at GOMAXPROCS %d", k)
			assert.Equal(t, k, pool.Default().Workers(), "Default().Workers() at GOMAXPROCS %d", k)
			a, b := forkjoin.Call(fib, 20, 19)
			assert.Equal(t, 6765+4181, a+b, "Call at GOMAXPROCS %d", k)
		}
	})
}

// TestWithWorkersKeepsItsCount: an explicit worker count is the pool's
// size whatever GOMAXPROCS says.
func TestWithWorkersKeepsItsCount(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	p := newPoolAtProcs(t, pool.WithWorkers(3))
	for _, k := range []int{1, 4, 2} {
		runtime.GOMAXPROCS(k)
		p.Run(func() {})
		assert.Equal(t, 3, p.Workers(), "at GOMAXPROCS %d", k)
	}
}

// TestFollowingPoolUnderChangingGOMAXPROCS changes GOMAXPROCS every few
// hundred microseconds while goroutines run every kind of task on a pool
// that follows it (forks, scopes, groups, spawns, futures, bulk spawns,
// MapSeq), checking each result; then the pool closes and leaves no
// goroutine behind.
func TestFollowingPoolUnderChangingGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	budget := 300 * time.Millisecond
	if testutil.RaceEnabled {
		budget = time.Second
	}
	// The default pool follows GOMAXPROCS too, and its workers read it
	// when they go to sleep: grow it to the most this test sets first, so
	// that the goroutines it may add are not counted as left behind.
	runtime.GOMAXPROCS(4)
	pool.Default().Run(func() {})
	before := goleak.IgnoreCurrent()
	watchdog(t, func() {
		p, err := pool.New()
		require.NoError(t, err)
		stop := make(chan struct{})
		var changer sync.WaitGroup
		changer.Add(1)
		go func() {
			defer changer.Done()
			r := rand.New(rand.NewPCG(7, 7))
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(100+r.IntN(400)) * time.Microsecond):
					runtime.GOMAXPROCS(1 + r.IntN(4))
				}
			}
		}()
		var callers sync.WaitGroup
		for c := range 3 {
			callers.Add(1)
			go func() {
				defer callers.Done()
				deadline := time.Now().Add(budget)
				for i := 0; i < 3 || time.Now().Before(deadline); i++ {
					followingMix(t, p, c+i)
				}
			}()
		}
		callers.Wait()
		close(stop)
		changer.Wait()
		require.NoError(t, p.Close())
	})
	goleak.VerifyNone(t, before)
}

// followingMix runs one task of each kind on p and checks its result.
func followingMix(t *testing.T, p *pool.Pool, round int) {
	var got int
	p.Run(func() { got = fib(18) })
	assert.Equal(t, 2584, got, "fib in Run")

	var n atomic.Int64
	p.Scope(func(s *pool.Scope) {
		for range 50 {
			s.Spawn(func(*pool.Scope) { n.Add(1) })
		}
		s.SpawnMany(100, func(_ *pool.Scope, i int) { n.Add(int64(i)) })
	})
	assert.EqualValues(t, 50+99*100/2, n.Load(), "scope")

	g, _ := p.NewGroup(context.Background())
	var gn atomic.Int64
	for range 20 {
		g.Go(func() error { gn.Add(1); return nil })
	}
	assert.NoError(t, g.Wait())
	assert.EqualValues(t, 20, gn.Load(), "group")

	var done sync.WaitGroup
	done.Add(1)
	p.Spawn(func() { done.Done() })
	done.Wait()

	assert.Equal(t, 987, pool.Submit(p, func() int { return fib(16) }).Wait(), "future")

	in := make([]int, 200+round%7)
	for i := range in {
		in[i] = i
	}
	var out []int
	p.Run(func() { out = slices.Collect(forkjoin.MapSeq(slices.Values(in), func(x int) int { return 2 * x })) })
	require.Len(t, out, len(in), "MapSeq")
	for i, v := range out {
		if v != 2*i {
			t.Errorf("MapSeq: out[%d] = %d, want %d", i, v, 2*i)
			break
		}
	}
}
