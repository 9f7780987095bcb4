package forkjoin_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// shapes are the inputs of BenchmarkSortShapes: sort_test.go's patterns
// and the shapes a sort of timestamps or logs meets (eight distinct keys,
// descending runs, ascending with 1% noise).
func shapes() []pattern {
	return append(slices.Clone(patterns),
		pattern{"8 distinct", func(s []int64, r *rand.Rand) {
			for i := range s {
				s[i] = r.Int64N(8)
			}
		}},
		pattern{"descending runs", func(s []int64, _ *rand.Rand) {
			const run = 1000
			for i := range s {
				s[i] = int64(i/run*run + run - i%run)
			}
		}},
		pattern{"ascending 1% noise", func(s []int64, r *rand.Rand) {
			for i := range s {
				s[i] = int64(i)
				if r.IntN(100) == 0 {
					s[i] = r.Int64N(int64(len(s)))
				}
			}
		}},
	)
}

// BenchmarkSortShapes sorts 1M int64s of each shape with Sort, SortFunc
// and SortStableFunc (cmp.Compare) and, in the same iteration, with their
// slices counterparts on the same input; x-slices is the forkjoin sort's
// time over slices', the median over the iterations. workers=1 is a pool
// of one worker and no guest slot (run it under taskset -c N, slices on
// the same vCPU); workers=2 the default pool at GOMAXPROCS 2, called from
// the benchmark's goroutine.
//
//	go test -run '^$' -bench SortShapes -benchtime 5x ./forkjoin
func BenchmarkSortShapes(b *testing.B) {
	const n = 1 << 20
	sorts := []struct {
		name    string
		sort    func([]int64)
		against func([]int64)
	}{
		{"Sort", forkjoin.Sort[[]int64], slices.Sort[[]int64]},
		{"SortFunc", func(s []int64) { forkjoin.SortFunc(s, cmp.Compare[int64]) },
			func(s []int64) { slices.SortFunc(s, cmp.Compare[int64]) }},
		{"SortStableFunc", func(s []int64) { forkjoin.SortStableFunc(s, cmp.Compare[int64]) },
			func(s []int64) { slices.SortStableFunc(s, cmp.Compare[int64]) }},
	}
	// One worker and no guest slot: the sort runs on that worker.
	one, err := pool.New(pool.WithWorkers(1), pool.WithGuests(0))
	if err != nil {
		b.Fatal(err)
	}
	defer one.Close()
	for _, workers := range []int{1, 2} {
		for _, in := range shapes() {
			input := make([]int64, n)
			in.fill(input, rand.New(rand.NewPCG(1, 2)))
			for _, v := range sorts {
				b.Run(fmt.Sprintf("%s/workers=%d/%s", v.name, workers, in.name), func(b *testing.B) {
					s := make([]int64, n)
					var ratios []float64
					for b.Loop() {
						copy(s, input)
						start := time.Now()
						if workers == 1 {
							one.Run(func() { v.sort(s) })
						} else {
							v.sort(s) // from the goroutine, on the default pool (GOMAXPROCS workers)
						}
						ours := time.Since(start)
						copy(s, input)
						start = time.Now()
						v.against(s)
						ratios = append(ratios, float64(ours)/float64(time.Since(start)))
					}
					slices.Sort(ratios)
					b.ReportMetric(ratios[len(ratios)/2], "x-slices")
				})
			}
		}
	}
}
