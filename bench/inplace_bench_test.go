package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/spindle-go/spindle/internal/experiment"
	"github.com/spindle-go/spindle/pool"
)

// BenchmarkSpawnInPlace measures a spawned task running its descendants in
// place (runtime/descendants.go) against tasks that each return to the
// wait loop (experiment.WithOneTaskPerRun), as pairs: every iteration runs
// the kernel once on a pool of each kind, in alternating order, so that
// both runs of a pair meet the same machine (on a shared host, speed
// changes in phases of seconds, and separate runs of the two builds
// compare phases more than builds). It reports the medians of each
// side's times (ms-in-place, ms-one-per-run) and of the pairs' ratios
// (in-place/one-per-run). Kernels: the pointer tree of BenchmarkTreeWalk
// with a forkjoin.Spawn per child (treewalk), and UTS T3 with a
// forkjoin.Spawn (spawnarg) or a Scope.Spawn closure (spawn) per node.
func BenchmarkSpawnInPlace(b *testing.B) {
	root, _ := WalkTree(10, 4)
	wantSum := TreeWalkSerial(root)
	var t3 *UTSTree
	for _, t := range UTSSampleTrees {
		if t.Name == "T3" {
			t3 = t
		}
	}
	wantNodes := UTSSerial(t3).Nodes
	kernels := []struct {
		name string
		run  func(b *testing.B, p *pool.Pool)
	}{
		{"treewalk", func(b *testing.B, p *pool.Pool) {
			if got := TreeWalkSpawn(p, root); got != wantSum {
				b.Fatalf("sum %d, want %d", got, wantSum)
			}
		}},
		{"uts-t3-spawnarg", func(b *testing.B, p *pool.Pool) { checkUTS(b, p, UTSSpawnArg, t3, wantNodes) }},
		{"uts-t3-spawn", func(b *testing.B, p *pool.Pool) { checkUTS(b, p, UTSSpawn, t3, wantNodes) }},
	}
	for _, k := range kernels {
		for _, w := range benchWorkers {
			b.Run(fmt.Sprintf("%s/workers=%d", k.name, w), func(b *testing.B) {
				onPool(b, w, func(inPlace *pool.Pool) {
					onPool(b, w, func(onePerRun *pool.Pool) {
						var in, one, ratio []float64
						for i := 0; b.Loop(); i++ {
							var d [2]time.Duration
							for j := range 2 {
								side := (i + j) % 2 // alternate which runs first
								p := inPlace
								if side == 1 {
									p = onePerRun
								}
								start := time.Now()
								k.run(b, p)
								d[side] = time.Since(start)
							}
							in = append(in, float64(d[0].Nanoseconds())/1e6)
							one = append(one, float64(d[1].Nanoseconds())/1e6)
							ratio = append(ratio, float64(d[0])/float64(d[1]))
						}
						b.ReportMetric(median(in), "ms-in-place")
						b.ReportMetric(median(one), "ms-one-per-run")
						b.ReportMetric(median(ratio), "in-place/one-per-run")
					}, experiment.WithOneTaskPerRun())
				})
			})
		}
	}
}

// checkUTS runs search on p's workers and checks its count.
func checkUTS(b *testing.B, p *pool.Pool, search func(*UTSTree) int64, t *UTSTree, want int64) {
	var got int64
	p.Run(func() { got = search(t) })
	if got != want {
		b.Fatalf("counted %d nodes, want %d", got, want)
	}
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
