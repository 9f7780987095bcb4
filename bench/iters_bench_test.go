package bench

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"iter"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

var iterN = flag.Int("itern", 10_000_000, "BenchmarkIters: number of xorshift64 items (the peers' ITER_N)")

// forSeqN is the length of BenchmarkIters' forseq sequence (at most -itern).
const forSeqN = 1_000_000

// iterCache keeps the last IterInput of BenchmarkIters, so that -count
// runs do not generate it again.
var iterCache []uint64

func iterItems(b *testing.B) []uint64 {
	n := *iterN
	if n < 1 || uint64(n) > 1<<32 {
		b.Fatalf("-itern=%d: want 1 <= n <= 1<<32", n)
	}
	if len(iterCache) != n {
		iterCache = nil // let the old input go first
		iterCache = IterInput(n)
	}
	return iterCache
}

// The serial loops of BenchmarkIters are functions of their own: the
// compiler keeps alive every variable assigned and every call's result in
// the body of a b.Loop loop (cmd/compile's bloop pass), which would slow
// an inner loop written there (its counter, IterKeep's result).

// iterCountSerial counts the items of a with IterKeep.
func iterCountSerial(a []uint64) int {
	c := 0
	for _, x := range a {
		if IterKeep(x) {
			c++
		}
	}
	return c
}

// iterPrefixSerial returns the prefix sums of a in a new slice.
func iterPrefixSerial(a []uint64) []uint64 {
	out := make([]uint64, len(a))
	var acc uint64
	for i, x := range a {
		acc += x
		out[i] = acc
	}
	return out
}

// The funcFloor loops: the serial loops above with the predicate called
// through a function value, as every Go function that takes one calls it
// (the call cannot be inlined: Go compiles a generic function once per
// shape, not per function argument). Their rows, serial-func, are the
// per-element floor of forkjoin's Find, Count and Filter, next to the
// hand-written loop's, where the compiler inlines the predicate.

//go:noinline
func countFunc(a []uint64, pred func(uint64) bool) int {
	c := 0
	for _, x := range a {
		if pred(x) {
			c++
		}
	}
	return c
}

//go:noinline
func indexFunc(a []uint64, pred func(uint64) bool) int {
	for i, x := range a {
		if pred(x) {
			return i
		}
	}
	return -1
}

//go:noinline
func filterFunc(a []uint64, keep func(uint64) bool) []uint64 {
	out := make([]uint64, 0, len(a))
	for _, x := range a {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// forSeqSerial calls f on every item of seq, in order.
func forSeqSerial(seq iter.Seq[uint64], f func(uint64)) {
	for x := range seq {
		f(x)
	}
}

// BenchmarkIters times spindle's forkjoin algorithms against the serial
// code they replace on the peers' iterator input, -itern xorshift64 items
// (10,000,000 by default, like the peers' ITER_N): one family per
// algorithm, named algo=NAME, whose x-serial is relative to that
// algorithm's serial baseline. The serial baseline runs with GOMAXPROCS 1
// (as the peers' go-serial), spindle on a pool of K workers with
// GOMAXPROCS K.
//
//   - filter: IterFilterSerial (append loop) / IterFilter (forkjoin.Filter)
//     (filter, find-first, find-early and count also have a serial-func
//     row: the serial loop calling the predicate through a function
//     value, see countFunc)
//   - find-first: slices.Index / forkjoin.Find of the item at n/10*9
//   - find-early: the same, of the item at index 10
//   - count: a loop / forkjoin.Count of IterKeep
//   - map-sum: IterMapSumSerial / IterMapSum
//   - min: slices.MinFunc / forkjoin.MinFunc with cmp.Compare
//   - scan: a prefix-sum loop into a new slice / forkjoin.Scan with +
//   - sort-stable: slices.SortStableFunc / forkjoin.SortStableFunc of
//     IterPairs, refilled from the input (untimed) before every iteration
//   - forseq: a range loop over slices.Values / forkjoin.ForSeq of the
//     first 1,000,000 items, f = IterMix and a rare atomic add
//
// The input is generated once; every result is checked against the
// serial one, and a wrong result fails the benchmark.
//
//	go test -run '^$' -bench Iters -benchtime 5x ./bench -itern=1000000
func BenchmarkIters(b *testing.B) {
	a := iterItems(b)
	n := len(a)

	// family runs one algorithm: serial at GOMAXPROCS 1, then spindle's
	// on pools of benchWorkers. Each body is a whole benchmark loop.
	// The spindle body runs inside Pool.Run, on a worker, where it must
	// not call b.Fatal: the bodies return the check's error instead.
	// extra is an optional second serial row: the serial loop calling
	// the predicate through a function value (funcFloor).
	family := func(algo, serialName string, serial func(b *testing.B) error, spindleName string, spindle func(b *testing.B) error, extra ...func(b *testing.B) error) {
		b.Run("algo="+algo, func(b *testing.B) {
			fam := newFamily(b)
			fam.serial(serialName, func(b *testing.B) {
				var err error
				withProcs(1, func() { err = serial(b) })
				if err != nil {
					b.Fatal(err)
				}
			})
			for _, e := range extra {
				fam.run("serial-func", 1, func(b *testing.B) {
					var err error
					withProcs(1, func() { err = e(b) })
					if err != nil {
						b.Fatal(err)
					}
				})
			}
			for _, w := range benchWorkers {
				fam.run(spindleName, w, func(b *testing.B) {
					var err error
					withProcs(w, func() {
						onPool(b, w, func(p *pool.Pool) {
							p.Run(func() { err = spindle(b) })
						})
					})
					if err != nil {
						b.Fatal(err)
					}
				})
			}
		})
	}

	// filter
	{
		want := IterFilterSerial(a)
		check := func(got []uint64) error {
			if !slices.Equal(got, want) {
				return fmt.Errorf("filter kept %d items, want %d (or other items)", len(got), len(want))
			}
			return nil
		}
		family("filter",
			"serial", func(b *testing.B) error {
				var out []uint64
				for b.Loop() {
					out = IterFilterSerial(a)
				}
				return check(out)
			},
			"forkjoin.Filter", func(b *testing.B) error {
				var out []uint64
				for b.Loop() {
					out = IterFilter(a)
				}
				return check(out)
			},
			func(b *testing.B) error {
				var out []uint64
				for b.Loop() {
					out = filterFunc(a, IterKeep)
				}
				return check(out)
			})
	}

	// find-first and find-early
	for _, f := range []struct {
		algo string
		at   int
	}{{"find-first", n / 10 * 9}, {"find-early", min(10, n-1)}} {
		t := a[f.at]
		check := func(got int) error {
			if got != f.at {
				return fmt.Errorf("%s found the item at %d at %d", f.algo, f.at, got)
			}
			return nil
		}
		family(f.algo,
			"slices.Index", func(b *testing.B) error {
				var at int
				for b.Loop() {
					at = IterFindFirstSerial(a, t)
				}
				return check(at)
			},
			"forkjoin.Find", func(b *testing.B) error {
				var at int
				for b.Loop() {
					at = IterFindFirst(a, t)
				}
				return check(at)
			},
			func(b *testing.B) error {
				var at int
				for b.Loop() {
					at = indexFunc(a, func(x uint64) bool { return x == t })
				}
				return check(at)
			})
	}

	// count
	{
		want := iterCountSerial(a)
		check := func(got int) error {
			if got != want {
				return fmt.Errorf("count = %d, want %d", got, want)
			}
			return nil
		}
		family("count",
			"serial", func(b *testing.B) error {
				var c int
				for b.Loop() {
					c = iterCountSerial(a)
				}
				return check(c)
			},
			"forkjoin.Count", func(b *testing.B) error {
				var c int
				for b.Loop() {
					c = forkjoin.Count(a, IterKeep)
				}
				return check(c)
			},
			func(b *testing.B) error {
				var c int
				for b.Loop() {
					c = countFunc(a, IterKeep)
				}
				return check(c)
			})
	}

	// map-sum
	{
		want := IterMapSumSerial(a)
		check := func(got uint64) error {
			if got != want {
				return fmt.Errorf("map-sum = %d, want %d", got, want)
			}
			return nil
		}
		family("map-sum",
			"serial", func(b *testing.B) error {
				var s uint64
				for b.Loop() {
					s = IterMapSumSerial(a)
				}
				return check(s)
			},
			"forkjoin.For", func(b *testing.B) error {
				var s uint64
				for b.Loop() {
					s = IterMapSum(a)
				}
				return check(s)
			})
	}

	// min
	{
		compare := cmp.Compare[uint64]
		want := slices.Min(a)
		check := func(got uint64) error {
			if got != want {
				return fmt.Errorf("min = %d, want %d", got, want)
			}
			return nil
		}
		family("min",
			"slices.MinFunc", func(b *testing.B) error {
				var m uint64
				for b.Loop() {
					m = slices.MinFunc(a, compare)
				}
				return check(m)
			},
			"forkjoin.MinFunc", func(b *testing.B) error {
				var m uint64
				for b.Loop() {
					m = forkjoin.MinFunc(a, compare)
				}
				return check(m)
			})
	}

	// scan
	{
		want := iterPrefixSerial(a)
		check := func(got []uint64) error {
			if !slices.Equal(got, want) {
				return errors.New("scan: prefix sums differ from the serial loop's")
			}
			return nil
		}
		add := func(x, y uint64) uint64 { return x + y }
		family("scan",
			"serial", func(b *testing.B) error {
				var out []uint64
				for b.Loop() {
					out = iterPrefixSerial(a)
				}
				return check(out)
			},
			"forkjoin.Scan", func(b *testing.B) error {
				var out []uint64
				for b.Loop() {
					out = forkjoin.Scan(a, add)
				}
				return check(out)
			})
	}

	// sort-stable
	{
		base := IterPairs(a)
		p := make([]IterPair, n)
		loop := func(b *testing.B, sort func([]IterPair)) error {
			for b.Loop() {
				b.StopTimer()
				copy(p, base)
				b.StartTimer()
				sort(p)
			}
			if !IterSortedFrom(base, p) {
				return errors.New("sort-stable: the pairs are not the stable sort of the input")
			}
			return nil
		}
		family("sort-stable",
			"slices.SortStableFunc", func(b *testing.B) error { return loop(b, IterSortStableSerial) },
			"forkjoin.SortStableFunc", func(b *testing.B) error { return loop(b, IterSortStable) })
	}

	// forseq
	{
		s := a[:min(n, forSeqN)]
		var hits atomic.Int64
		f := func(x uint64) {
			if IterMix(x)%64 == 0 {
				hits.Add(1)
			}
		}
		want := int64(0)
		for _, x := range s {
			if IterMix(x)%64 == 0 {
				want++
			}
		}
		check := func(runs int) error {
			if got := hits.Load(); got != want*int64(runs) {
				return fmt.Errorf("forseq: f counted %d hits in %d runs, want %d per run", got, runs, want)
			}
			return nil
		}
		family("forseq",
			"serial", func(b *testing.B) error {
				hits.Store(0)
				runs := 0
				for b.Loop() {
					forSeqSerial(slices.Values(s), f)
					runs++
				}
				return check(runs)
			},
			"forkjoin.ForSeq", func(b *testing.B) error {
				hits.Store(0)
				runs := 0
				for b.Loop() {
					forkjoin.ForSeq(slices.Values(s), f)
					runs++
				}
				return check(runs)
			})
	}
}
