package forkjoin_test

import (
	"runtime"
	"slices"
	"sync"
	"testing"

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
// goroutine that is no worker runs serially on the caller: Fold as one
// piece, For's chunks in order, Reduce whole, with the results and panics
// of the parallel forms. Otherwise the same calls run as a guest of the
// pool, in pieces.
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
		assert.Equal(t, [][2]int{{0, 1000}}, pieces, "Fold from a goroutine while the callers fill the Ps")
		assert.Equal(t, []int{-1}, where, "Fold's piece ran elsewhere than on the caller")

		var chunks [][2]int
		forkjoin.For(5, 47, 10, func(lo, hi int) {
			assert.Equal(t, -1, pool.WorkerIndex(), "For's chunk ran elsewhere than on the caller")
			chunks = append(chunks, [2]int{lo, hi}) // serial: no lock needed
		})
		assert.Equal(t, [][2]int{{5, 15}, {15, 25}, {25, 35}, {35, 45}, {45, 47}}, chunks)

		in := make([]int, 10_000)
		for i := range in {
			in[i] = i
		}
		sum := forkjoin.Reduce(in, 0, func(a, b int) int {
			if pool.WorkerIndex() != -1 {
				panic("Reduce's op ran elsewhere than on the caller")
			}
			return a + b
		})
		assert.Equal(t, len(in)*(len(in)-1)/2, sum)

		// Every chunk runs; the lowest chunk's panic comes out, as a
		// *pool.PanicError.
		var ran []int
		pe := catchPanicError(t, func() {
			forkjoin.For(0, 8, 1, func(lo, _ int) {
				ran = append(ran, lo)
				if lo == 3 || lo == 5 {
					panic(lo)
				}
			})
		})
		assert.Equal(t, 3, pe.Value, "the panic re-raised is not the lowest chunk's")
		assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, ran, "a panic stopped the serial chunks")
	})
}
