package forkjoin_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

// BenchmarkIsolateCall is fib(27) with forkjoin.Call at every level, run
// plainly and inside pool.Isolate, on 1 and 2 workers: what isolation adds
// to the cheapest fork.
func BenchmarkIsolateCall(b *testing.B) {
	const n = 27
	for _, workers := range []int{1, 2} {
		p, err := pool.New(pool.WithWorkers(workers))
		if err != nil {
			b.Fatal(err)
		}
		for _, isolated := range []bool{false, true} {
			name := fmt.Sprintf("workers=%d/plain", workers)
			run := func() { fibCall(n) }
			if isolated {
				name = fmt.Sprintf("workers=%d/isolated", workers)
				run = func() { pool.Isolate(func() { fibCall(n) }) }
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					p.Run(run)
				}
			})
		}
		p.Close()
	}
}
