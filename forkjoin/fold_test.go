package forkjoin_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// foldCounts is what a Fold under test saw: how many times init ran, and
// the sizes of the pieces body got.
type foldCounts struct {
	inits   atomic.Int64
	pieces  atomic.Int64
	minSize atomic.Int64
}

func newFoldCounts() *foldCounts {
	c := &foldCounts{}
	c.minSize.Store(math.MaxInt64)
	return c
}

func (c *foldCounts) piece(lo, hi int) {
	c.pieces.Add(1)
	for n := int64(hi - lo); ; {
		m := c.minSize.Load()
		if n >= m || c.minSize.CompareAndSwap(m, n) {
			return
		}
	}
}

// foldIndexes folds [lo, hi) into the slice of its indexes, in order:
// concatenation is associative and not commutative, so any piece folded
// or merged out of order shows.
func foldIndexes(lo, hi, grain int, c *foldCounts) []int {
	return forkjoin.Fold(lo, hi, grain,
		func() []int { c.inits.Add(1); return nil },
		func(acc []int, l, h int) []int {
			c.piece(l, h)
			for i := l; i < h; i++ {
				acc = append(acc, i)
			}
			return acc
		},
		func(a, b []int) []int { return append(a, b...) })
}

func TestFoldMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type tc struct{ lo, n, grain int }
	cases := []tc{{0, 1, 1}, {0, 2, 1}, {-5, 7, 1}, {0, 1000, 1}, {0, 1000, 1000}, {0, 1000, 999}, {10, 100003, 7}, {0, 100003, 0}, {-3, 5000, -1}}
	for range 12 {
		cases = append(cases, tc{rng.IntN(100) - 50, rng.IntN(50000) + 1, rng.IntN(3000) + 1})
	}
	for _, pl := range places {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/lo %d n %d grain %d", pl.name, c.lo, c.n, c.grain), func(t *testing.T) {
				counts := newFoldCounts()
				var got []int
				runAt(t, pl, func() { got = foldIndexes(c.lo, c.lo+c.n, c.grain, counts) })
				want := make([]int, c.n)
				for i := range want {
					want[i] = c.lo + i
				}
				require.Equal(t, want, got)
				pieces := counts.pieces.Load()
				assert.LessOrEqual(t, counts.inits.Load(), pieces, "init at most once per piece")
				assert.GreaterOrEqual(t, counts.inits.Load(), int64(1))
				if pieces > 1 {
					assert.GreaterOrEqual(t, counts.minSize.Load(), int64(c.grain), "pieces hold at least grain indexes")
				}
			})
		}
	}
}

// TestFoldStrings folds the decimal digits of the indexes into a string,
// another non-commutative accumulator, with a merge that agrees with body.
func TestFoldStrings(t *testing.T) {
	const n = 20000
	want := ""
	for i := range n {
		want += strconv.Itoa(i % 10)
	}
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			var got string
			runAt(t, pl, func() {
				got = forkjoin.Fold(0, n, 100,
					func() string { return "" },
					func(acc string, l, h int) string {
						b := []byte(acc)
						for i := l; i < h; i++ {
							b = strconv.AppendInt(b, int64(i%10), 10)
						}
						return string(b)
					},
					func(a, b string) string { return a + b })
			})
			assert.Equal(t, want, got)
		})
	}
}

// TestFoldWholeIntRange covers a range whose length does not fit in an
// int, as For does.
func TestFoldWholeIntRange(t *testing.T) {
	got := forkjoin.Fold(math.MinInt, math.MaxInt, 1<<58,
		func() uint { return 0 },
		func(acc uint, l, h int) uint { return acc + (uint(h) - uint(l)) },
		func(a, b uint) uint { return a + b })
	assert.Equal(t, uint(math.MaxUint), got)
}

func TestFoldEmptyRangeReturnsInit(t *testing.T) {
	for _, r := range [][2]int{{0, 0}, {5, 5}, {5, 3}} {
		got := forkjoin.Fold(r[0], r[1], 1,
			func() []string { return []string{"init"} },
			func(acc []string, l, h int) []string { t.Error("body called"); return acc },
			func(a, b []string) []string { t.Error("merge called"); return a })
		assert.Equal(t, []string{"init"}, got)
	}
}

func TestFoldBadInput(t *testing.T) {
	init := func() int { return 0 }
	body := func(acc, l, h int) int { return acc }
	merge := func(a, b int) int { return a + b }
	for name, call := range map[string]func(){
		"init":  func() { forkjoin.Fold(0, 10, 1, nil, body, merge) },
		"body":  func() { forkjoin.Fold(0, 10, 1, init, nil, merge) },
		"merge": func() { forkjoin.Fold(0, 10, 1, init, body, nil) },
	} {
		assert.Equal(t, "forkjoin.Fold: nil function", recoverValue(call), name)
	}
}

// TestFoldPanics: a panic in any of the three functions comes out as a
// *pool.PanicError, and only once no piece is running. merge runs only
// between runs begun on different workers, so for its case piece 0 waits
// until another worker has started a piece, on a pool of 2.
func TestFoldPanics(t *testing.T) {
	const n = 10000
	for _, pl := range places {
		for _, where := range []string{"init", "body", "merge", "empty init"} {
			if where == "merge" && pl.workers != 2 {
				continue
			}
			t.Run(pl.name+"/"+where, func(t *testing.T) {
				runAt(t, pl, func() {
					var running atomic.Int64
					var stolen atomic.Bool
					first := pool.WorkerIndex()
					hi := n
					if where == "empty init" {
						hi = 0
					}
					pe := catchPanicError(t, func() {
						forkjoin.Fold(0, hi, 10,
							func() int {
								if where == "init" || where == "empty init" {
									panic(errBoom)
								}
								return 0
							},
							func(acc, l, h int) int {
								running.Add(1)
								defer running.Add(-1)
								if pool.WorkerIndex() != first {
									stolen.Store(true)
								}
								switch {
								case where == "body" && l <= n/2 && n/2 < h:
									panic(errBoom)
								case where == "merge" && l == 0:
									waitFor(stolen.Load)
								}
								return acc + h - l
							},
							func(a, b int) int {
								if where == "merge" {
									panic(errBoom)
								}
								return a + b
							})
					})
					assert.ErrorIs(t, pe, errBoom)
					assert.Zero(t, running.Load(), "a piece still running after the panic came out")
				})
			})
		}
	}
}

// TestFoldNested folds inside body, and forks inside body, so that a
// worker waiting inside a piece runs other pieces of the same Fold: those
// must not touch the accumulator the waiting body holds.
func TestFoldNested(t *testing.T) {
	const outer, inner = 64, 300
	want := make([]int, 0, outer*inner)
	for i := range outer * inner {
		want = append(want, i)
	}
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			var got []int
			runAt(t, pl, func() {
				got = forkjoin.Fold(0, outer, 1,
					func() []int { return nil },
					func(acc []int, l, h int) []int {
						for i := l; i < h; i++ {
							part := forkjoin.Fold(i*inner, (i+1)*inner, 7,
								func() []int { return nil },
								func(acc []int, l, h int) []int {
									chunk := make([]int, h-l)
									forkjoin.For(l, h, 3, func(cl, ch int) {
										for j := cl; j < ch; j++ {
											chunk[j-l] = j
										}
									})
									return append(acc, chunk...)
								},
								func(a, b []int) []int { return append(a, b...) })
							acc = append(acc, part...)
						}
						return acc
					},
					func(a, b []int) []int { return append(a, b...) })
			})
			assert.Equal(t, want, got)
		})
	}
}

// TestFoldRunsShareAccumulators pins the point of runs: on one worker the
// pieces are all one run, so init runs once and merge never.
func TestFoldRunsShareAccumulators(t *testing.T) {
	var inits, merges atomic.Int64
	var got []int
	runAt(t, places[1], func() {
		got = forkjoin.Fold(0, 1000, 10,
			func() []int { inits.Add(1); return nil },
			func(acc []int, l, h int) []int { return append(acc, l) },
			func(a, b []int) []int { merges.Add(1); return append(a, b...) })
	})
	assert.Equal(t, int64(1), inits.Load())
	assert.Zero(t, merges.Load())
	assert.True(t, slices.IsSorted(got))
	assert.Greater(t, len(got), 1, "split into pieces")
}

// TestFoldMemoryFollowsPieces checks that a Fold's bookkeeping grows with
// its pieces, not with the slots of its pool: a pool with guests and
// spares has hundreds of slots, and a request handler that folds a few
// pieces per call must not allocate for each of them.
func TestFoldMemoryFollowsPieces(t *testing.T) {
	p := newPool(t, 1, pool.WithGuests(64))
	require.Greater(t, p.MaxWorkers(), 64)
	fold := func() {
		forkjoin.Fold(0, 4<<10, 1<<10, func() int { return 0 },
			func(acc, lo, hi int) int { return acc + hi - lo },
			func(a, b int) int { return a + b })
	}
	var least uint64
	watchdog(t, func() { least = leastBytesPerCall(p, 1, 100, func() {}, fold) })
	assert.LessOrEqual(t, least, uint64(1024), "bytes per Fold of 4 pieces on a pool of %d slots", p.MaxWorkers())
}

// leastBytesPerCall returns the least, over 5 measurements of runs calls
// each on a worker of p after warm calls, of the bytes f allocates a call:
// the least, because the process's other allocations (a worker's records
// made at its first steals) fall in some measurements
// (TestAllocationsDoNotGrowWithForks), each call after before, less what
// the same measurement of before alone reads: the counts are the
// process's, and what its Ps allocate meanwhile (more of them at more Ps,
// and after a collection) is not f's.
func leastBytesPerCall(p *pool.Pool, warm, runs int, before, f func()) uint64 {
	ambient := leastBytesPerRun(p, 0, runs, before)
	if least := leastBytesPerRun(p, warm, runs, func() { before(); f() }); least > ambient {
		return least - ambient
	}
	return 0
}

// leastBytesPerRun is leastBytesPerCall without the subtraction.
func leastBytesPerRun(p *pool.Pool, warm, runs int, f func()) uint64 {
	least := uint64(math.MaxUint64)
	p.Run(func() {
		for range warm {
			f()
		}
		var before, after goruntime.MemStats
		for range 5 {
			goruntime.ReadMemStats(&before)
			for range runs {
				f()
			}
			goruntime.ReadMemStats(&after)
			least = min(least, (after.TotalAlloc-before.TotalAlloc)/uint64(runs))
		}
	})
	return least
}

// A Fold of a few pieces reuses the folder (runs, entries, method value)
// its worker kept from its last Fold of the type, and merges the runs in
// order without a Reduce: on a worker it costs one allocation, where it
// cost three with a folder per Fold (the folder and its method value) and
// five before that.
func TestFoldOfFewPiecesAllocatesLittle(t *testing.T) {
	p := newPool(t, 2)
	var allocs float64
	watchdog(t, func() {
		p.Run(func() {
			allocs = testing.AllocsPerRun(200, func() {
				forkjoin.Fold(0, 4<<10, 1<<10, func() int { return 0 },
					func(acc, lo, hi int) int { return acc + hi - lo },
					func(a, b int) int { return a + b })
			})
		})
	})
	assert.LessOrEqual(t, allocs, 1.0, "allocations per Fold of 4 pieces")
}

// A Fold of more pieces than the few a request has (16 on 2 workers)
// allocates next to nothing once its worker has folded before: the
// folder, its runs and entries wait for the worker's next Fold of the
// type (takeFolder), and a few runs merge in order rather than by a
// Reduce. Its bytes pace the collector in a server that folds per request
// (docs/performance/server.md). The bound sits above what this Fold makes
// with the race detector on and below what a folder per Fold made (the
// commit that set it, 5cd58d7, has the figures). The folder stays with the worker through
// collections too (after two, a sync.Pool has dropped what it held, and
// its first use on each P took a process-wide lock).
func TestFoldOfManyPiecesAllocatesLittle(t *testing.T) {
	const n, pieces = 1 << 14, 16
	p := newPool(t, 2)
	fold := func() {
		got := forkjoin.Fold(0, n, n/pieces,
			func() int { return 0 },
			func(acc, lo, hi int) int { return acc + hi - lo },
			func(a, b int) int { return a + b })
		if got != n {
			panic(fmt.Sprintf("Fold counted %d indexes, want %d", got, n))
		}
	}
	for _, tc := range []struct {
		name   string
		before func()
	}{
		{"back to back", func() {}},
		{"after two collections", func() { goruntime.GC(); goruntime.GC() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var least uint64
			watchdog(t, func() {
				least = leastBytesPerCall(p, 20, 50, tc.before, fold)
			})
			assert.LessOrEqual(t, least, uint64(256), "bytes a Fold of %d pieces allocates", pieces)
		})
	}
}

// A worker keeps its last Fold's folder for the next (takeFolder): Folds
// of other types and sizes, and one whose piece panicked, in a row all
// fold right, and the kept folder holds no accumulator once a
// Fold has returned (the collector frees them).
func TestFoldReusesItsFolderSafely(t *testing.T) {
	p := newPool(t, 2) // 16 pieces at most: the kept folder grows
	sum := func(n, pieces int) int {
		return forkjoin.Fold(0, n, n/pieces, func() int { return 0 },
			func(acc, lo, hi int) int { return acc + hi - lo },
			func(a, b int) int { return a + b })
	}
	concat := func(n, pieces int) string {
		return forkjoin.Fold(0, n, n/pieces, func() string { return "" },
			func(acc string, lo, hi int) string { return acc + strconv.Itoa(hi-lo) + "," },
			func(a, b string) string { return a + b })
	}
	watchdog(t, func() {
		p.Run(func() {
			for _, pieces := range []int{4, 16, 4, 2, 8} {
				assert.Equal(t, 64, sum(64, pieces), "sum of 64 in %d pieces", pieces)
				assert.Equal(t, strings.Repeat(strconv.Itoa(64/pieces)+",", pieces), concat(64, pieces), "%d pieces", pieces)
				pe := recoverValue(func() {
					forkjoin.Fold(0, 64, 64/pieces, func() int { return 0 },
						func(acc, lo, hi int) int {
							if lo == 0 {
								panic("first piece")
							}
							return acc
						},
						func(a, b int) int { return a + b })
				})
				assert.NotNil(t, pe, "the panic in a piece of %d", pieces)
			}
		})
		var accs []weak.Pointer[[64]byte]
		var accsMu sync.Mutex // init runs on both workers
		p.Run(func() {
			got := forkjoin.Fold(0, 64, 16, func() *[64]byte {
				acc := new([64]byte)
				accsMu.Lock()
				accs = append(accs, weak.Make(acc))
				accsMu.Unlock()
				return acc
			},
				func(acc *[64]byte, lo, hi int) *[64]byte { acc[0] += byte(hi - lo); return acc },
				func(a, b *[64]byte) *[64]byte { a[0] += b[0]; return a })
			assert.Equal(t, byte(64), got[0])
		})
		goruntime.GC()
		for i, acc := range accs {
			assert.Nil(t, acc.Value(), "accumulator %d outlived its Fold", i)
		}
	})
}
