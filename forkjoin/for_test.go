package forkjoin_test

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

type chunk struct{ lo, hi int }

// recordFor runs For and returns its chunks in ascending order, and the
// number of workers of the pool it ran on.
func recordFor(lo, hi, grain int) (chunks []chunk, workers int) {
	var mu sync.Mutex
	workers = pool.Current().Workers()
	forkjoin.For(lo, hi, grain, func(l, h int) {
		mu.Lock()
		chunks = append(chunks, chunk{l, h})
		mu.Unlock()
	})
	slices.SortFunc(chunks, func(a, b chunk) int { return cmp.Compare(a.lo, b.lo) })
	return chunks, workers
}

func TestForCoversRangeExactlyOnce(t *testing.T) {
	for _, pl := range places {
		for _, tc := range []struct {
			name          string
			lo, hi, grain int
		}{
			{"grain 1", 0, 1000, 1},
			{"grain 7", 0, 1000, 7},
			{"grain 0 picks one", 0, 1000, 0},
			{"negative grain picks one", 0, 1000, -5},
			{"negative range", -50, 50, 3},
			{"negative range, grain 0", -50, 50, 0},
			{"one index", 41, 42, 0},
			{"grain equal to length", 0, 64, 64},
			{"huge grain", 0, 1000, math.MaxInt},
			{"large", 3, 100_003, 0},
		} {
			t.Run(pl.name+"/"+tc.name, func(t *testing.T) {
				n := tc.hi - tc.lo
				counts := make([]atomic.Int32, n)
				var chunks []chunk
				var workers int
				runAt(t, pl, func() {
					chunks, workers = recordFor(tc.lo, tc.hi, tc.grain)
					forkjoin.For(tc.lo, tc.hi, tc.grain, func(l, h int) {
						for i := l; i < h; i++ {
							counts[i-tc.lo].Add(1)
						}
					})
				})
				for i := range counts {
					require.EqualValues(t, 1, counts[i].Load(), "index %d", tc.lo+i)
				}
				// Chunks are non-empty and tile [lo, hi) in order.
				require.NotEmpty(t, chunks)
				next := tc.lo
				for _, c := range chunks {
					require.Equal(t, next, c.lo, "chunks %v", chunks)
					require.Less(t, c.lo, c.hi, "empty chunk")
					next = c.hi
				}
				require.Equal(t, tc.hi, next)

				grain := tc.grain
				if grain <= 0 {
					// About 8 chunks per worker: each holds at most
					// ceil(n/(8w)), and halving makes at most 16w of them.
					grain = (n + 8*workers - 1) / (8 * workers)
					assert.LessOrEqual(t, len(chunks), 16*workers)
				}
				for _, c := range chunks {
					assert.LessOrEqual(t, c.hi-c.lo, grain, "chunk %v", c)
				}
				if tc.grain >= n {
					assert.Equal(t, []chunk{{tc.lo, tc.hi}}, chunks)
				}
			})
		}
	}
}

func TestForEmptyRangeNeverCallsBody(t *testing.T) {
	for _, r := range [][2]int{{0, 0}, {5, 5}, {10, 3}, {-1, -2}, {math.MaxInt, math.MinInt}} {
		for _, grain := range []int{-1, 0, 1, 100} {
			forkjoin.For(r[0], r[1], grain, func(lo, hi int) {
				t.Errorf("body(%d, %d) called for For(%d, %d, %d)", lo, hi, r[0], r[1], grain)
			})
		}
	}
}

// TestForWholeIntRange: hi - lo overflows an int; the split must not.
func TestForWholeIntRange(t *testing.T) {
	chunks, _ := recordFor(math.MinInt, math.MaxInt, math.MaxInt)
	require.Len(t, chunks, 3)
	next := math.MinInt
	for _, c := range chunks {
		require.Equal(t, next, c.lo)
		require.Less(t, c.lo, c.hi)
		require.LessOrEqual(t, uint(c.hi)-uint(c.lo), uint(math.MaxInt))
		next = c.hi
	}
	require.Equal(t, math.MaxInt, next)
}

// TestForPanics: a panicking chunk surfaces as a *PanicError, only after
// every chunk that started has finished.
func TestForPanics(t *testing.T) {
	for _, pl := range places {
		for _, tc := range []struct {
			name          string
			lo, hi, grain int
			bad           int // the index whose chunk panics
		}{
			{"many chunks", 0, 10_000, 10, 4321},
			{"first chunk", 0, 10_000, 10, 0},
			{"single chunk", 0, 10, 100, 3},
		} {
			t.Run(pl.name+"/"+tc.name, func(t *testing.T) {
				runAt(t, pl, func() {
					var running atomic.Int32
					pe := catchPanicError(t, func() {
						forkjoin.For(tc.lo, tc.hi, tc.grain, func(lo, hi int) {
							running.Add(1)
							defer running.Add(-1)
							if lo <= tc.bad && tc.bad < hi {
								panic(errBoom)
							}
							for i := 0; i < 100; i++ { // some work to overlap with
								_ = math.Sqrt(float64(i))
							}
						})
					})
					assert.ErrorIs(t, pe, errBoom)
					assert.Contains(t, string(pe.Stack), "TestForPanics", "stack of the panic")
					assert.Zero(t, running.Load(), "For re-panicked while chunks still ran")
				})
			})
		}
	}
}

// TestForEveryChunkPanics: every chunk runs even when each one panics,
// and For re-raises the lowest chunk's panic.
func TestForEveryChunkPanics(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			runAt(t, pl, func() {
				const n = 2000
				var ran [n]atomic.Int32
				pe := catchPanicError(t, func() {
					forkjoin.For(0, n, 1, func(lo, hi int) {
						ran[lo].Add(1)
						panic(lo)
					})
				})
				assert.Equal(t, 0, pe.Value, "the lowest chunk's panic")
				for i := range ran {
					require.Equal(t, int32(1), ran[i].Load(), "chunk %d", i)
				}
			})
		})
	}
}
