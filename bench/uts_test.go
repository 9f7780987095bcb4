package bench

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// TestUTSSampleTrees searches the sample trees serially and checks the
// published node count, depth and (where published) leaf count of each.
func TestUTSSampleTrees(t *testing.T) {
	trees := UTSSampleTrees
	if raceEnabled {
		trees = trees[:1]
	}
	for _, tr := range trees {
		t.Run(tr.Name, func(t *testing.T) {
			got := UTSSerial(tr)
			assert.Equal(t, tr.Want.Nodes, got.Nodes, "nodes")
			assert.Equal(t, tr.Want.MaxDepth, got.MaxDepth, "depth")
			if tr.Want.Leaves != 0 {
				assert.Equal(t, tr.Want.Leaves, got.Leaves, "leaves")
			}
		})
	}
}

// smallUTSTrees are a few thousand to a hundred thousand nodes of every
// type, for checking the parallel searches quickly.
var smallUTSTrees = []*UTSTree{
	{Name: "binomial", Type: UTSBinomial, B0: 200, Q: 0.124, M: 8, Seed: 7},                                  // 6,313 nodes, depth 63
	{Name: "geo-fixed", Type: UTSGeometric, Shape: UTSFixed, B0: 4, Depth: 8, Seed: 1},                       // 111,508 nodes
	{Name: "geo-linear", Type: UTSGeometric, Shape: UTSLinear, B0: 6, Depth: 12, Seed: 8},                    // 52,026
	{Name: "geo-expdec", Type: UTSGeometric, Shape: UTSExpDec, B0: 4, Depth: 12, Seed: 1},                    // 19,405
	{Name: "geo-cyclic", Type: UTSGeometric, Shape: UTSCyclic, B0: 4, Depth: 10, Seed: 4},                    // 14,078
	{Name: "hybrid", Type: UTSHybrid, Shape: UTSLinear, B0: 6, Depth: 12, Q: 0.2, M: 4, Shift: 0.5, Seed: 1}, // 73,352
}

// TestUTSParallelSearches checks every parallel style against the serial
// count, on 1 and 2 workers (and T3, the deep one, without the race
// detector).
func TestUTSParallelSearches(t *testing.T) {
	styles := []struct {
		name   string
		search func(*UTSTree) int64
	}{
		{"spawn", UTSSpawn}, {"spawnarg", UTSSpawnArg}, {"spawnmany", UTSSpawnMany}, {"call", UTSCall}, {"join", UTSJoin},
		{"goroutines", UTSGoroutines}, {"closure-floor", UTSClosureFloor}, {"closure-floor4", func(t *UTSTree) int64 { return UTSClosureFloorP(t, 4) }},
		{"public-floor", UTSPublicFloor}, {"public-part-floor", UTSPublicPartFloor},
		{"public-floor2", func(t *UTSTree) int64 { return UTSPublicFloorP(t, 2) }},
		{"public-part-floor2", func(t *UTSTree) int64 { return UTSPublicPartFloorP(t, 2) }},
	}
	trees := smallUTSTrees
	if !raceEnabled {
		trees = append(trees, UTST3)
	}
	for _, workers := range []int{1, 2} {
		p, err := pool.New(pool.WithWorkers(workers))
		require.NoError(t, err)
		for _, tr := range trees {
			want := UTSSerial(tr).Nodes
			require.Greater(t, want, int64(1000), "tree %s is too small to test anything", tr.Name)
			for _, st := range styles {
				t.Run(fmt.Sprintf("workers=%d/%s/%s", workers, tr.Name, st.name), func(t *testing.T) {
					var got int64
					p.Run(func() { got = st.search(tr) })
					assert.Equal(t, want, got)
				})
			}
		}
		require.NoError(t, p.Close())
	}
}
