package bench

import (
	"flag"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

var utsTree = flag.String("utstree", "T3", "BenchmarkUTS: sample tree T1 to T5, or small (a 111,508-node geometric tree)")

// BenchmarkUTS searches a UTS sample tree (-utstree, default T3) as
// impl=NAME/workers=K: serial (UTSSerial), closure-floor (UTSClosureFloor,
// a serial search with one closure allocated per node; at K workers K
// such searches at once on K threads, ns/op per tree: UTSClosureFloorP),
// public-floor and public-part-floor (UTSPublicFloor, UTSPublicPartFloor:
// a task per child, or per inner node, on a Chase-Lev deque; as copies),
// spawn (a Scope.Spawn per node), spawnarg (forkjoin.Spawn per node), spawnmany
// (a Scope.SpawnMany per node), call (forkjoin.Call over child ranges) and
// join (pool.Join over child ranges) on pools of 1 and 2 workers (each at
// GOMAXPROCS = workers, as the peers run them), and goroutines (a
// goroutine per node) at GOMAXPROCS 1 and 2. Every iteration's count is
// checked. Reports x-serial as the other families do.
func BenchmarkUTS(b *testing.B) {
	tree := smallUTSTrees[1]
	for _, t := range UTSSampleTrees {
		if t.Name == *utsTree {
			tree = t
		}
	}
	if *utsTree != "small" && tree == smallUTSTrees[1] {
		b.Fatalf("-utstree=%q: want T1 to T5 or small", *utsTree)
	}
	want := UTSSerial(tree).Nodes
	loop := func(b *testing.B, search func() int64) {
		var got int64
		for b.Loop() {
			got = search()
		}
		if got != want {
			b.Fatalf("counted %d nodes, want %d", got, want)
		}
	}
	fam := newFamily(b)
	fam.serial("serial", func(b *testing.B) { loop(b, func() int64 { return UTSSerial(tree).Nodes }) })
	fam.floorCopiesBench("closure-floor", func() func(b *testing.B) {
		return func(b *testing.B) {
			if got := UTSClosureFloor(tree); got != want {
				b.Errorf("counted %d nodes, want %d", got, want)
			}
		}
	})
	for _, f := range []struct {
		name   string
		search func(*UTSTree) int64
	}{{"public-floor", UTSPublicFloor}, {"public-part-floor", UTSPublicPartFloor}} {
		fam.floorCopiesBench(f.name, func() func(b *testing.B) {
			return func(b *testing.B) {
				if got := f.search(tree); got != want {
					b.Errorf("counted %d nodes, want %d", got, want)
				}
			}
		})
	}
	kernels := []struct {
		name   string
		search func(*UTSTree) int64
	}{
		{"spawn", UTSSpawn}, {"spawnarg", UTSSpawnArg}, {"spawnmany", UTSSpawnMany}, {"call", UTSCall}, {"join", UTSJoin},
	}
	for _, k := range kernels {
		for _, w := range benchWorkers {
			fam.run(k.name, w, func(b *testing.B) {
				withProcs(w, func() {
					onPool(b, w, func(p *pool.Pool) {
						loop(b, func() int64 {
							var n int64
							p.Run(func() { n = k.search(tree) })
							return n
						})
					})
				})
			})
		}
	}
	for _, w := range benchWorkers {
		fam.run("goroutines", w, func(b *testing.B) {
			withProcs(w, func() { loop(b, func() int64 { return UTSGoroutines(tree) }) })
		})
	}
}
