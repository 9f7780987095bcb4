//go:build unix

package main

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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

// BenchmarkSorts sorts copies of the same 1M random ints on a pool of
// one worker, where the three sorts do the same work serially: their
// cpu-ns/op compare the algorithms.
func BenchmarkSorts(b *testing.B) {
	p, err := pool.New(pool.WithWorkers(1))
	require.NoError(b, err)
	defer p.Close()
	input := random(1 << 20)
	s := make([]int, len(input))
	for _, v := range []struct {
		name string
		sort func([]int)
	}{{"slices.Sort", slices.Sort[[]int]}, {"quicksort", quicksort}, {"forkjoin.Sort", forkjoin.Sort[[]int]}} {
		b.Run(v.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				copy(s, input)
				start := cpuTime()
				p.Run(func() { v.sort(s) })
				cpu += cpuTime() - start
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkPartition partitions 1M random ints once around the element of
// a given rank: the more even the split, the more often the partition's
// loops mispredict their branches.
func BenchmarkPartition(b *testing.B) {
	input := random(1 << 20)
	sorted := slices.Sorted(slices.Values(input))
	s := make([]int, len(input))
	for _, rank := range []float64{0.5, 0.3, 0.2, 0.1} {
		b.Run(fmt.Sprintf("rank=%.1f", rank), func(b *testing.B) {
			pivot := sorted[int(rank*float64(len(sorted)))]
			var cpu time.Duration
			for b.Loop() {
				copy(s, input)
				// partition's pivot is the middle element.
				i, mid := slices.Index(s, pivot), (len(s)-1)/2
				s[i], s[mid] = s[mid], s[i]
				start := cpuTime()
				partition(s)
				cpu += cpuTime() - start
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(len(s)), "cpu-ns/element")
		})
	}
}
