//go:build unix

package forkjoin_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// cpuTime returns the CPU time the process has used, which other work on
// the machine inflates less than the wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSortInputs sorts copies of the same int64 input with Sort and
// SortFunc (cmp.Compare) on pools of 1 and 2 workers, for each input class
// and size. cpu-ns/op is the process's CPU time per sort (getrusage),
// which load on the machine inflates less than ns/op; with 2 workers it
// includes what a worker spends looking for work.
//
//	go test -run '^$' -bench SortInputs -count 5 ./forkjoin
func BenchmarkSortInputs(b *testing.B) {
	sorts := []struct {
		name string
		sort func([]int64)
	}{
		{"Sort", forkjoin.Sort[[]int64]},
		{"SortFunc", func(s []int64) { forkjoin.SortFunc(s, cmp.Compare[int64]) }},
	}
	for _, workers := range []int{1, 2} {
		p, err := pool.New(pool.WithWorkers(workers))
		if err != nil {
			b.Fatal(err)
		}
		for _, in := range patterns { // sort_test.go's input classes
			for _, n := range []int{1_000, 100_000, 10_000_000} {
				input := make([]int64, n)
				in.fill(input, rand.New(rand.NewPCG(1, 2)))
				want := slices.Sorted(slices.Values(input))
				s := make([]int64, n)
				for _, v := range sorts {
					name := fmt.Sprintf("%s/workers=%d/%s/n=%d", v.name, workers, in.name, n)
					b.Run(name, func(b *testing.B) {
						var cpu time.Duration
						for b.Loop() {
							b.StopTimer()
							copy(s, input)
							b.StartTimer()
							start := cpuTime()
							p.Run(func() { v.sort(s) })
							cpu += cpuTime() - start
						}
						if !slices.Equal(s, want) {
							b.Fatal("not sorted")
						}
						b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
					})
				}
			}
		}
		if err := p.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
