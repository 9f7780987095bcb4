package bench

import (
	"flag"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

var (
	graphN    = flag.Int("graphn", 1<<20, "BenchmarkGraph: nodes of the random graph")
	graphDeg  = flag.Int("graphdeg", 6, "BenchmarkGraph: mean out-degree")
	graphHubs = flag.Int("graphhubs", 8, "BenchmarkGraph: hub nodes (node 0 and others, about sqrt(graphn) out-edges each)")
	graphWork = flag.Int("graphwork", 0, "BenchmarkGraph: busy work per visited node, in rounds of Spin")
)

// BenchmarkGraph explores the nodes reachable from node 0 of a random
// graph (NewGraph with -graphn nodes, -graphdeg, -graphhubs, seed Seed;
// -graphwork rounds of Spin per node) as impl=NAME/workers=K: serial
// (depth first, plain marks), spawn (a Scope.Spawn per claimed node) and
// spawnmany (a Scope.SpawnMany of the neighbours each node claims) and
// local (Explorer.Local: a stack per task, half of it spawned every 64
// visits) on
// pools of 1 and 2 workers, and goroutines (Explorer.Goroutines, a stack
// per goroutine and a shared channel) at GOMAXPROCS 1 and 2. Every
// iteration starts from cleared marks (the clearing is not timed) and is
// checked against the serial run's node count and checksum. Reports
// x-serial as the other families do.
func BenchmarkGraph(b *testing.B) {
	if *graphN < 1 || *graphDeg < 0 || *graphHubs < 0 || *graphWork < 0 {
		b.Fatalf("-graphn=%d -graphdeg=%d -graphhubs=%d -graphwork=%d: want n >= 1, others >= 0",
			*graphN, *graphDeg, *graphHubs, *graphWork)
	}
	e := NewExplorer(NewGraph(*graphN, *graphDeg, *graphHubs, Seed), *graphWork)
	want := e.Serial()
	loop := func(b *testing.B, explore func() GraphResult) {
		var got GraphResult
		for b.Loop() {
			b.StopTimer()
			e.Reset()
			b.StartTimer()
			got = explore()
		}
		if got != want {
			b.Fatalf("visited %d nodes (checksum %#x), want %d (%#x)", got.Nodes, got.Sum, want.Nodes, want.Sum)
		}
	}
	fam := newFamily(b)
	fam.serial("serial", func(b *testing.B) { loop(b, e.Serial) })
	kernels := []struct {
		name    string
		explore func(*Explorer, *pool.Pool) GraphResult
	}{
		{"spawn", (*Explorer).Spawn},
		{"spawnmany", (*Explorer).SpawnMany},
		{"local", (*Explorer).Local},
	}
	for _, k := range kernels {
		for _, w := range benchWorkers {
			fam.run(k.name, w, func(b *testing.B) {
				onPool(b, w, func(p *pool.Pool) {
					loop(b, func() GraphResult { return k.explore(e, p) })
				})
			})
		}
	}
	for _, w := range benchWorkers {
		fam.run("goroutines", w, func(b *testing.B) {
			withProcs(w, func() {
				loop(b, func() GraphResult { return e.Goroutines(w) })
			})
		})
	}
}
