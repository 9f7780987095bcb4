package pool_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

// BenchmarkIsolateFork is fib(25) with a pool.Join at every level, run
// plainly and inside pool.Isolate, on 1 and 2 workers: what isolation adds
// to a fork. ns/fork divides by the number of joins (fib(25)'s calls with
// n >= 2).
func BenchmarkIsolateFork(b *testing.B) {
	const n = 25
	forks := float64(fibJoins(n))
	for _, workers := range []int{1, 2} {
		p, err := pool.New(pool.WithWorkers(workers))
		if err != nil {
			b.Fatal(err)
		}
		for _, isolated := range []bool{false, true} {
			name := fmt.Sprintf("workers=%d/plain", workers)
			run := func() { fib(n) }
			if isolated {
				name = fmt.Sprintf("workers=%d/isolated", workers)
				run = func() { pool.Isolate(func() { fib(n) }) }
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					p.Run(run)
				}
				b.ReportMetric(float64(b.Elapsed())/float64(b.N)/forks, "ns/fork")
			})
		}
		p.Close()
	}
}

// fibJoins is the number of pool.Join calls fib(n) makes.
func fibJoins(n int) int {
	if n < 2 {
		return 0
	}
	return 1 + fibJoins(n-1) + fibJoins(n-2)
}
