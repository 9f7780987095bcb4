package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = "testdata/peers-sample.txt"

func sampleRows(t *testing.T) []row {
	f, err := os.Open(sample)
	require.NoError(t, err)
	defer f.Close()
	rows, warnings, err := readRows(f)
	require.NoError(t, err)
	assert.Empty(t, warnings, "the table at the end repeats the raw rows exactly")
	return rows
}

func TestReadRowsSample(t *testing.T) {
	rows := sampleRows(t)
	// 19 runtimes-and-thread-counts per workload, the table's repeats
	// dropped, messages and headers skipped.
	require.Len(t, rows, 38)
	assert.Equal(t, row{"rust-serial", "fib", "32", 1, 7.6}, rows[0])
	assert.Equal(t, row{"go-spindle-do", "quicksort", "10000000", 2, 528}, rows[len(rows)-1])
}

func TestReadRowsForms(t *testing.T) {
	in := strings.Join([]string{
		"go-spindle-call fib n=20 threads=1 ms=1.5 result=6765", // bench/cmd/peers: no bg=
		"go-serial        fib              1        0.2      1.00    0.00",
		"go-spindle-call  fib              1        1.5      7.50    0.00", // the table's repeat
		"go-spindle-call fib n=20 threads=1 ms=9.9 result=6765 bg=0.00",    // measured again
		"go-spindle-join fib n=20 threads=two ms=3.0 result=6765",          // broken
		"go-spindle-join fib n=20 threads=2 ms=-1 result=6765",             // broken
		"runtime          workload   threads         ms  x_serial  bg_cpu", // header
		"build done in 12 s",
		"",
	}, "\n")
	rows, warnings, err := readRows(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, []row{
		{"go-spindle-call", "fib", "20", 1, 1.5},
		{"go-serial", "fib", "", 1, 0.2},
	}, rows)
	require.Len(t, warnings, 3)
	assert.Contains(t, warnings[0], "line 4: go-spindle-call fib at 1 threads measured again (9.9 ms); keeping the first row (1.5 ms)")
	assert.Contains(t, warnings[1], `line 5: threads="two" is not a positive integer`)
	assert.Contains(t, warnings[2], `line 6: ms="-1" is not a positive number`)
}

// drawn draws a workload into a temporary directory and returns the SVG.
func drawn(t *testing.T, rows []row, workload string) (svg, msg string) {
	dir := t.TempDir()
	msg, err := drawWorkload(rows, workload, dir)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "peers-"+workload+".svg"))
	require.NoError(t, err)
	svg = string(b)
	require.True(t, strings.HasPrefix(svg, "<?xml"), "an SVG document")
	require.Contains(t, svg, "<svg")
	require.Contains(t, svg, "</svg>")
	return svg, msg
}

func TestChartsOfTheSample(t *testing.T) {
	rows := sampleRows(t)

	fib, msg := drawn(t, rows, "fib")
	assert.Contains(t, msg, "x serial, 8 runtimes at 1, 2 threads, log scale")
	for _, s := range []string{
		"spindle forkjoin.Call", "spindle pool.Join (closures)", "Rust Rayon", "Java ForkJoinPool",
		"C++ oneTBB", "C++ OpenMP tasks", "Go goroutine + WaitGroup", "Go errgroup",
		"1 thread", "2 threads", "serial", "fib(32)", "log scale",
		"4.90 (74 ms)", "433 (1864 ms)", // ratios to each language's serial row
	} {
		assert.Contains(t, fib, s)
	}
	assert.NotContains(t, fib, "forkjoin.Do", "quicksort's rows stay in their chart")

	qs, msg := drawn(t, rows, "quicksort")
	assert.Contains(t, msg, "x serial, 7 runtimes at 1, 2 threads, linear scale")
	for _, s := range []string{
		"spindle forkjoin.Do", "Rust Rayon", "Java ForkJoinPool", "C++ oneTBB", "C++ OpenMP tasks",
		"Go goroutine + WaitGroup", "Go errgroup", "quicksort of 10,000,000 int64", "linear scale",
		"0.43 (528 ms)",
	} {
		assert.Contains(t, qs, s)
	}
	assert.NotContains(t, qs, "forkjoin.Call")
}

func TestChartInMsWithoutSerialRows(t *testing.T) {
	// No zig-serial row: the chart shows milliseconds for every runtime.
	// go-closure-floor has no 2-thread row: its group has one bar.
	rows := []row{
		{"go-serial", "fib", "32", 1, 15},
		{"go-closure-floor", "fib", "32", 1, 150},
		{"go-spindle-call", "fib", "32", 1, 74},
		{"go-spindle-call", "fib", "32", 2, 41},
		{"zig-spawn", "fib", "32", 1, 30},
		{"zig-spawn", "fib", "32", 2, 16},
	}
	c, ok := newChart(rows, "fib")
	require.True(t, ok)
	assert.False(t, c.ratio)
	assert.Equal(t, []string{"zig-spawn"}, c.noSerial)
	assert.Equal(t, []string{"go-spindle-call", "go-closure-floor", "zig-spawn"}, c.runtimes)
	assert.True(t, math.IsNaN(c.value[1][1]))

	svg, msg := drawn(t, rows, "fib")
	assert.Contains(t, msg, "ms (no serial row for zig-spawn)")
	for _, s := range []string{"zig-spawn", "Go closure allocations alone (serial)", "best time in ms", "150 ms", "16 ms"} {
		assert.Contains(t, svg, s)
	}
}

func TestNothingToDraw(t *testing.T) {
	_, err := drawWorkload([]row{{"go-serial", "fib", "32", 1, 15}}, "fib", t.TempDir())
	assert.ErrorContains(t, err, "no fib rows besides serial ones")
	_, err = drawWorkload(sampleRows(t), "nbody", t.TempDir())
	assert.ErrorContains(t, err, "no nbody rows")
}

func TestTicks(t *testing.T) {
	var labels []string
	for _, tk := range logTicks(1, 3637) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"1", "10", "100", "1000"}, labels)
	assert.Len(t, logTicks(1, 3637), 30, "1-9, 10-90, 100-900 and 1000-3000")

	lin := linearTicks(1.96)
	assert.Equal(t, "0.2", lin[1].Label)
	assert.Equal(t, "1.8", lin[len(lin)-1].Label)
	assert.Equal(t, "0", linearTicks(7000)[0].Label)
	assert.Equal(t, "7000", linearTicks(7000)[7].Label)
}

func TestFormats(t *testing.T) {
	assert.Equal(t, "10,000,000", thousands(10_000_000))
	assert.Equal(t, "999", thousands(999))
	assert.Equal(t, "-1,000", thousands(-1000))
	assert.Equal(t, []string{"0.43", "4.93", "31.4", "434"},
		[]string{ratioText(0.434), ratioText(4.93), ratioText(31.44), ratioText(434.2)})
	assert.Equal(t, []string{"7.6 ms", "74 ms", "1864 ms"}, []string{msText(7.6), msText(74.4), msText(1864)})
}
