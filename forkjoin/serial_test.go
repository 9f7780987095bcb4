package forkjoin_test

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// fillDefaultPool has GOMAXPROCS goroutines call pool.Default().Run, each
// a guest of the default pool blocked in its call, so that its callers
// fill its Ps (the pool is saturated) until the returned function ends
// the calls.
func fillDefaultPool(t *testing.T) (release func()) {
	t.Helper()
	var wg sync.WaitGroup
	block := make(chan struct{})
	entered := make(chan struct{})
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool.Default().Run(func() {
				entered <- struct{}{}
				<-block
			})
		}()
	}
	for range runtime.GOMAXPROCS(0) {
		<-entered
	}
	return func() {
		close(block)
		wg.Wait()
	}
}

// foldPiecesSeen folds [0, n) in pieces of grain from the calling goroutine
// and returns the pieces body saw and the worker index of each.
func foldPiecesSeen(n, grain int) (pieces [][2]int, where []int) {
	var mu sync.Mutex
	forkjoin.Fold(0, n, grain, func() int { return 0 }, func(acc, lo, hi int) int {
		mu.Lock()
		pieces = append(pieces, [2]int{lo, hi})
		where = append(where, pool.WorkerIndex())
		mu.Unlock()
		return acc + hi - lo
	}, func(a, b int) int { return a + b })
	return pieces, where
}

// While the default pool's callers fill its Ps, a Fold or Reduce called
// from a goroutine that is no worker runs serially on the caller: Fold's
// pieces into one accumulator, Reduce's elements, with the results of the
// parallel forms. Otherwise the same calls run as a guest of the pool. (A
// serial call that takes the monitor two looks hands the rest to the
// pool, which a slow run of this test may see: only the first piece must
// run on the caller.) For keeps the guest path, and its chunks that wait
// for one another (a barrier) get through.
func TestReductionsFromGoroutinesRunSeriallyWhileCallersFillThePs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("saturation is read over the blocked-task monitor's rounds, which run only where it can watch threads")
	}
	watchdog(t, func() {
		// Not saturated: as a guest, in pieces. (The previous test's
		// callers may have left the pool saturated until the monitor's
		// next round.)
		require.True(t, waitFor(func() bool {
			pieces, where := foldPiecesSeen(1000, 10)
			return len(pieces) > 1 && !slices.Contains(where, -1)
		}), "a Fold from a goroutine never ran as a guest in pieces")

		release := fillDefaultPool(t)
		defer release()

		pieces, where := foldPiecesSeen(1000, 10)
		require.NotEmpty(t, pieces)
		assert.Equal(t, -1, where[0], "Fold's first piece ran elsewhere than on the caller")
		assert.Equal(t, 1000, coverage(t, pieces, 0, 1000), "Fold's pieces")

		in := make([]int, 10_000)
		for i := range in {
			in[i] = i
		}
		var firstOp sync.Once
		opWhere := 0
		sum := forkjoin.Reduce(in, 0, func(a, b int) int {
			firstOp.Do(func() { opWhere = pool.WorkerIndex() })
			return a + b
		})
		assert.Equal(t, len(in)*(len(in)-1)/2, sum)
		assert.Equal(t, -1, opWhere, "Reduce's first op ran elsewhere than on the caller")

		// For: as a guest, where chunks that wait for one another get
		// the workers they need.
		var barrier sync.WaitGroup
		barrier.Add(2)
		var chunkWhere [2]int
		forkjoin.For(0, 2, 1, func(i, _ int) {
			chunkWhere[i] = pool.WorkerIndex()
			barrier.Done()
			barrier.Wait()
		})
		assert.NotEqual(t, -1, chunkWhere[0], "For ran serially on the caller")
	})
}

// coverage checks that pieces, each [l, h), cover [lo, hi) exactly once,
// and returns how many indexes they hold.
func coverage(t *testing.T, pieces [][2]int, lo, hi int) int {
	t.Helper()
	seen := make([]int, hi-lo)
	total := 0
	for _, p := range pieces {
		for i := p[0]; i < p[1]; i++ {
			seen[i-lo]++
		}
		total += p[1] - p[0]
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("index %d covered %d times", i+lo, n)
			break
		}
	}
	return total
}

// waitOverdue blocks the calling piece until the default pool's monitor
// has begun two rounds more, so that the serial call running it is
// overdue (as a piece that blocks in a read would make it).
func waitOverdue() {
	for begun := forkjoin.DefaultMonitorRounds(); forkjoin.DefaultMonitorRounds()-begun < 2; {
		time.Sleep(100 * time.Microsecond)
	}
}

// A serial Fold or Reduce whose piece blocks (a read, a sleep) hands the
// pieces left to the pool once the monitor has looked twice: they run
// there, as a guest's or a worker's, where a piece that blocks gets the
// workers its siblings need, rather than one after the other on the
// caller; the result is the serial one.
func TestSerialReductionHandsItsRestToThePoolWhenOverdue(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("saturation is read over the blocked-task monitor's rounds, which run only where it can watch threads")
	}
	watchdog(t, func() {
		release := fillDefaultPool(t)
		defer release()

		var mu sync.Mutex
		var pieceWhere []int
		got := forkjoin.Fold(0, 4000, 1000, func() []int { return nil }, func(acc []int, lo, hi int) []int {
			if lo == 0 {
				waitOverdue()
			}
			mu.Lock()
			pieceWhere = append(pieceWhere, pool.WorkerIndex())
			mu.Unlock()
			return append(acc, lo)
		}, func(a, b []int) []int { return append(a, b...) })
		assert.Equal(t, []int{0, 1000, 2000, 3000}, got, "the pieces' results out of order")
		require.NotEmpty(t, pieceWhere)
		assert.Equal(t, -1, pieceWhere[0], "Fold's first piece ran elsewhere than on the caller")
		assert.NotContains(t, pieceWhere[1:], -1, "Fold's pieces after a blocked one ran on the caller")

		in := make([]int, 10_000)
		for i := range in {
			in[i] = i
		}
		var opMu sync.Mutex
		first, later := true, map[int]bool{}
		sum := forkjoin.Reduce(in, 0, func(a, b int) int {
			opMu.Lock()
			if first {
				first = false
				opMu.Unlock()
				waitOverdue()
				return a + b
			}
			later[pool.WorkerIndex()] = true
			opMu.Unlock()
			return a + b
		})
		assert.Equal(t, len(in)*(len(in)-1)/2, sum)
		assert.False(t, later[-1] && len(later) == 1, "Reduce's ops after a blocked one all ran on the caller")
	})
}
