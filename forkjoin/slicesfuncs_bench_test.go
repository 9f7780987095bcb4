package forkjoin_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
)

// BenchmarkScans times Min, Max, Index, Contains, Equal, IsSorted and
// IsSortedFunc on n int64s against their slices functions on the same
// input in the same iteration (x-slices: the median ratio), on the
// default pool called from the benchmark's goroutine: at 10M, where the
// scans are parallel, and at the serial length and twice it, where they
// start to be. The searches look for what is not there (or for the last
// element), so they scan everything, their worst case.
//
//	go test -run '^$' -bench Scans -benchtime 20x ./forkjoin
func BenchmarkScans(b *testing.B) {
	for _, n := range []int{1 << 15, 1 << 16, 10_000_000} {
		s := make([]int64, n)
		for i := range s {
			s[i] = int64(i)
		}
		c := slices.Clone(s)
		last := s[n-1]
		scans := []struct {
			name    string
			ours    func() any
			against func() any
		}{
			{"Min", func() any { return forkjoin.Min(s) }, func() any { return slices.Min(s) }},
			{"Max", func() any { return forkjoin.Max(s) }, func() any { return slices.Max(s) }},
			{"Index", func() any { return forkjoin.Index(s, last) }, func() any { return slices.Index(s, last) }},
			{"Contains", func() any { return forkjoin.Contains(s, -1) }, func() any { return slices.Contains(s, -1) }},
			{"Equal", func() any { return forkjoin.Equal(s, c) }, func() any { return slices.Equal(s, c) }},
			{"IsSorted", func() any { return forkjoin.IsSorted(s) }, func() any { return slices.IsSorted(s) }},
			{"IsSortedFunc", func() any { return forkjoin.IsSortedFunc(s, cmp.Compare[int64]) },
				func() any { return slices.IsSortedFunc(s, cmp.Compare[int64]) }},
		}
		for _, sc := range scans {
			b.Run(fmt.Sprintf("%s/n=%d", sc.name, n), func(b *testing.B) {
				var ratios []float64
				for b.Loop() {
					start := time.Now()
					got := sc.ours()
					ours := time.Since(start)
					start = time.Now()
					want := sc.against()
					ratios = append(ratios, float64(ours)/float64(time.Since(start)))
					if got != want {
						b.Fatalf("got %v, slices gives %v", got, want)
					}
				}
				slices.Sort(ratios)
				b.ReportMetric(ratios[len(ratios)/2], "x-slices")
			})
		}
	}
}
