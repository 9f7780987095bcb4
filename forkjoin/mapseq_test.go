package forkjoin_test

import (
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

func TestMapSeqMatchesSerial(t *testing.T) {
	n := 200_000
	if raceEnabled {
		n = 20_000
	}
	for _, pl := range places {
		for _, items := range []int{0, 1, 2, 3, 17, 1000, n} {
			t.Run(fmt.Sprintf("%s/%d items", pl.name, items), func(t *testing.T) {
				var pulled, exited, calls atomic.Int64
				var got []string
				runAt(t, pl, func() {
					for s := range forkjoin.MapSeq(countTo(items, &pulled, &exited), func(i int) string {
						calls.Add(1)
						return strconv.Itoa(i)
					}) {
						got = append(got, s)
					}
				})
				require.Len(t, got, items)
				for i, s := range got {
					require.Equal(t, strconv.Itoa(i), s, "item %d", i)
				}
				assert.Equal(t, int64(items), calls.Load(), "calls of f")
				assert.Equal(t, int64(1), exited.Load(), "seq ranged over once")
			})
		}
	}
}

// TestMapSeqRangesAgain: each range over the result ranges over seq anew.
func TestMapSeqRangesAgain(t *testing.T) {
	double := forkjoin.MapSeq(slices.Values([]int{1, 2, 3}), func(x int) int { return 2 * x })
	assert.Equal(t, []int{2, 4, 6}, slices.Collect(double))
	assert.Equal(t, []int{2, 4, 6}, slices.Collect(double))
}

func TestMapSeqRunsInParallel(t *testing.T) {
	var active, maxActive atomic.Int64
	runAt(t, place{"2 workers", 2}, func() {
		for range forkjoin.MapSeq(slices.Values(make([]int, 300)), func(int) int {
			raiseMax(&maxActive, active.Add(1))
			time.Sleep(time.Millisecond)
			active.Add(-1)
			return 0
		}) {
		}
	})
	assert.GreaterOrEqual(t, maxActive.Load(), int64(2), "most calls running at once")
}

// leakCheck runs body and checks that every goroutine it started has
// ended (pools' workers are started before).
func leakCheck(t *testing.T, body func()) {
	t.Helper()
	before := runtime.NumGoroutine()
	body()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left behind")
}

// TestMapSeqBreak breaks out of the consumer's loop early, from an endless
// seq: MapSeq must stop pulling, let seq return, and return only once no
// call of f is running, leaving no goroutine behind.
func TestMapSeqBreak(t *testing.T) {
	pool.Default() // its workers are not MapSeq's
	for _, pl := range places {
		for _, at := range []int{0, 1, 5000} {
			t.Run(fmt.Sprintf("%s/break at %d", pl.name, at), func(t *testing.T) {
				var pulled, exited, running atomic.Int64
				got := 0
				p := newPoolFor(t, pl)
				leakCheck(t, func() {
					runOn(t, p, func() {
						for y := range forkjoin.MapSeq(countTo(-1, &pulled, &exited), func(i int) int {
							running.Add(1)
							defer running.Add(-1)
							time.Sleep(time.Duration(i%3) * time.Microsecond)
							return i
						}) {
							if y != got {
								t.Errorf("got %d, want %d", y, got)
							}
							if got == at {
								break
							}
							got++
						}
						assert.Zero(t, running.Load(), "calls of f running after the loop")
						assert.Equal(t, int64(1), exited.Load(), "seq returned")
					})
				})
				assert.LessOrEqual(t, pulled.Load(), int64(at+1+forkjoin.MapSeqInFlightPerWorker*max(pl.workers, runtime.GOMAXPROCS(0))), "items pulled")
			})
		}
	}
}

// TestMapSeqBoundedMemory consumes an endless seq slowly: the items pulled
// and not yet consumed stay within the documented bound.
func TestMapSeqBoundedMemory(t *testing.T) {
	assert.Equal(t, 16384, forkjoin.MapSeqInFlightPerWorker, "the bound MapSeq's doc states")
	var pulled, exited atomic.Int64
	runAt(t, place{"2 workers", 2}, func() {
		bound := int64(2 * forkjoin.MapSeqInFlightPerWorker)
		consumed := int64(0)
		for range forkjoin.MapSeq(countTo(-1, &pulled, &exited), func(i int) int { return i }) {
			consumed++
			if d := pulled.Load() - consumed; d > bound {
				t.Errorf("%d items pulled and not consumed, bound %d", d, bound)
				break
			}
			if consumed == 100_000 {
				break
			}
		}
	})
	assert.Equal(t, int64(1), exited.Load())
}

// TestMapSeqPanics: a panic in f comes out of the consumer's loop as a
// *pool.PanicError once no call of f is running; a panic in the loop's
// body comes out as it is, also once no call is running.
func TestMapSeqPanics(t *testing.T) {
	for _, pl := range places {
		for _, where := range []string{"f", "loop"} {
			t.Run(pl.name+"/"+where, func(t *testing.T) {
				var pulled, exited, running atomic.Int64
				p := newPoolFor(t, pl)
				leakCheck(t, func() {
					runOn(t, p, func() {
						v := recoverValue(func() {
							for y := range forkjoin.MapSeq(countTo(-1, &pulled, &exited), func(i int) int {
								running.Add(1)
								defer running.Add(-1)
								if where == "f" && i == 3000 {
									panic(errBoom)
								}
								return i
							}) {
								if where == "loop" && y == 3000 {
									panic(errBoom)
								}
							}
						})
						assert.Zero(t, running.Load(), "calls of f running after the panic")
						assert.Equal(t, int64(1), exited.Load(), "seq returned")
						if where == "f" {
							pe, ok := v.(*pool.PanicError)
							if assert.True(t, ok, "panic value %T", v) {
								assert.ErrorIs(t, pe, errBoom)
							}
						} else {
							assert.Equal(t, errBoom, v)
						}
					})
				})
			})
		}
	}
}

// TestMapSeqNested maps inside f, and forks inside the inner f.
func TestMapSeqNested(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			var got [][]int
			runAt(t, pl, func() {
				got = slices.Collect(forkjoin.MapSeq(slices.Values(ints(50)), func(x int) []int {
					return slices.Collect(forkjoin.MapSeq(slices.Values(ints(x)), func(y int) int {
						a, b := forkjoin.Call(func(v int) int { return v * 2 }, y, 1)
						return a + b
					}))
				}))
			})
			require.Len(t, got, 50)
			for i, x := range ints(50) {
				var want []int
				for _, y := range ints(x) {
					want = append(want, 2*y+2)
				}
				assert.Equal(t, want, got[i], "item %d", i)
			}
		})
	}
}

func TestMapSeqNilArguments(t *testing.T) {
	assert.Equal(t, "forkjoin.MapSeq: nil function", recoverValue(func() { forkjoin.MapSeq(slices.Values([]int{1}), (func(int) int)(nil)) }))
	assert.Equal(t, "forkjoin.MapSeq: nil function", recoverValue(func() { forkjoin.MapSeq(nil, func(int) int { return 0 }) }))
}

// newPoolFor returns the pool of pl: a new one, or nil off-pool.
func newPoolFor(t *testing.T, pl place) *pool.Pool {
	if pl.workers == 0 {
		return nil
	}
	return newPool(t, pl.workers)
}

// runOn runs body under a watchdog, inside p.Run, or on the calling
// goroutine if p is nil.
func runOn(t *testing.T, p *pool.Pool, body func()) {
	t.Helper()
	watchdog(t, func() {
		if p == nil {
			body()
			return
		}
		p.Run(body)
	})
}

// A panic in the iterator comes out of MapSeq and ForSeq as a
// *pool.PanicError wherever they are called from, as a panic in f does:
// off the pool (where MapSeq pulls on the consumer's goroutine) as inside
// a pool's Run.
func TestAPanickingIteratorComesOutAsAPanicError(t *testing.T) {
	calls := []struct {
		name string
		run  func(seq iter.Seq[int])
	}{
		{"MapSeq", func(seq iter.Seq[int]) {
			for range forkjoin.MapSeq(seq, func(i int) int { return i }) {
			}
		}},
		{"ForSeq", func(seq iter.Seq[int]) { forkjoin.ForSeq(seq, func(int) {}) }},
	}
	for _, pl := range places {
		for _, call := range calls {
			for _, at := range []int{0, 1, 3000} {
				t.Run(fmt.Sprintf("%s/%s/at %d", pl.name, call.name, at), func(t *testing.T) {
					p := newPoolFor(t, pl)
					leakCheck(t, func() {
						runOn(t, p, func() {
							v := recoverValue(func() { call.run(panicsAt(at)) })
							pe, ok := v.(*pool.PanicError)
							if assert.True(t, ok, "panic value %T", v) {
								assert.ErrorIs(t, pe, errBoom)
								assert.Contains(t, string(pe.Stack), "panicsAt", "the stack is the iterator's")
							}
						})
					})
				})
			}
		}
	}
}

// panicsAt returns an iterator over 0, 1, ... that panics with errBoom
// instead of yielding n.
func panicsAt(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; ; i++ {
			if i == n {
				panic(errBoom)
			}
			if !yield(i) {
				return
			}
		}
	}
}
