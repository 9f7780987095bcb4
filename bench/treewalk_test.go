package bench

import "testing"

// TestTreeWalkKernels checks every tree-walk kernel against the serial
// walk, on a tree small enough for the race detector, and on a single
// node (no child to spawn).
func TestTreeWalkKernels(t *testing.T) {
	p := newPool(t, 2)
	kernels := []struct {
		name string
		walk func(*WalkNode) uint64
	}{
		{"floor", TreeWalkSpawnFloor},
		{"public-floor", TreeWalkPublicFloor},
		{"spawn", func(n *WalkNode) uint64 { return TreeWalkSpawn(p, n) }},
		{"spawn-reversed", func(n *WalkNode) uint64 { return TreeWalkSpawnReversed(p, n) }},
		{"cutoff", func(n *WalkNode) uint64 { return TreeWalkCutoff(p, n, 2) }},
	}
	for _, depth := range []int{0, 5} {
		root, nodes := WalkTree(depth, 4)
		want := TreeWalkSerial(root)
		if depth == 0 && (nodes != 1 || want != walkWork(root.Seed)) {
			t.Fatalf("WalkTree(0, 4): %d nodes, sum %d", nodes, want)
		}
		for _, k := range kernels {
			if got := k.walk(root); got != want {
				t.Errorf("%s on depth %d: sum %d, want %d", k.name, depth, got, want)
			}
		}
	}
}
