package forkjoin_test

import (
	"math/bits"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
)

// adversary is M. D. McIlroy's "killer adversary for quicksort" (1999):
// a comparison function that decides the values of the elements only as
// the sort looks at them, always so as to make the current pivot
// candidate as bad as it can, which drives any quicksort without a
// worst-case guard to quadratically many comparisons. The sort sorts
// indices into val; afterwards val, with the undecided elements at the
// top, is an input that makes the same sort make the same comparisons.
type adversary struct {
	val       []int
	gas       int // value of undecided elements: above every decided one
	nsolid    int // values decided so far
	candidate int // the element most likely to be a pivot
	compares  int
}

func newAdversary(n int) *adversary {
	a := &adversary{val: make([]int, n), gas: n}
	for i := range a.val {
		a.val[i] = a.gas
	}
	return a
}

func (a *adversary) freeze(i int) {
	a.val[i] = a.nsolid
	a.nsolid++
}

func (a *adversary) cmp(x, y int) int {
	a.compares++
	if a.val[x] == a.gas && a.val[y] == a.gas {
		if x == a.candidate {
			a.freeze(x)
		} else {
			a.freeze(y)
		}
	}
	if a.val[x] == a.gas {
		a.candidate = x
	} else if a.val[y] == a.gas {
		a.candidate = y
	}
	return a.val[x] - a.val[y]
}

// TestSortAgainstAdversary runs SortFunc against the adversary on one
// worker (the adversary is sequential) and bounds its comparisons by a
// multiple of n*log2(n), far below the n*n/4 or so a quicksort without
// the budget makes, and by twice what slices.SortFunc makes against the
// same adversary (it made 6.2x before the budget counted only unbalanced
// partitions and broke their patterns); then replays the input it produced through Sort
// and SortFunc on two workers.
func TestSortAgainstAdversary(t *testing.T) {
	p1, p2 := newPool(t, 1), newPool(t, 2)
	n := 1 << 16
	if raceEnabled {
		n = 1 << 13
	}
	for _, cutoff := range []int{forkjoin.SortCutoffDefault, 16} {
		adv := newAdversary(n)
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		watchdog(t, func() {
			p1.Run(func() { forkjoin.SortFuncCutoff(idx, adv.cmp, cutoff) })
		})
		for i := 1; i < n; i++ {
			require.LessOrEqual(t, adv.val[idx[i-1]], adv.val[idx[i]], "not sorted at %d", i)
		}
		logn := bits.Len(uint(n))
		t.Logf("cutoff %d: %d comparisons for n = %d: %.2f n log2 n", cutoff, adv.compares, n, float64(adv.compares)/float64(n*logn))
		assert.LessOrEqual(t, adv.compares, 6*n*logn)
		// Against slices.SortFunc on an adversary of its own: within 2x.
		stdAdv := newAdversary(n)
		fresh := make([]int, n)
		for i := range fresh {
			fresh[i] = i
		}
		slices.SortFunc(fresh, stdAdv.cmp)
		assert.LessOrEqual(t, adv.compares, 2*stdAdv.compares, "comparisons against slices.SortFunc's %d", stdAdv.compares)

		killer := make([]int64, n)
		for i, v := range adv.val {
			killer[i] = int64(v)
		}
		want := slices.Clone(killer)
		slices.Sort(want)
		got := slices.Clone(killer)
		watchdog(t, func() {
			p2.Run(func() {
				forkjoin.SortCutoff(got, cutoff)
			})
		})
		require.Equal(t, want, got)
	}
}

// medianOf3Killer returns an input of even length n built as in Musser's
// paper on introsort (1997): a quicksort whose pivot is the median of
// s[0], s[n/2] and s[n-1], with a Hoare partition, splits off about two
// elements per level on it and recurses about n/4 levels deep (checked
// while writing this test: 4051 levels and 48M comparisons for n = 16000).
// spindle's sort takes medians of nine samples on long pieces, so for it
// this is one more structured input; what must hold is that it sorts it
// in O(n log n), which the watchdog bounds.
func medianOf3Killer(n int) []int64 {
	k := n / 2
	s := make([]int64, n)
	for i := 1; i <= k; i++ {
		if i%2 == 1 {
			s[i-1] = int64(i)
			s[i] = int64(k + i)
		}
		s[k+i-1] = int64(2 * i)
	}
	return s
}

func TestSortMedianOf3Killer(t *testing.T) {
	n := 1 << 20
	in := medianOf3Killer(n)
	want := slices.Clone(in)
	slices.Sort(want)
	p := newPool(t, 2)
	watchdog(t, func() {
		p.Run(func() { forkjoin.Sort(in) })
	})
	require.Equal(t, want, in)
}
