package forkjoin_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
)

// A pattern fills s with int64 values of some shape, using r for chance.
type pattern struct {
	name string
	fill func(s []int64, r *rand.Rand)
}

var patterns = []pattern{
	{"random", func(s []int64, r *rand.Rand) {
		for i := range s {
			s[i] = r.Int64() - math.MaxInt64/2
		}
	}},
	{"sorted", func(s []int64, _ *rand.Rand) {
		for i := range s {
			s[i] = int64(i)
		}
	}},
	{"reversed", func(s []int64, _ *rand.Rand) {
		for i := range s {
			s[i] = int64(len(s) - i)
		}
	}},
	{"all equal", func(s []int64, _ *rand.Rand) {
		for i := range s {
			s[i] = 42
		}
	}},
	{"few distinct", func(s []int64, r *rand.Rand) {
		for i := range s {
			s[i] = r.Int64N(4)
		}
	}},
	{"organ pipe", func(s []int64, _ *rand.Rand) {
		for i := range s {
			s[i] = int64(min(i, len(s)-1-i))
		}
	}},
	{"sawtooth", func(s []int64, _ *rand.Rand) {
		for i := range s {
			s[i] = int64(i % 17)
		}
	}},
	{"sorted, one swap", func(s []int64, r *rand.Rand) {
		for i := range s {
			s[i] = int64(i)
		}
		if len(s) > 1 {
			i, j := r.IntN(len(s)), r.IntN(len(s))
			s[i], s[j] = s[j], s[i]
		}
	}},
}

// smallLengths are 0..1000, or a spread of them under the race detector.
func smallLengths() []int {
	step := 1
	if raceEnabled {
		step = 7
	}
	var ns []int
	for n := 0; n <= 1000; n += step {
		ns = append(ns, n)
	}
	return append(ns, 1000)
}

// checkSortInt64 sorts in with Sort and with small cutoffs, which send small
// inputs through the parallel partitioning, and checks every result
// against slices.Sort. It runs on a worker: it must not call t.FailNow.
func checkSortInt64(t *testing.T, in []int64) {
	want := slices.Clone(in)
	slices.Sort(want)
	for _, cutoff := range []int{forkjoin.SortCutoffDefault, 1, 8, 50} {
		got := slices.Clone(in)
		forkjoin.SortCutoff(got, cutoff)
		if !slices.Equal(want, got) {
			t.Errorf("cutoff %d, len %d: Sort differs from slices.Sort", cutoff, len(in))
			return
		}
	}
	got := slices.Clone(in)
	forkjoin.Sort(got)
	assert.Equal(t, want, got)
}

func TestSortInt64Patterns(t *testing.T) {
	p := newPool(t, 2)
	for _, pt := range patterns {
		t.Run(pt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(pt.name))))
			watchdog(t, func() {
				p.Run(func() {
					for _, n := range smallLengths() {
						in := make([]int64, n)
						pt.fill(in, r)
						checkSortInt64(t, in)
					}
				})
			})
		})
	}
}

// TestSortLarge sorts 1<<20 elements with the default cutoff, so that the
// parallel path runs with its real parameters, at each place (and with
// SortFunc for random values).
func TestSortLarge(t *testing.T) {
	n := 1 << 20
	todo := patterns
	if raceEnabled {
		todo = []pattern{patterns[0], patterns[4]} // random, few distinct
	}
	for _, pl := range places {
		for _, pt := range todo {
			t.Run(pl.name+"/"+pt.name, func(t *testing.T) {
				in := make([]int64, n)
				pt.fill(in, rand.New(rand.NewPCG(2, 3)))
				want := slices.Clone(in)
				slices.Sort(want)
				in2 := slices.Clone(in)
				runAt(t, pl, func() {
					forkjoin.Sort(in)
					if pt.name == "random" {
						forkjoin.SortFunc(in2, cmp.Compare[int64])
					} else {
						slices.Sort(in2)
					}
				})
				require.True(t, slices.Equal(want, in), "Sort differs from slices.Sort")
				require.True(t, slices.Equal(want, in2), "SortFunc differs from slices.Sort")
			})
		}
		if raceEnabled {
			break // the places differ in scheduling only; one is enough
		}
	}
}

// floatValues holds the values that are special for sorting floats: NaNs
// (also with another payload) that slices.Sort puts first, both zeros, the
// infinities and the extremes.
var floatValues = []float64{
	math.NaN(), math.Float64frombits(0x7ff8000000000123), math.Copysign(0, -1), 0,
	math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
	math.SmallestNonzeroFloat64, 1, -1, 0.5,
}

// sameFloats reports whether a and b are equal under the order slices.Sort
// sorts by: NaN matches NaN, and -0 matches +0 (the sorts are not stable,
// so which zero comes first is unspecified).
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	})
}

func TestSortFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	p := newPool(t, 2)
	watchdog(t, func() {
		p.Run(func() {
			for _, n := range append(smallLengths(), 5000, 100_000) {
				in := make([]float64, n)
				for i := range in {
					if r.IntN(4) == 0 {
						in[i] = floatValues[r.IntN(len(floatValues))]
					} else {
						in[i] = r.NormFloat64()
					}
				}
				want := slices.Clone(in)
				slices.Sort(want)
				for _, cutoff := range []int{forkjoin.SortCutoffDefault, 1, 8} {
					got := slices.Clone(in)
					forkjoin.SortCutoff(got, cutoff)
					if !sameFloats(want, got) {
						t.Errorf("len %d, cutoff %d: Sort differs from slices.Sort:\n%v\n%v", n, cutoff, want, got)
						return
					}
				}
				got := slices.Clone(in)
				forkjoin.Sort(got)
				if !sameFloats(want, got) {
					t.Errorf("len %d: Sort differs from slices.Sort", n)
				}
			}
		})
	})
	t.Run("all NaN and zeros", func(t *testing.T) {
		in := make([]float64, 20_000)
		for i := range in {
			in[i] = floatValues[i%4]
		}
		want := slices.Clone(in)
		slices.Sort(want)
		forkjoin.SortCutoff(in, 16)
		assert.True(t, sameFloats(want, in))
		assert.True(t, math.IsNaN(in[0]) && math.IsNaN(in[len(in)/2-1]), "NaNs first")
	})
}

func TestSortStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	p := newPool(t, 2)
	watchdog(t, func() {
		p.Run(func() {
			for _, n := range append(smallLengths(), 20_000) {
				in := make([]string, n)
				for i := range in {
					in[i] = strconv.FormatInt(r.Int64N(int64(n)+1), 3) // short strings, repeats
				}
				want := slices.Clone(in)
				slices.Sort(want)
				for _, cutoff := range []int{forkjoin.SortCutoffDefault, 1, 8} {
					got := slices.Clone(in)
					forkjoin.SortCutoff(got, cutoff)
					if !slices.Equal(want, got) {
						t.Errorf("len %d, cutoff %d: Sort differs from slices.Sort", n, cutoff)
						return
					}
				}
			}
		})
	})
}

// keyed is an element whose order depends on key only, so that an
// unstable sort may permute elements with equal keys; id tells them apart.
type keyed struct{ key, id int }

func byKey(a, b keyed) int { return cmp.Compare(a.key, b.key) }

// TestSortFunc compares SortFunc with slices.SortFunc by keys (neither is
// stable) and checks that the result is a permutation of the input.
func TestSortFunc(t *testing.T) {
	p := newPool(t, 2)
	for _, pt := range patterns {
		t.Run(pt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(8, uint64(len(pt.name))))
			watchdog(t, func() {
				p.Run(func() {
					ns := smallLengths()
					if pt.name == "random" {
						ns = append(ns, 100_000)
					}
					for _, n := range ns {
						raw := make([]int64, n)
						pt.fill(raw, r)
						in := make([]keyed, n)
						for i, v := range raw {
							in[i] = keyed{int(v % 1000), i}
						}
						want := slices.Clone(in)
						slices.SortFunc(want, byKey)
						for _, cutoff := range []int{forkjoin.SortCutoffDefault, 1, 8} {
							got := slices.Clone(in)
							if cutoff == forkjoin.SortCutoffDefault {
								forkjoin.SortFunc(got, byKey)
							} else {
								forkjoin.SortFuncCutoff(got, byKey, cutoff)
							}
							if !slices.EqualFunc(want, got, func(a, b keyed) bool { return a.key == b.key }) {
								t.Errorf("len %d, cutoff %d: keys differ from slices.SortFunc", n, cutoff)
								return
							}
							ids := make([]int, n)
							for i, e := range got {
								ids[i] = e.id
							}
							slices.Sort(ids)
							for i, id := range ids {
								if id != i {
									t.Errorf("len %d, cutoff %d: not a permutation of the input", n, cutoff)
									return
								}
							}
						}
					}
				})
			})
		})
	}
}

func TestSortFuncDescending(t *testing.T) {
	in := make([]int64, 50_000)
	patterns[0].fill(in, rand.New(rand.NewPCG(9, 9)))
	desc := func(a, b int64) int { return cmp.Compare(b, a) }
	want := slices.Clone(in)
	slices.SortFunc(want, desc)
	forkjoin.SortFuncCutoff(in, desc, 64)
	assert.Equal(t, want, in)
}

func TestSortFuncPanics(t *testing.T) {
	for _, pl := range places {
		for _, n := range []int{10, 100_000} {
			t.Run(fmt.Sprintf("%s/len %d", pl.name, n), func(t *testing.T) {
				in := make([]int64, n)
				patterns[0].fill(in, rand.New(rand.NewPCG(10, 10)))
				bad := in[n/2]
				runAt(t, pl, func() {
					pe := catchPanicError(t, func() {
						forkjoin.SortFunc(in, func(a, b int64) int {
							if a == bad || b == bad {
								panic(errBoom)
							}
							return cmp.Compare(a, b)
						})
					})
					assert.ErrorIs(t, pe, errBoom)
				})
				slices.Sort(in) // still a permutation: holds bad once
				_, found := slices.BinarySearch(in, bad)
				assert.True(t, found)
			})
		}
	}
}

// blockLengths are lengths around the multiples of the block partition's
// block size, where its loop hands over to the scans that finish it.
func blockLengths() []int {
	ns := []int{2, 3, 9, 64, 65, 1000, 4097, 10_000}
	for k := 1; k <= 5; k++ {
		for d := -2; d <= 2; d++ {
			ns = append(ns, k*forkjoin.BlockSize+d)
		}
	}
	return ns
}

// checkPartition partitions a copy of in and checks the partition's
// contract: s[p] is the pivot, nothing before it is greater, nothing after
// it is less (in cmp.Less's order), and s is a permutation of in. It
// returns p.
func checkPartition[E cmp.Ordered](t *testing.T, in []E) int {
	t.Helper()
	s := slices.Clone(in)
	p := forkjoin.PartitionOrdered(s)
	require.True(t, p >= 0 && p < len(s), "pivot index %d, len %d", p, len(s))
	pivot := s[p]
	for i, e := range s[:p] {
		require.False(t, cmp.Less(pivot, e), "len %d: s[%d] > pivot at %d", len(s), i, p)
	}
	for i, e := range s[p+1:] {
		require.False(t, cmp.Less(e, pivot), "len %d: s[%d] < pivot at %d", len(s), p+1+i, p)
	}
	want, got := slices.Clone(in), slices.Clone(s)
	slices.Sort(want)
	slices.Sort(got)
	require.True(t, slices.EqualFunc(want, got, func(a, b E) bool { return cmp.Compare(a, b) == 0 }), "len %d: not a permutation", len(s))
	return p
}

// samplesAt sets the elements of s that the pivot is chosen from to v
// (and some others too), so that the pivot is v.
func samplesAt(s []int64, v int64) {
	n := len(s)
	d := n / 8
	for _, i := range []int{0, d, 2 * d, 3 * d, 4 * d, 5 * d, 6 * d, 7 * d, n / 2, n - 1} {
		s[i] = v
	}
}

func TestPartitionOrderedEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range blockLengths() {
		in := make([]int64, n)
		for i := range in {
			in[i] = r.Int64N(1000) + 1
		}
		checkPartition(t, in)

		// The pivot is the minimum: everything else is on its right, but
		// for the copies of the minimum itself.
		low := slices.Clone(in)
		samplesAt(low, 0)
		p := checkPartition(t, low)
		assert.LessOrEqual(t, p, 10, "len %d: pivot at min", n)

		// The pivot is the maximum: everything else is on its left.
		high := slices.Clone(in)
		samplesAt(high, 2000)
		p = checkPartition(t, high)
		assert.GreaterOrEqual(t, p, n-11, "len %d: pivot at max", n)

		// All equal: both sides are on the wrong side of the pivot
		// everywhere, so the keys split evenly.
		eq := make([]int64, n)
		p = checkPartition(t, eq)
		if n >= 64 {
			assert.InDelta(t, n/2, p, float64(n)/8, "len %d: all equal", n)
		}

		// Two values, the pivot one of them.
		two := make([]int64, n)
		for i := range two {
			two[i] = r.Int64N(2)
		}
		checkPartition(t, two)

		// Floats with NaNs, which cmp.Less puts first, and both zeros.
		fl := make([]float64, n)
		for i := range fl {
			if r.IntN(3) == 0 {
				fl[i] = floatValues[r.IntN(len(floatValues))]
			} else {
				fl[i] = r.NormFloat64()
			}
		}
		checkPartition(t, fl)
		nan := make([]float64, n)
		for i := range nan {
			nan[i] = math.NaN()
		}
		p = checkPartition(t, nan)
		if n >= 64 {
			assert.InDelta(t, n/2, p, float64(n)/8, "len %d: all NaN", n)
		}
	}
}

// TestSortBlockLengths sorts inputs of the lengths around the block size
// through the partitioning (cutoffs 1 and 8) and the default cutoff, for
// every pattern and for floats with NaNs.
func TestSortBlockLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	p := newPool(t, 2)
	watchdog(t, func() {
		p.Run(func() {
			for _, n := range blockLengths() {
				for _, pt := range patterns {
					in := make([]int64, n)
					pt.fill(in, r)
					checkSortInt64(t, in)
				}
				in := make([]float64, n)
				for i := range in {
					in[i] = floatValues[r.IntN(len(floatValues))]
				}
				want := slices.Clone(in)
				slices.Sort(want)
				for _, cutoff := range []int{1, 8, forkjoin.SortCutoffDefault} {
					got := slices.Clone(in)
					forkjoin.SortCutoff(got, cutoff)
					if !sameFloats(want, got) {
						t.Errorf("floats, len %d, cutoff %d: Sort differs from slices.Sort", n, cutoff)
					}
				}
			}
		})
	})
}
