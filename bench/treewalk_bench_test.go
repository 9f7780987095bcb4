package bench

import (
	"testing"

	"github.com/spindle-go/spindle/pool"
)

// BenchmarkTreeWalk is a walk of a 4-ary tree of 1.4 million pointer
// nodes with a few tens of nanoseconds of work each: serial, a
// forkjoin.Spawn per child (spawn, which the runtime runs in the children's
// order, forward through memory; spawn-reversed spawns the children last
// first, so that they run backwards), and the same with a hand cutoff
// (serial below depth 5), at 1 and 2 workers, and the task-per-node
// floors (treewalk_floor.go): floor, a private record stack, and
// public-floor, a Chase-Lev deque, each as copies on 1 and 2 threads
// (the row at 2 is the time of a walk split perfectly over 2 threads).
func BenchmarkTreeWalk(b *testing.B) {
	root, _ := WalkTree(10, 4)
	want := TreeWalkSerial(root)
	check := func(b *testing.B, got uint64) {
		if got != want {
			b.Errorf("sum %d, want %d", got, want)
		}
	}
	fam := newFamily(b)
	fam.serial("serial", func(b *testing.B) {
		var got uint64
		for b.Loop() {
			got = TreeWalkSerial(root)
		}
		check(b, got)
	})
	floors := []struct {
		name string
		walk func(*WalkNode) uint64
	}{
		{"floor", TreeWalkSpawnFloor},
		{"public-floor", TreeWalkPublicFloor},
	}
	for _, k := range floors {
		fam.floorCopiesBench(k.name, func() func(b *testing.B) {
			return func(b *testing.B) { check(b, k.walk(root)) }
		})
	}
	walks := []struct {
		name string
		walk func(*pool.Pool, *WalkNode) uint64
	}{
		{"spawn", TreeWalkSpawn},
		{"spawn-reversed", TreeWalkSpawnReversed},
		{"cutoff", func(p *pool.Pool, root *WalkNode) uint64 { return TreeWalkCutoff(p, root, 5) }},
	}
	for _, w := range benchWorkers {
		for _, k := range walks {
			fam.run(k.name, w, func(b *testing.B) {
				onPool(b, w, func(p *pool.Pool) {
					var got uint64
					for b.Loop() {
						got = k.walk(p, root)
					}
					check(b, got)
				})
			})
		}
	}
}
