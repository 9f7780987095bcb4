package pool_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

// BenchmarkIsolate runs fib with a fork at every level, plainly and
// inside pool.Isolate, on 1 and 2 workers: what isolation adds to a fork.
// The forks: pool.Join (fib(25)) and forkjoin.Call, the cheapest
// (fib(27)).
//
//	go test -run '^$' -bench Isolate -count 8 -benchtime 40x ./pool
func BenchmarkIsolate(b *testing.B) {
	forks := []struct {
		name string
		fib  func()
	}{
		{"fork=pool.Join", func() { fib(25) }},
		{"fork=forkjoin.Call", func() { fibCall(27) }},
	}
	for _, workers := range []int{1, 2} {
		p, err := pool.New(pool.WithWorkers(workers))
		if err != nil {
			b.Fatal(err)
		}
		for _, fork := range forks {
			for _, isolated := range []bool{false, true} {
				run, region := fork.fib, "plain"
				if isolated {
					run, region = func() { pool.Isolate(fork.fib) }, "isolated"
				}
				b.Run(fmt.Sprintf("%s/workers=%d/%s", fork.name, workers, region), func(b *testing.B) {
					for b.Loop() {
						p.Run(run)
					}
				})
			}
		}
		p.Close()
	}
}
