package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// TestSmallRun measures small versions of the workloads (UTS's sample
// trees are too large for a test under the race detector), prints the table
// and draws the chart: results are checked by each workload, and the
// table and the SVG must name every workload.
func TestSmallRun(t *testing.T) {
	analyze = pool.AnalyzeCPU
	pools := make(map[int]*pool.Pool)
	for _, n := range measureAt {
		p, err := pool.New(pool.WithWorkers(n))
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close() })
		pools[n] = p
	}
	workloads := []workload{fibWorkload(15), fibCutWorkload(15, 8), quicksortWorkload(2000),
		graphWorkload(300)}
	var results []result
	for _, w := range workloads {
		r, err := measure(w, pools, 1, 2)
		require.NoError(t, err, w.name)
		assert.Positive(t, r.a.Forks, w.name)
		assert.LessOrEqual(t, r.a.Span, r.a.Work, w.name)
		results = append(results, r)
	}
	var table bytes.Buffer
	printTable(&table, results)
	svg := filepath.Join(t.TempDir(), "scale.svg")
	require.NoError(t, writeChart(svg, results, "test machine", "pool.AnalyzeCPU"))
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	for _, r := range results {
		assert.Contains(t, table.String(), r.w.name)
		assert.True(t, strings.Contains(string(data), r.w.name), "the chart names %s", r.w.name)
	}
}
