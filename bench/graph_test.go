package bench

import (
	"fmt"
	"slices"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

func TestNewGraph(t *testing.T) {
	g := NewGraph(1000, 4, 3, Seed)
	if g.Nodes() != 1000 || len(g.Offsets) != 1001 || int(g.Offsets[1000]) != len(g.Edges) {
		t.Fatalf("nodes %d, offsets %d, last offset %d, edges %d", g.Nodes(), len(g.Offsets), g.Offsets[1000], len(g.Edges))
	}
	for v := range 1000 {
		if g.Offsets[v] > g.Offsets[v+1] {
			t.Fatalf("offsets decrease at node %d", v)
		}
	}
	for _, u := range g.Edges {
		if u < 0 || u >= 1000 {
			t.Fatalf("edge to node %d", u)
		}
	}
	if d := g.Offsets[1] - g.Offsets[0]; d != 31 {
		t.Errorf("hub node 0 has out-degree %d, want 31", d)
	}
	h := NewGraph(1000, 4, 3, Seed)
	if !slices.Equal(g.Offsets, h.Offsets) || !slices.Equal(g.Edges, h.Edges) {
		t.Error("the same seed gave two graphs")
	}
}

// TestExplorers checks every kernel against the serial one on small
// graphs: the same nodes visited (node by node, and by count and
// checksum), each exactly once.
func TestExplorers(t *testing.T) {
	graphs := []struct {
		nodes, degree, hubs int
	}{
		{1, 0, 0},     // node 0 alone
		{50, 0, 1},    // a star around node 0
		{3000, 1, 0},  // sparse: node 0 may reach little
		{5000, 6, 4},  // the benchmark's shape, small
		{2000, 12, 0}, // dense
	}
	pools := map[int]*pool.Pool{1: newPool(t, 1), 2: newPool(t, 2)}
	for _, gc := range graphs {
		g := NewGraph(gc.nodes, gc.degree, gc.hubs, Seed+uint64(gc.nodes))
		e := NewExplorer(g, 0)
		e.CountVisits()
		want := e.Serial()
		seen := make([]bool, g.Nodes())
		for v := range seen {
			seen[v] = e.Seen(v)
			if n := e.Visits(v); n != 0 && n != 1 || (n == 1) != seen[v] {
				t.Fatalf("serial: node %d visited %d times, seen %v", v, n, seen[v])
			}
		}
		if want.Nodes < 1 || !seen[0] {
			t.Fatalf("serial: %d nodes", want.Nodes)
		}
		kernels := []struct {
			name    string
			explore func() GraphResult
		}{
			{"spawn/1", func() GraphResult { return e.Spawn(pools[1]) }},
			{"spawn/2", func() GraphResult { return e.Spawn(pools[2]) }},
			{"spawnmany/1", func() GraphResult { return e.SpawnMany(pools[1]) }},
			{"spawnmany/2", func() GraphResult { return e.SpawnMany(pools[2]) }},
			{"local/1", func() GraphResult { return e.Local(pools[1]) }},
			{"local/2", func() GraphResult { return e.Local(pools[2]) }},
			{"goroutines/1", func() GraphResult { return e.Goroutines(1) }},
			{"goroutines/2", func() GraphResult { return e.Goroutines(2) }},
			{"goroutines/4", func() GraphResult { return e.Goroutines(4) }},
		}
		for _, k := range kernels {
			name := fmt.Sprintf("%d-%d-%d/%s", gc.nodes, gc.degree, gc.hubs, k.name)
			e.Reset()
			got := k.explore()
			if got != want {
				t.Errorf("%s: %d nodes (checksum %#x), want %d (%#x)", name, got.Nodes, got.Sum, want.Nodes, want.Sum)
			}
			for v := range seen {
				if e.Visited(v) != seen[v] {
					t.Fatalf("%s: node %d visited %v, serial %v", name, v, e.Visited(v), seen[v])
				}
				if n, w := e.Visits(v), map[bool]int32{true: 1}[seen[v]]; n != w {
					t.Fatalf("%s: node %d visited %d times, want %d", name, v, n, w)
				}
			}
		}
	}
}
