package bench

import (
	"slices"
	"testing"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// BenchmarkSort times forkjoin.Sort on pools of 1 and 2 workers against
// slices.Sort, the serial baseline, on -sortn xorshift64 values (1<<20 by
// default). Every iteration sorts a fresh copy of the same input; the copy
// is not timed.
func BenchmarkSort(b *testing.B) {
	n := *sortN
	if n < 0 {
		b.Fatalf("-sortn=%d: want n >= 0", n)
	}
	input := make([]int64, n)
	sum := Fill(input)
	s := make([]int64, n)
	loop := func(b *testing.B, sort func()) {
		for b.Loop() {
			b.StopTimer()
			copy(s, input)
			b.StartTimer()
			sort()
		}
		if err := Check(s, sum); err != nil {
			b.Fatal(err)
		}
	}
	fam := newFamily(b)

	fam.serial("slices.Sort", func(b *testing.B) {
		loop(b, func() { slices.Sort(s) })
	})
	for _, w := range benchWorkers {
		fam.run("forkjoin.Sort", w, func(b *testing.B) {
			onPool(b, w, func(p *pool.Pool) {
				loop(b, func() { p.Run(func() { forkjoin.Sort(s) }) })
			})
		})
	}
}
