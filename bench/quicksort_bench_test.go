package bench

import (
	"testing"

	"github.com/spindle-go/spindle/pool"
)

// BenchmarkQuicksort times the peers' quicksort of -qsn xorshift64 values
// (1<<20 by default; -qsn=10000000 for the peers' size): serial,
// forkjoin.Do and pool.Join on pools of 1 and 2 workers, and a goroutine
// per fork (sync.WaitGroup, errgroup, conc) at GOMAXPROCS 1 and 2. Every
// iteration sorts a fresh copy of the same input; the copy is not timed.
func BenchmarkQuicksort(b *testing.B) {
	s, cut, loop := quicksortInput(b)
	fam := newFamily(b)

	fam.serial("serial", func(b *testing.B) {
		loop(b, func() { QuicksortSerial(s, cut) })
	})

	spindle := []struct {
		name string
		sort func([]int64, int)
	}{
		{"do", QuicksortDo},
		{"join", QuicksortJoin},
	}
	for _, k := range spindle {
		for _, w := range benchWorkers {
			fam.run(k.name, w, func(b *testing.B) {
				onPool(b, w, func(p *pool.Pool) {
					loop(b, func() { p.Run(func() { k.sort(s, cut) }) })
				})
			})
		}
	}

	goroutines := []struct {
		name string
		sort func([]int64, int)
	}{
		{"waitgroup", QuicksortWaitGroup},
		{"errgroup", QuicksortErrgroup},
		{"conc", QuicksortConc},
	}
	for _, k := range goroutines {
		for _, w := range benchWorkers {
			fam.run(k.name, w, func(b *testing.B) {
				withProcs(w, func() {
					loop(b, func() { k.sort(s, cut) })
				})
			})
		}
	}
}

// quicksortInput fills -qsn xorshift64 values (checked against -cutoff)
// and returns the slice the sorts work on, the cutoff, and loop, which
// times sort on a fresh copy of the input per iteration (the copy is not
// timed) and then checks the last result.
func quicksortInput(b *testing.B) (s []int64, cut int, loop func(*testing.B, func())) {
	n, cut := *qsN, *cutoff
	if n < 0 || cut < MinCutoff {
		b.Fatalf("-qsn=%d -cutoff=%d: want n >= 0 and cutoff >= %d", n, cut, MinCutoff)
	}
	input := make([]int64, n)
	sum := Fill(input)
	s = make([]int64, n)
	loop = func(b *testing.B, sort func()) {
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
	return s, cut, loop
}
