package bench

import (
	"flag"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

var treeDepth = flag.Int("treedepth", 20, "BenchmarkTreeSum: levels of the tree (the peers use 22)")

// BenchmarkTreeSum times the sum of a balanced tree of -treedepth levels
// with a fork per node: serial, the lazy-fork floor (K copies at once on K
// threads, ns/op per sum) and forkjoin.Call on pools of 1 and 2 workers.
func BenchmarkTreeSum(b *testing.B) {
	root, want := TreeBuild(*treeDepth)
	check := func(b *testing.B, got int64) {
		if got != want {
			b.Errorf("tree sum = %d, want %d", got, want)
		}
	}
	fam := newFamily(b)
	fam.serial("serial", func(b *testing.B) {
		var got int64
		for b.Loop() {
			got = TreeSumSerial(root)
		}
		check(b, got)
	})
	fam.floorCopiesBench("lazy-fork-floor", func() func(b *testing.B) {
		w := new(treeFloorWorker)
		return func(b *testing.B) { check(b, treeSumLazyFloor(w, root)) }
	})
	for _, w := range benchWorkers {
		fam.run("call", w, func(b *testing.B) {
			var got int64
			onPool(b, w, func(p *pool.Pool) {
				for b.Loop() {
					p.Run(func() { got = TreeSumCall(root) })
				}
			})
			check(b, got)
		})
	}
}
