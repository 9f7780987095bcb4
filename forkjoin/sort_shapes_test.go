package forkjoin_test

import (
	"cmp"
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
