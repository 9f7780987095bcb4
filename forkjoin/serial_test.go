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

// While the default pool's callers fill its Ps, a loop called from a
// goroutine that is no worker runs serially on the caller: Fold's pieces
// into one accumulator, For's chunks in order, Reduce's elements, with
// the results and panics of the parallel forms. Otherwise the same calls
// run as a guest of the pool. (A serial call that takes a monitor tick
// hands the rest to the pool, which a slow run of this test may see: only
// the first piece must run on the caller.)
func TestLoopsFromGoroutinesRunSeriallyWhileCallersFillThePs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("saturation needs the blocked-worker monitor, which runs on Linux")
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

		var mu sync.Mutex
		var chunks [][2]int
		var chunkWhere []int
		forkjoin.For(5, 47, 10, func(lo, hi int) {
			mu.Lock()
			chunks = append(chunks, [2]int{lo, hi})
			chunkWhere = append(chunkWhere, pool.WorkerIndex())
			mu.Unlock()
		})
		assert.Equal(t, [2]int{5, 15}, chunks[0], "For's first chunk")
		assert.Equal(t, -1, chunkWhere[0], "For's first chunk ran elsewhere than on the caller")
		slices.SortFunc(chunks, func(a, b [2]int) int { return a[0] - b[0] })
		assert.Equal(t, [][2]int{{5, 15}, {15, 25}, {25, 35}, {35, 45}, {45, 47}}, chunks)

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

		// Every chunk runs; the lowest chunk's panic comes out, as a
		// *pool.PanicError.
		var ranMu sync.Mutex
		var ran []int
		pe := catchPanicError(t, func() {
			forkjoin.For(0, 8, 1, func(lo, _ int) {
				ranMu.Lock()
				ran = append(ran, lo)
				ranMu.Unlock()
				if lo == 3 || lo == 5 {
					panic(lo)
				}
			})
		})
		assert.Equal(t, 3, pe.Value, "the panic re-raised is not the lowest chunk's")
		slices.Sort(ran)
		assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, ran, "a panic stopped the serial chunks")
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

// A serial call whose piece blocks (a read, a sleep) hands the pieces
// left to the pool once the monitor has looked twice: they run there, as
// a guest's or a worker's, where a piece that blocks gets the workers its
// siblings need, rather than one after the other on the caller.
func TestSerialLoopHandsItsRestToThePoolWhenOverdue(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("saturation needs the blocked-worker monitor, which runs on Linux")
	}
	watchdog(t, func() {
		release := fillDefaultPool(t)
		defer release()

		var mu sync.Mutex
		where := map[int]int{}
		forkjoin.For(0, 4, 1, func(i, _ int) {
			if i == 0 {
				time.Sleep(20 * time.Millisecond) // many monitor ticks
			}
			mu.Lock()
			where[i] = pool.WorkerIndex()
			mu.Unlock()
		})
		assert.Equal(t, -1, where[0], "For's first chunk ran elsewhere than on the caller")
		for i := 1; i < 4; i++ {
			assert.NotEqual(t, -1, where[i], "chunk %d ran on the caller after a blocked chunk", i)
		}

		var pieceWhere []int
		sum := forkjoin.Fold(0, 4000, 1000, func() int { return 0 }, func(acc, lo, hi int) int {
			if lo == 0 {
				time.Sleep(20 * time.Millisecond)
			}
			mu.Lock()
			pieceWhere = append(pieceWhere, pool.WorkerIndex())
			mu.Unlock()
			return acc + hi - lo
		}, func(a, b int) int { return a + b })
		assert.Equal(t, 4000, sum)
		require.NotEmpty(t, pieceWhere)
		assert.Equal(t, -1, pieceWhere[0], "Fold's first piece ran elsewhere than on the caller")
		assert.NotContains(t, pieceWhere[1:], -1, "Fold's pieces after a blocked one ran on the caller")
	})
}
