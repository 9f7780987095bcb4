package bench

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/spindle-go/spindle/internal/experiment"
	"github.com/spindle-go/spindle/pool"
)

var inPlaceControl = flag.Bool("inplacecontrol", false,
	"BenchmarkSpawnInPlace: make the second pool a default one too (an A/A run: what the method shows between equal pools)")

// BenchmarkSpawnInPlace measures a spawned task running its descendants in
// place (runtime/descendants.go) against tasks that each return to the
// wait loop (experiment.WithOneTaskPerRun), as pairs: every iteration runs
// the kernel once on a pool of each kind, in alternating order, so that
// both runs of a pair meet the same machine (on a shared host, speed
// changes in phases of seconds, and separate runs of the two builds
// compare phases more than builds). It reports the medians of each
// side's times (ms-in-place, ms-one-per-run) and of the pairs' ratios
// (in-place/one-per-run). Kernels: the pointer tree of BenchmarkTreeWalk
// with a forkjoin.Spawn per child (treewalk), UTS T3 with a
// forkjoin.Spawn (spawnarg) or a Scope.Spawn closure (spawn) per node,
// and BenchmarkGraph's search with a Scope.Spawn closure per claimed node
// (graph-spawn, its default graph; the marks are cleared untimed before
// each run). With -inplacecontrol both pools are default ones, which
// shows what the method itself reads between equal pools: close to 1 at 1
// worker, not at 2, where the pool made first ran slower
// (docs/performance/task-per-node.md has both).
func BenchmarkSpawnInPlace(b *testing.B) {
	second := experiment.WithOneTaskPerRun()
	if *inPlaceControl {
		second = pool.WithName("control")
	}
	root, _ := WalkTree(10, 4)
	wantSum := TreeWalkSerial(root)
	var t3 *UTSTree
	for _, t := range UTSSampleTrees {
		if t.Name == "T3" {
			t3 = t
		}
	}
	wantNodes := UTSSerial(t3).Nodes
	explorer := NewExplorer(NewGraph(*graphN, *graphDeg, *graphHubs, Seed), *graphWork)
	wantGraph := explorer.Serial()
	kernels := []struct {
		name  string
		reset func() // before each timed run, if set
		run   func(b *testing.B, p *pool.Pool)
	}{
		{"treewalk", nil, func(b *testing.B, p *pool.Pool) {
			if got := TreeWalkSpawn(p, root); got != wantSum {
				b.Fatalf("sum %d, want %d", got, wantSum)
			}
		}},
		{"uts-t3-spawnarg", nil, func(b *testing.B, p *pool.Pool) { checkUTS(b, p, UTSSpawnArg, t3, wantNodes) }},
		{"uts-t3-spawn", nil, func(b *testing.B, p *pool.Pool) { checkUTS(b, p, UTSSpawn, t3, wantNodes) }},
		{"graph-spawn", explorer.Reset, func(b *testing.B, p *pool.Pool) {
			if got := explorer.Spawn(p); got != wantGraph {
				b.Fatalf("visited %d nodes (checksum %#x), want %d (%#x)", got.Nodes, got.Sum, wantGraph.Nodes, wantGraph.Sum)
			}
		}},
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
								if k.reset != nil {
									k.reset()
								}
								start := time.Now()
								k.run(b, p)
								d[side] = time.Since(start)
							}
							in = append(in, float64(d[0].Nanoseconds())/1e6)
							one = append(one, float64(d[1].Nanoseconds())/1e6)
							ratio = append(ratio, float64(d[0])/float64(d[1]))
						}
						b.ReportMetric(Median(in), "ms-in-place")
						b.ReportMetric(Median(one), "ms-one-per-run")
						b.ReportMetric(Median(ratio), "in-place/one-per-run")
					}, second)
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
