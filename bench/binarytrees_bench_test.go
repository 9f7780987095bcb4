package bench

import (
	"flag"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

var btDepth = flag.Int("btdepth", 18, "BenchmarkBinaryTrees: the deepest trees (the Benchmarks Game uses 21)")

// BenchmarkBinaryTrees is binary trees (BinaryTreesMap, a forkjoin.Map job
// per depth, every job allocating) at GOMAXPROCS workers on a pool of
// locked workers (the default) and of unlocked ones, against a goroutine
// per job (BinaryTreesGoroutines), in one run:
//
//	go test -run '^$' -bench BinaryTrees -count 6 ./bench -btdepth 21
func BenchmarkBinaryTrees(b *testing.B) {
	want := BinaryTreesGoroutines(*btDepth)
	check := func(b *testing.B, got int) {
		if got != want {
			b.Errorf("sum of checks %d, want %d", got, want)
		}
	}
	b.Run("impl=goroutines", func(b *testing.B) {
		var got int
		for b.Loop() {
			got = BinaryTreesGoroutines(*btDepth)
		}
		check(b, got)
	})
	for _, locked := range []bool{true, false} {
		name := "impl=map/locked"
		if !locked {
			name = "impl=map/unlocked"
		}
		b.Run(name, func(b *testing.B) {
			p, err := pool.New(pool.WithLockedThreads(locked))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var got int
			for b.Loop() {
				p.Run(func() { got = BinaryTreesMap(*btDepth) })
			}
			check(b, got)
		})
	}
}
