package forkjoin_test

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/forkjoin"
)

// A sorted, a reversed and an all-equal input cost SortFunc and
// SortStableFunc a linear pass, as they cost slices' pdqsort: at most 3n
// comparisons, where partitioning or merging them makes n log n.
// Stability holds: only a strictly descending input is reversed.
func TestSortsOfALinearShapeCompareLinearly(t *testing.T) {
	const n = 1 << 16
	inputs := map[string]func(i int) int{
		"ascending":  func(i int) int { return i },
		"descending": func(i int) int { return n - i },
		"all equal":  func(int) int { return 7 },
	}
	type item struct{ key, at int }
	for name, key := range inputs {
		for _, sort := range []struct {
			name string
			f    func([]item, func(a, b item) int)
		}{
			{"SortFunc", forkjoin.SortFunc[[]item, item]},
			{"SortStableFunc", forkjoin.SortStableFunc[[]item, item]},
		} {
			t.Run(sort.name+"/"+name, func(t *testing.T) {
				s := make([]item, n)
				for i := range s {
					s[i] = item{key(i), i}
				}
				var calls atomic.Int64
				sort.f(s, func(a, b item) int { calls.Add(1); return cmp.Compare(a.key, b.key) })
				assert.LessOrEqual(t, calls.Load(), int64(3*n), "comparisons")
				assert.True(t, slices.IsSortedFunc(s, func(a, b item) int { return cmp.Compare(a.key, b.key) }))
				if sort.name == "SortStableFunc" {
					assert.True(t, slices.IsSortedFunc(s, func(a, b item) int {
						return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.at, b.at))
					}), "not stable")
				}
			})
		}
	}
}

// TestSortsOfNearlyLinearShapesCompareLinearly: a sorted input with two
// elements swapped far apart is finished by a bounded insertion sort, and
// an input of four distinct keys by partitions that set each key's copies
// aside once its pivot repeats, in a few comparisons per element, where a
// quicksort or merge sort without either makes O(n log n) (about 20 per
// element here, fewer where pieces of a few thousand go to slices). Sort takes the same steps with cmp.Less (sort_func.go is
// its twin), which a test cannot count.
func TestSortsOfNearlyLinearShapesCompareLinearly(t *testing.T) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(3, 4))
	keys := make([]int, n)
	for i := range keys {
		keys[i] = r.IntN(4)
	}
	inputs := []struct {
		name  string
		key   func(i int) int
		sorts []string
		most  int // comparisons per element
	}{
		{"two swapped", func(i int) int {
			switch i {
			case 100:
				return n - 100
			case n - 100:
				return 100
			}
			return i
		}, []string{"SortFunc", "SortStableFunc"}, 4},
		{"four keys", func(i int) int { return keys[i] }, []string{"SortFunc"}, 5},
	}
	type item struct{ key, at int }
	byKey := func(a, b item) int { return cmp.Compare(a.key, b.key) }
	for _, in := range inputs {
		for _, name := range in.sorts {
			t.Run(name+"/"+in.name, func(t *testing.T) {
				s := make([]item, n)
				for i := range s {
					s[i] = item{in.key(i), i}
				}
				var calls atomic.Int64
				counted := func(a, b item) int { calls.Add(1); return byKey(a, b) }
				switch name {
				case "SortFunc":
					forkjoin.SortFunc(s, counted)
				case "SortStableFunc":
					forkjoin.SortStableFunc(s, counted)
					assert.True(t, slices.IsSortedFunc(s, func(a, b item) int {
						return cmp.Or(byKey(a, b), cmp.Compare(a.at, b.at))
					}), "not stable")
				}
				t.Logf("%d comparisons, %.1f per element", calls.Load(), float64(calls.Load())/n)
				assert.LessOrEqual(t, calls.Load(), int64(in.most*n), "comparisons")
				assert.True(t, slices.IsSortedFunc(s, byKey))
			})
		}
	}
}
