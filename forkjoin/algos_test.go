package forkjoin_test

import (
	"cmp"
	"fmt"
	"iter"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// algoLengths are the input sizes of the algorithm tests: empty, tiny, odd,
// and large enough to be split on every place. Under the race detector,
// which makes them slow, the large ones shrink (still split in 16 pieces
// on two workers).
func algoLengths() []int {
	if raceEnabled {
		return []int{0, 1, 2, 3, 7, 17, 1000, 20_011}
	}
	return []int{0, 1, 2, 3, 7, 17, 1000, 100_003, 1_000_003}
}

// predCase is a predicate over the elements of in (ints(n)), chosen to
// match nothing, everything, or elements at particular places.
type predCase struct {
	name  string
	build func(in []int) func(int) bool
}

// valueAt returns the value at in[i], or -1 (never an element) if in is
// empty.
func valueAt(in []int, i int) int {
	if len(in) == 0 {
		return -1
	}
	return in[i]
}

var predCases = []predCase{
	{"none", func([]int) func(int) bool { return func(int) bool { return false } }},
	{"all", func([]int) func(int) bool { return func(int) bool { return true } }},
	{"first", func(in []int) func(int) bool {
		v := valueAt(in, 0)
		return func(x int) bool { return x == v }
	}},
	{"last", func(in []int) func(int) bool {
		v := valueAt(in, len(in)-1)
		return func(x int) bool { return x == v }
	}},
	{"middle", func(in []int) func(int) bool {
		v := valueAt(in, len(in)/2)
		return func(x int) bool { return x == v }
	}},
	{"every 7th value", func([]int) func(int) bool { return func(x int) bool { return x%7 == 3 } }},
	{"upper half of values", func(in []int) func(int) bool {
		n := len(in)
		return func(x int) bool { return x >= n/2 }
	}},
}

func countSerial(in []int, pred func(int) bool) int {
	c := 0
	for _, x := range in {
		if pred(x) {
			c++
		}
	}
	return c
}

func TestFindAnyAllCountMatchSerial(t *testing.T) {
	for _, pl := range places {
		for _, n := range algoLengths() {
			in := ints(n)
			for _, pc := range predCases {
				t.Run(fmt.Sprintf("%s/len %d/%s", pl.name, n, pc.name), func(t *testing.T) {
					pred := pc.build(in)
					not := func(x int) bool { return !pred(x) }
					wantIdx := slices.IndexFunc(in, pred)
					wantAny := wantIdx >= 0
					wantAll := !slices.ContainsFunc(in, not)
					wantCount := countSerial(in, pred)

					var gotIdx, gotCount int
					var gotOK, gotAny, gotAll bool
					runAt(t, pl, func() {
						gotIdx, gotOK = forkjoin.Find(in, pred)
						gotAny = forkjoin.Any(in, pred)
						gotAll = forkjoin.All(in, pred)
						gotCount = forkjoin.Count(in, pred)
					})
					assert.Equal(t, wantIdx, gotIdx, "Find index")
					assert.Equal(t, wantAny, gotOK, "Find ok")
					assert.Equal(t, wantAny, gotAny, "Any")
					assert.Equal(t, wantAll, gotAll, "All")
					assert.Equal(t, wantCount, gotCount, "Count")
				})
			}
		}
	}
}

func TestFindAnyAllCountEmpty(t *testing.T) {
	called := func(int) bool { t.Error("predicate called on an empty slice"); return true }
	for _, in := range [][]int{nil, {}} {
		i, ok := forkjoin.Find(in, called)
		assert.Equal(t, -1, i)
		assert.False(t, ok)
		assert.False(t, forkjoin.Any(in, called), "Any of empty")
		assert.True(t, forkjoin.All(in, called), "All of empty")
		assert.Zero(t, forkjoin.Count(in, called))
	}
}

// TestFindLowestIndex puts matches in every part of the input, so that on
// two workers a part above the first match may well find its own match
// first: the result must still be the lowest index.
func TestFindLowestIndex(t *testing.T) {
	n := 200_000
	if raceEnabled {
		n = 50_000
	}
	for _, pl := range places {
		for _, first := range []int{0, 1, n / 3, n/2 + 1, n - 2, n - 1} {
			t.Run(fmt.Sprintf("%s/first %d", pl.name, first), func(t *testing.T) {
				in := make([]bool, n)
				for i := first; i < n; i += 97 {
					in[i] = true
				}
				in[n-1] = true
				var got int
				var ok bool
				runAt(t, pl, func() {
					got, ok = forkjoin.Find(in, func(b bool) bool { return b })
				})
				assert.True(t, ok)
				assert.Equal(t, first, got)
			})
		}
	}
}

// TestShortCircuit finds a match at index 10 of 10,000,000 elements on one
// worker: Find, Any and All must stop after evaluating a small part of the
// input, not scan it to the end.
func TestShortCircuit(t *testing.T) {
	const n, at = 10_000_000, 10
	in := make([]int32, n) // zeros: nothing to initialise
	in[at] = 1
	for _, tc := range []struct {
		name string
		run  func(pred func(int32) bool)
	}{
		{"Find", func(pred func(int32) bool) {
			i, ok := forkjoin.Find(in, pred)
			assert.True(t, ok)
			assert.Equal(t, at, i)
		}},
		{"Any", func(pred func(int32) bool) {
			assert.True(t, forkjoin.Any(in, pred))
		}},
		{"All", func(pred func(int32) bool) {
			assert.False(t, forkjoin.All(in, func(x int32) bool { return !pred(x) }))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			pred := func(x int32) bool { calls.Add(1); return x == 1 }
			runAt(t, place{"1 worker", 1}, func() { tc.run(pred) })
			assert.Less(t, calls.Load(), int64(n/100), "predicate calls")
			assert.GreaterOrEqual(t, calls.Load(), int64(at+1), "predicate calls")
		})
	}
}

// TestShortCircuitTwoWorkers is the loose form of TestShortCircuit on two
// workers: the match is found almost at once, so at most a few of the
// pieces already started when it was can be scanned to their end.
func TestShortCircuitTwoWorkers(t *testing.T) {
	const n, at = 10_000_000, 10
	in := make([]int32, n)
	in[at] = 1
	var calls atomic.Int64
	pred := func(x int32) bool { calls.Add(1); return x == 1 }
	var i int
	var ok, anyOK bool
	runAt(t, place{"2 workers", 2}, func() {
		i, ok = forkjoin.Find(in, pred)
		anyOK = forkjoin.Any(in, pred)
	})
	assert.True(t, ok)
	assert.Equal(t, at, i)
	assert.True(t, anyOK)
	assert.Less(t, calls.Load(), int64(n/2), "predicate calls of Find and Any together")
}

func filterSerial(in []int, keep func(int) bool) []int {
	var out []int
	for _, x := range in {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func TestFilterMatchesSerial(t *testing.T) {
	for _, pl := range places {
		for _, n := range algoLengths() {
			in := ints(n)
			orig := slices.Clone(in)
			for _, pc := range predCases {
				t.Run(fmt.Sprintf("%s/len %d/%s", pl.name, n, pc.name), func(t *testing.T) {
					keep := pc.build(in)
					want := filterSerial(in, keep)
					var got []int
					runAt(t, pl, func() { got = forkjoin.Filter(in, keep) })
					require.Len(t, got, len(want))
					if len(want) > 0 {
						require.Equal(t, want, got)
						// A new slice: writing to it leaves the input alone.
						got[0] = -1
					}
					require.Equal(t, orig, in, "input modified")
				})
			}
		}
	}
}

// TestFilterCallsKeepOncePerElement: keep sees every element exactly
// once (as documented), even though Filter makes two passes.
func TestFilterCallsKeepOncePerElement(t *testing.T) {
	n := 100_003
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			in := make([]int, n)
			for i := range in {
				in[i] = i
			}
			calls := make([]atomic.Int32, n)
			var got []int
			runAt(t, pl, func() {
				got = forkjoin.Filter(in, func(x int) bool { calls[x].Add(1); return x%3 != 0 })
			})
			assert.Len(t, got, n-(n+2)/3)
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Fatalf("keep called %d times on element %d", c, i)
				}
			}
		})
	}
}

func TestFilterEmpty(t *testing.T) {
	keep := func(int) bool { t.Error("keep called on an empty slice"); return true }
	assert.Len(t, forkjoin.Filter(nil, keep), 0)
	assert.Len(t, forkjoin.Filter([]int{}, keep), 0)
}

// tagged is an element compared on key only; idx tells equal keys apart, so
// a comparison of results shows which of the equal elements was returned
// (MinFunc, MaxFunc) or where it went (SortStableFunc).
type tagged struct{ key, idx int }

func byTagKey(a, b tagged) int { return cmp.Compare(a.key, b.key) }

// taggedInput returns n elements with keys drawn from [0, keys) (many
// ties when keys is small), in a pattern: "random", "ascending",
// "descending" or "equal".
func taggedInput(pattern string, n, keys int, seed uint64) []tagged {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	s := make([]tagged, n)
	for i := range s {
		var k int
		switch pattern {
		case "random":
			k = r.IntN(keys)
		case "ascending":
			k = i * keys / max(n, 1)
		case "descending":
			k = (n - 1 - i) * keys / max(n, 1)
		case "equal":
			k = 7
		default:
			panic(pattern)
		}
		s[i] = tagged{k, i}
	}
	return s
}

func TestMinMaxFuncMatchSlices(t *testing.T) {
	patterns := []string{"random", "ascending", "descending", "equal"}
	for _, pl := range places {
		for _, n := range algoLengths() {
			if n == 0 {
				continue
			}
			for _, pat := range patterns {
				for _, keys := range []int{3, 1000} {
					t.Run(fmt.Sprintf("%s/len %d/%s/%d keys", pl.name, n, pat, keys), func(t *testing.T) {
						in := taggedInput(pat, n, keys, uint64(n))
						orig := slices.Clone(in)
						var gotMin, gotMax tagged
						runAt(t, pl, func() {
							gotMin = forkjoin.MinFunc(in, byTagKey)
							gotMax = forkjoin.MaxFunc(in, byTagKey)
						})
						assert.Equal(t, slices.MinFunc(in, byTagKey), gotMin, "MinFunc")
						assert.Equal(t, slices.MaxFunc(in, byTagKey), gotMax, "MaxFunc")
						assert.Equal(t, orig, in, "input modified")
					})
				}
			}
		}
	}
}

// TestMinMaxFuncTiesAcrossPieces puts the extreme key at several places far
// apart, so that different pieces each find one: the first must win.
func TestMinMaxFuncTiesAcrossPieces(t *testing.T) {
	n := 300_000
	if raceEnabled {
		n = 60_000
	}
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			in := make([]tagged, n)
			for i := range in {
				in[i] = tagged{500, i}
			}
			minAt := []int{n - 1, n / 2, n/3 + 1, n / 5}
			maxAt := []int{n - 2, n/2 + 1, n / 6, n/4 + 3}
			for _, i := range minAt {
				in[i].key = -1 // the minimum, four times
			}
			for _, i := range maxAt {
				in[i].key = 1000 // the maximum, four times
			}
			var gotMin, gotMax tagged
			runAt(t, pl, func() {
				gotMin = forkjoin.MinFunc(in, byTagKey)
				gotMax = forkjoin.MaxFunc(in, byTagKey)
			})
			assert.Equal(t, tagged{-1, n / 5}, gotMin)
			assert.Equal(t, tagged{1000, n / 6}, gotMax)
		})
	}
}

func TestMinMaxFuncEmptyPanics(t *testing.T) {
	assert.Panics(t, func() { forkjoin.MinFunc([]tagged{}, byTagKey) })
	assert.Panics(t, func() { forkjoin.MinFunc([]tagged(nil), byTagKey) })
	assert.Panics(t, func() { forkjoin.MaxFunc([]tagged{}, byTagKey) })
	assert.Panics(t, func() { forkjoin.MaxFunc([]tagged(nil), byTagKey) })
}

func TestMinMaxFuncSingleElement(t *testing.T) {
	cmpCalled := func(a, b int) int { t.Error("cmp called on a single element"); return 0 }
	assert.Equal(t, 42, forkjoin.MinFunc([]int{42}, cmpCalled))
	assert.Equal(t, 42, forkjoin.MaxFunc([]int{42}, cmpCalled))
}

func TestSortStableFuncMatchesSlices(t *testing.T) {
	// Besides the sizes of the brief, some just past where a sort may
	// stop being serial or start forking.
	sizes := []int{0, 1, 2, 3, 17, 1000, 1025, 8193, 20_000, 100_003}
	if !raceEnabled {
		sizes = append(sizes, 1_000_000)
	}
	for _, pl := range places {
		for _, n := range sizes {
			t.Run(fmt.Sprintf("%s/len %d", pl.name, n), func(t *testing.T) {
				// Random pairs with key x%1000: about n/1000 elements per
				// key, whose order (idx) a stable sort keeps.
				r := rand.New(rand.NewPCG(uint64(n), 1))
				in := make([]tagged, n)
				for i := range in {
					in[i] = tagged{int(r.Uint32()) % 1000, i}
				}
				want := slices.Clone(in)
				slices.SortStableFunc(want, byTagKey)
				runAt(t, pl, func() { forkjoin.SortStableFunc(in, byTagKey) })
				require.Equal(t, want, in)
			})
		}
	}
}

func TestSortStableFuncPatterns(t *testing.T) {
	n := 200_000
	if raceEnabled {
		n = 10_000
	}
	desc := func(a, b tagged) int { return cmp.Compare(b.key, a.key) }
	for _, pl := range places {
		for _, pat := range []string{"random", "ascending", "descending", "equal"} {
			for _, keys := range []int{2, 50, n} {
				t.Run(fmt.Sprintf("%s/%s/%d keys", pl.name, pat, keys), func(t *testing.T) {
					for _, c := range []struct {
						name string
						cmp  func(a, b tagged) int
					}{{"ascending", byTagKey}, {"descending", desc}} {
						in := taggedInput(pat, n, keys, uint64(keys))
						want := slices.Clone(in)
						slices.SortStableFunc(want, c.cmp)
						runAt(t, pl, func() { forkjoin.SortStableFunc(in, c.cmp) })
						require.Equal(t, want, in, "order %s", c.name)
					}
				})
			}
		}
	}
}

// TestSortStableFuncPanicKeepsElements: after a panic in cmp, s holds a
// permutation of its elements (as SortStableFunc documents), not a
// half-merged mix with elements lost. The panic comes at the first
// comparison (in the first leaf), or later, in the merges.
func TestSortStableFuncPanicKeepsElements(t *testing.T) {
	sizes := []int{1000, 1025, 20_000, 100_003}
	if raceEnabled {
		sizes = sizes[:3]
	}
	for _, pl := range places {
		for _, n := range sizes {
			for _, at := range []int64{1, int64(n), 3 * int64(n)} {
				t.Run(fmt.Sprintf("%s/len %d/panic at compare %d", pl.name, n, at), func(t *testing.T) {
					in := taggedInput("random", n, 100, 5)
					var calls atomic.Int64
					var pe error
					runAt(t, pl, func() {
						pe = catchPanicError(t, func() {
							forkjoin.SortStableFunc(in, func(a, b tagged) int {
								if calls.Add(1) == at {
									panic(errBoom)
								}
								return byTagKey(a, b)
							})
						})
					})
					assert.ErrorIs(t, pe, errBoom)
					seen := make([]bool, n)
					missing := n
					for _, x := range in {
						if !seen[x.idx] {
							seen[x.idx] = true
							missing--
						}
					}
					assert.Zero(t, missing, "elements lost after the panic")
				})
			}
		}
	}
}

// SortStableFunc takes any slice type whose elements cmp compares.
type taggedSlice []tagged

func TestSortStableFuncNamedSliceType(t *testing.T) {
	in := taggedSlice(taggedInput("random", 5000, 10, 3))
	want := slices.Clone(in)
	slices.SortStableFunc(want, byTagKey)
	forkjoin.SortStableFunc(in, byTagKey)
	assert.Equal(t, want, in)
	assert.Equal(t, slices.MinFunc(in, byTagKey), forkjoin.MinFunc(in, byTagKey))
	assert.Equal(t, slices.MaxFunc(in, byTagKey), forkjoin.MaxFunc(in, byTagKey))
}

// mat64 is a 2x2 matrix over the integers modulo 2^64: a ring, so its
// product is associative, and not commutative.
type mat64 [4]uint64

func mul64(a, b mat64) mat64 {
	return mat64{
		a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3],
		a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3],
	}
}

// affine is x -> a*x + b modulo 2^64. then(f, g) is f followed by g:
// associative, not commutative.
type affine struct{ a, b uint64 }

func then(f, g affine) affine { return affine{g.a * f.a, g.a*f.b + g.b} }

// scanSerial is the inclusive prefix of in under op, left to right.
func scanSerial[T any](in []T, op func(a, b T) T) []T {
	out := make([]T, len(in))
	for i, x := range in {
		if i == 0 {
			out[i] = x
		} else {
			out[i] = op(out[i-1], x)
		}
	}
	return out
}

func TestScanMatchesSerial(t *testing.T) {
	plus := func(a, b int) int { return a + b }
	concat := func(a, b string) string { return a + b }
	for _, pl := range places {
		for _, n := range algoLengths() {
			t.Run(fmt.Sprintf("%s/len %d", pl.name, n), func(t *testing.T) {
				in := ints(n)
				mats := make([]mat64, n)
				fns := make([]affine, n)
				for i, x := range in {
					mats[i] = mat64{uint64(x)*0x9e3779b97f4a7c15 + 1, 1, 1, 0}
					fns[i] = affine{uint64(x)*2 + 3, uint64(i) ^ 0xdeadbeef}
				}
				small := n <= 3000 // prefixes of a concatenation are quadratic in total
				var strs []string
				if small {
					strs = make([]string, n)
					for i, x := range in {
						strs[i] = string(rune('a' + x%26))
					}
				}
				inOrig, matsOrig, fnsOrig := slices.Clone(in), slices.Clone(mats), slices.Clone(fns)

				var gotSum []int
				var gotMat []mat64
				var gotFn []affine
				var gotStr []string
				runAt(t, pl, func() {
					gotSum = forkjoin.Scan(in, plus)
					gotMat = forkjoin.Scan(mats, mul64)
					gotFn = forkjoin.Scan(fns, then)
					if small {
						gotStr = forkjoin.Scan(strs, concat)
					}
				})
				require.Len(t, gotSum, n)
				require.Len(t, gotMat, n)
				require.Len(t, gotFn, n)
				if n > 0 {
					assert.Equal(t, scanSerial(in, plus), gotSum, "sum")
					assert.Equal(t, scanSerial(mats, mul64), gotMat, "matrix product")
					assert.Equal(t, scanSerial(fns, then), gotFn, "affine composition")
				}
				if small {
					require.Len(t, gotStr, n)
					if n > 0 {
						assert.Equal(t, scanSerial(strs, concat), gotStr, "concatenation")
					}
				}
				assert.Equal(t, inOrig, in, "input modified")
				assert.Equal(t, matsOrig, mats, "input modified")
				assert.Equal(t, fnsOrig, fns, "input modified")
			})
		}
	}
}

func TestScanConcatenationShowsOrder(t *testing.T) {
	in := strings.Split("the quick brown fox jumps over the lazy dog", " ")
	got := forkjoin.Scan(in, func(a, b string) string { return a + "|" + b })
	require.Len(t, got, len(in))
	for i := range in {
		assert.Equal(t, strings.Join(in[:i+1], "|"), got[i], "index %d", i)
	}
}

func TestScanEmpty(t *testing.T) {
	op := func(a, b int) int { t.Error("op called on an empty slice"); return a + b }
	assert.Len(t, forkjoin.Scan(nil, op), 0)
	assert.Len(t, forkjoin.Scan([]int{}, op), 0)
	// One element: its own prefix, without calling op.
	assert.Equal(t, []int{5}, forkjoin.Scan([]int{5}, op))
}

// panicTarget is the element at which the panic tests' functions panic.
const panicTarget = -7

// panicInput returns ints(n) with one element set to panicTarget, which
// the functions of the panic tests panic on.
func panicInput(n int) []int {
	in := ints(n)
	in[n/2] = panicTarget
	return in
}

func TestAlgorithmPanics(t *testing.T) {
	pred := func(x int) bool {
		if x == panicTarget {
			panic(errBoom)
		}
		return false
	}
	cmpInts := func(a, b int) int {
		if a == panicTarget || b == panicTarget {
			panic(errBoom)
		}
		return cmp.Compare(a, b)
	}
	plus := func(a, b int) int {
		// The target meets op as one operand or the other, depending on
		// how the scan splits the input.
		if a == panicTarget || b == panicTarget {
			panic(errBoom)
		}
		return a + b
	}
	calls := []struct {
		name string
		min  int // smallest input on which the function is called
		call func(in []int)
	}{
		{"Find", 1, func(in []int) { forkjoin.Find(in, pred) }},
		{"Any", 1, func(in []int) { forkjoin.Any(in, pred) }},
		{"All", 1, func(in []int) { forkjoin.All(in, func(x int) bool { return !pred(x) }) }},
		{"Count", 1, func(in []int) { forkjoin.Count(in, pred) }},
		{"Filter", 1, func(in []int) { forkjoin.Filter(in, pred) }},
		{"MinFunc", 2, func(in []int) { forkjoin.MinFunc(in, cmpInts) }},
		{"MaxFunc", 2, func(in []int) { forkjoin.MaxFunc(in, cmpInts) }},
		{"SortStableFunc", 2, func(in []int) { forkjoin.SortStableFunc(in, cmpInts) }},
		{"Scan", 2, func(in []int) { forkjoin.Scan(in, plus) }},
	}
	sizes := []int{1, 2, 1000, 100_003}
	for _, c := range calls {
		for _, pl := range places {
			for _, n := range sizes {
				if n < c.min {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/len %d", c.name, pl.name, n), func(t *testing.T) {
					in := panicInput(n)
					var pe error
					runAt(t, pl, func() {
						pe = catchPanicError(t, func() { c.call(in) })
					})
					assert.ErrorIs(t, pe, errBoom)
				})
			}
		}
	}
}

func TestAlgorithmNilFunctionsPanic(t *testing.T) {
	big := make([]int, 100_000)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Find", func() { forkjoin.Find([]int{1}, nil) }},
		{"Find empty", func() { forkjoin.Find[int](nil, nil) }},
		{"Find large", func() { forkjoin.Find(big, nil) }},
		{"Any", func() { forkjoin.Any([]int{1}, nil) }},
		{"Any empty", func() { forkjoin.Any[int](nil, nil) }},
		{"All", func() { forkjoin.All([]int{1}, nil) }},
		{"All empty", func() { forkjoin.All[int](nil, nil) }},
		{"Count", func() { forkjoin.Count([]int{1}, nil) }},
		{"Count empty", func() { forkjoin.Count[int](nil, nil) }},
		{"Filter", func() { forkjoin.Filter([]int{1}, nil) }},
		{"Filter empty", func() { forkjoin.Filter[int](nil, nil) }},
		{"Filter large", func() { forkjoin.Filter(big, nil) }},
		{"MinFunc", func() { forkjoin.MinFunc([]int{1, 2}, nil) }},
		{"MinFunc single", func() { forkjoin.MinFunc([]int{1}, nil) }},
		{"MaxFunc", func() { forkjoin.MaxFunc([]int{1, 2}, nil) }},
		{"MaxFunc single", func() { forkjoin.MaxFunc([]int{1}, nil) }},
		{"SortStableFunc", func() { forkjoin.SortStableFunc([]int{2, 1}, nil) }},
		{"SortStableFunc empty", func() { forkjoin.SortStableFunc[[]int](nil, nil) }},
		{"SortStableFunc large", func() { forkjoin.SortStableFunc(big, nil) }},
		{"Scan", func() { forkjoin.Scan([]int{1, 2}, nil) }},
		{"Scan empty", func() { forkjoin.Scan[int](nil, nil) }},
		{"Scan single", func() { forkjoin.Scan([]int{1}, nil) }},
		{"ForSeq", func() { forkjoin.ForSeq(slices.Values([]int{1}), nil) }},
		{"ForSeq empty", func() { forkjoin.ForSeq(slices.Values([]int(nil)), nil) }},
		{"ForSeq nil seq", func() { forkjoin.ForSeq(nil, func(int) {}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Panics(t, tc.f)
		})
	}
}

// countTo yields 0, 1, ..., n-1, or forever if n < 0, and records in
// exited that it has returned (normally or not).
func countTo(n int, pulled, exited *atomic.Int64) iter.Seq[int] {
	return func(yield func(int) bool) {
		defer exited.Add(1)
		for i := 0; n < 0 || i < n; i++ {
			pulled.Add(1)
			if !yield(i) {
				return
			}
		}
	}
}

func TestForSeqRunsEveryItemOnce(t *testing.T) {
	n := 100_000
	if raceEnabled {
		n = 20_000
	}
	for _, pl := range places {
		for _, items := range []int{1, 2, 3, 17, 1000, n} {
			t.Run(fmt.Sprintf("%s/%d items", pl.name, items), func(t *testing.T) {
				counts := make([]atomic.Int32, items)
				var started, finished, pulled, exited atomic.Int64
				runAt(t, pl, func() {
					forkjoin.ForSeq(countTo(items, &pulled, &exited), func(i int) {
						started.Add(1)
						counts[i].Add(1)
						if i%1000 == 0 {
							time.Sleep(100 * time.Microsecond) // a few slow calls
						}
						finished.Add(1)
					})
					// Every call has returned when ForSeq does.
					assert.Equal(t, int64(items), finished.Load(), "calls finished when ForSeq returned")
				})
				assert.Equal(t, int64(items), started.Load(), "calls")
				assert.Equal(t, int64(items), pulled.Load(), "items pulled")
				assert.Equal(t, int64(1), exited.Load(), "iterator returned")
				for i := range counts {
					if c := counts[i].Load(); c != 1 {
						t.Fatalf("item %d: f called %d times", i, c)
					}
				}
			})
		}
	}
}

func TestForSeqEmpty(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			var pulled, exited, calls atomic.Int64
			runAt(t, pl, func() {
				forkjoin.ForSeq(countTo(0, &pulled, &exited), func(int) { calls.Add(1) })
			})
			assert.Zero(t, calls.Load())
			assert.Equal(t, int64(1), exited.Load())
		})
	}
}

// TestForSeqRunsInParallel checks that calls overlap on two workers: every
// call sleeps, so a serial ForSeq would never have two running at once.
func TestForSeqRunsInParallel(t *testing.T) {
	var active, maxActive atomic.Int64
	runAt(t, place{"2 workers", 2}, func() {
		forkjoin.ForSeq(slices.Values(make([]int, 300)), func(int) {
			raiseMax(&maxActive, active.Add(1))
			time.Sleep(time.Millisecond)
			active.Add(-1)
		})
	})
	assert.GreaterOrEqual(t, maxActive.Load(), int64(2), "most calls running at once")
}

// TestForSeqPanicStopsPulling makes f panic at item 1000 of an endless
// iterator: ForSeq must stop pulling it, let the iterator return, and
// re-raise the panic.
func TestForSeqPanicStopsPulling(t *testing.T) {
	const at = 1000
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			var pulled, exited atomic.Int64
			var pe error
			runAt(t, pl, func() {
				pe = catchPanicError(t, func() {
					forkjoin.ForSeq(countTo(-1, &pulled, &exited), func(i int) {
						if i == at {
							panic(errBoom)
						}
					})
				})
			})
			assert.ErrorIs(t, pe, errBoom)
			assert.Greater(t, pulled.Load(), int64(at), "items pulled")
			assert.Equal(t, int64(1), exited.Load(), "iterator returned")
		})
	}
}

// An iterator that goes on calling yield after it returned false (a bug
// of the iterator's) gets false again and hands nothing more over. The
// panic comes from a batch that the other worker runs, so that the pulling
// task learns of it between items and returns false.
func TestForSeqPanicWithAnIteratorThatIgnoresFalse(t *testing.T) {
	testutil.NeedTwoPs(t) // with one P the puller never lets the other worker run
	const n = 1 << 20
	var calls, falses, afterFalse atomic.Int64
	var otherPanicked atomic.Bool
	stubborn := func(yield func(int) bool) {
		for i := range n {
			if i == 1<<14 {
				// Let the other worker take a queued batch (and
				// panic) before pulling on, however loaded the
				// machine: bounded, and sleeping between looks.
				for deadline := time.Now().Add(5 * time.Second); !otherPanicked.Load() && time.Now().Before(deadline); {
					time.Sleep(100 * time.Microsecond)
				}
			}
			if !yield(i) {
				falses.Add(1)
			} else if falses.Load() > 0 {
				afterFalse.Add(1)
			}
		}
	}
	var pe error
	runAt(t, place{"2 workers", 2}, func() {
		puller := pool.WorkerIndex()
		pe = catchPanicError(t, func() {
			forkjoin.ForSeq(stubborn, func(i int) {
				calls.Add(1)
				if pool.WorkerIndex() != puller {
					otherPanicked.Store(true)
					panic(errBoom)
				}
			})
		})
	})
	require.ErrorIs(t, pe, errBoom, "the other worker ran no batch")
	assert.Positive(t, falses.Load(), "yield never returned false")
	assert.Zero(t, afterFalse.Load(), "yield took items after it returned false")
	assert.Less(t, calls.Load(), int64(n))
}

// TestForSeqPanicWaitsForRunningCalls has item 0's call still running when
// item 1's panics: the panic must reach the caller only once item 0's call
// has returned. The two calls wait (a bounded time) for each other, so that
// on two workers they overlap.
func TestForSeqPanicWaitsForRunningCalls(t *testing.T) {
	waitUntil := func(cond *atomic.Bool) bool {
		deadline := time.Now().Add(2 * time.Second)
		for !cond.Load() {
			if time.Now().After(deadline) {
				return false
			}
			time.Sleep(50 * time.Microsecond)
		}
		return true
	}
	for _, items := range []int{2, 1000} {
		t.Run(fmt.Sprintf("%d items", items), func(t *testing.T) {
			in := ints(items)
			first, second := in[0], in[1]
			var started, done, panicking, overlapped atomic.Bool
			var pe error
			runAt(t, place{"2 workers", 2}, func() {
				pe = catchPanicError(t, func() {
					forkjoin.ForSeq(slices.Values(in), func(x int) {
						switch x {
						case first:
							started.Store(true)
							waitUntil(&panicking)
							time.Sleep(20 * time.Millisecond)
							done.Store(true)
						case second:
							overlapped.Store(waitUntil(&started))
							panicking.Store(true)
							panic(errBoom)
						}
					})
				})
				// Checked here, before any later work could finish item 0.
				assert.True(t, !started.Load() || done.Load(), "ForSeq re-panicked while a call was running")
			})
			assert.ErrorIs(t, pe, errBoom)
			// Else the test proved nothing: on two workers the call of
			// item 0 runs while that of item 1 waits for it.
			assert.True(t, overlapped.Load(), "the calls of items 0 and 1 did not overlap")
		})
	}
}

// TestForSeqPanicInIterator: a panic in seq itself (a function ForSeq
// calls, like f) is re-raised as a *pool.PanicError, once the calls
// already started have returned.
func TestForSeqPanicInIterator(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			var started, finished atomic.Int64
			seq := func(yield func(int) bool) {
				for i := 0; ; i++ {
					if i == 500 {
						panic(errBoom)
					}
					if !yield(i) {
						return
					}
				}
			}
			var pe error
			runAt(t, pl, func() {
				pe = catchPanicError(t, func() {
					forkjoin.ForSeq(seq, func(int) {
						started.Add(1)
						runtime.Gosched() // let the panic overtake a call
						finished.Add(1)
					})
				})
				assert.Equal(t, started.Load(), finished.Load(), "calls running when ForSeq re-panicked")
			})
			assert.ErrorIs(t, pe, errBoom)
		})
	}
}

func TestForSeqPanicInFiniteSeq(t *testing.T) {
	for _, pl := range places {
		for _, n := range []int{1, 2, 1001, 100_000} {
			t.Run(fmt.Sprintf("%s/%d items", pl.name, n), func(t *testing.T) {
				var pulled, exited atomic.Int64
				var pe error
				runAt(t, pl, func() {
					pe = catchPanicError(t, func() {
						forkjoin.ForSeq(countTo(n, &pulled, &exited), func(i int) {
							if i == n-1 || i == 1000 {
								panic(errBoom)
							}
						})
					})
				})
				assert.ErrorIs(t, pe, errBoom)
				assert.Equal(t, int64(1), exited.Load(), "iterator returned")
			})
		}
	}
}

// TestForSeqNested runs a ForSeq in each call of another, and the other
// algorithms in calls of ForSeq: they run on the pool's workers, nested.
func TestForSeqNested(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			var total, finds atomic.Int64
			in := ints(10_000)
			runAt(t, pl, func() {
				forkjoin.ForSeq(slices.Values(ints(50)), func(x int) {
					forkjoin.ForSeq(slices.Values(ints(50)), func(y int) { total.Add(int64(x * y)) })
					if i, ok := forkjoin.Find(in, func(v int) bool { return v == in[x*100] }); ok && i == x*100 {
						finds.Add(1)
					}
				})
			})
			s := int64(0)
			for _, x := range ints(50) {
				s += int64(x)
			}
			assert.Equal(t, s*s, total.Load())
			assert.Equal(t, int64(50), finds.Load())
		})
	}
}
