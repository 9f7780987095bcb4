package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

const (
	sample = "testdata/peers-sample.txt" // fib and quicksort, raw rows and table
	all    = "testdata/peers-all.txt"    // every workload, three runs concatenated
)

func readFile(t *testing.T, path string) (rows []row, machine string, warnings []string) {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, machine, warnings, err = readRows(f)
	require.NoError(t, err)
	return rows, machine, warnings
}

func sampleRows(t *testing.T) []row {
	rows, _, warnings := readFile(t, sample)
	assert.Empty(t, warnings, "the table at the end repeats the raw rows exactly")
	return rows
}

func TestReadRowsSample(t *testing.T) {
	rows, machine, _ := readFile(t, sample)
	// 19 runtimes-and-thread-counts per workload, the table's repeats
	// dropped, messages and headers skipped.
	require.Len(t, rows, 38)
	assert.Equal(t, row{runtime: "rust-serial", workload: "fib", size: "32", threads: 1, ms: 7.6}, rows[0])
	assert.Equal(t, row{runtime: "go-spindle-do", workload: "quicksort", size: "10000000", threads: 2, ms: 528}, rows[len(rows)-1])
	assert.Equal(t, "2 cpus, Intel(R) Xeon(R) Processor, 6.18.0", machine)
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
	rows, machine, warnings, err := readRows(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, []row{
		{runtime: "go-spindle-call", workload: "fib", size: "20", threads: 1, ms: 1.5},
		{runtime: "go-serial", workload: "fib", threads: 1, ms: 0.2},
	}, rows)
	assert.Empty(t, machine)
	require.Len(t, warnings, 3)
	assert.Contains(t, warnings[0], "line 4: go-spindle-call fib at 1 threads measured again (9.9 ms); keeping the first row (1.5 ms)")
	assert.Contains(t, warnings[1], `line 5: threads="two" is not a positive integer`)
	assert.Contains(t, warnings[2], `line 6: ms="-1" is not a positive number`)
}

// Concatenated outputs: comments, a second header, footers, messages
// between the runs, the machine line twice.
func TestReadRowsConcatenated(t *testing.T) {
	in := strings.Join([]string{
		"# Peers run with UTS rows, 2026-11-24",
		"# cp -r ../shared/peers /tmp/peers && EXTRA=/tmp/spindle-peers WORKLOADS=\"fib uts-t1\" /tmp/peers/run.sh",
		"machine: 2 cpus, AMD EPYC, 6.18.44",
		"runtime          workload     threads         ms  x_serial  bg_cpu",
		"go-serial        uts-t1             1      776.5      1.00    0.03",
		"go-closure-floor2 uts-t1             2      528.6      0.68    0.00",
		"x_serial: ms / ms of that language's serial version (same workload). bg_cpu: average cores used by",
		"other processes during that program's run (0 = quiet machine). Total run.sh time: 94 s",
		"installing: librust-rayon-dev librust-sha1-dev libtbb-dev",
		"debconf: delaying package configuration, since apt-utils is not installed",
		"machine: 2 cpus, AMD EPYC, 6.18.45",
		"settings: workloads filter; fib n=32, quicksort n=10000000 cutoff=32, best of 5 after 1 warm-up",
		"java-forkjoin sort-stable n=10000000 threads=2 ms=2747.8 stable=NO(4-pairs-out-of-order) bg=0.00",
		"runtime          workload     threads         ms  x_serial  bg_cpu",
		"java-forkjoin    sort-stable        2     2747.8      1.83    0.00",
		"done",
	}, "\n")
	rows, machine, warnings, err := readRows(strings.NewReader(in))
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, "2 cpus, AMD EPYC, 6.18.44", machine, "the first machine line")
	assert.Equal(t, []row{
		{runtime: "go-serial", workload: "uts-t1", threads: 1, ms: 776.5},
		{runtime: "go-closure-floor2", workload: "uts-t1", threads: 2, ms: 528.6},
		{runtime: "java-forkjoin", workload: "sort-stable", size: "10000000", threads: 2, ms: 2747.8, failed: "not stable"},
	}, rows)
}

func TestSerialBaselines(t *testing.T) {
	assert.True(t, isSerial("go-serial"))
	assert.True(t, isSerial("rust-serial"))
	assert.True(t, isSerial("go-spindle-serial"), "the allocation-free serial UTS search is a Go baseline")
	assert.False(t, isSerial("go-spindle-call"))
}

// The fastest serial row of a language is its baseline, whichever comes
// first.
func TestFastestSerialIsTheBaseline(t *testing.T) {
	rows := []row{
		{runtime: "go-serial", workload: "uts-t1", threads: 1, ms: 620},
		{runtime: "go-spindle-call", workload: "uts-t1", threads: 1, ms: 700},
		{runtime: "go-spindle-serial", workload: "uts-t1", threads: 1, ms: 500},
	}
	p, _, ok := newPanel(rows, panelSpec{workload: "uts-t1"})
	require.True(t, ok)
	require.Equal(t, []string{"go-spindle-call"}, p.runtimes)
	assert.Equal(t, []float64{500}, p.serial)
}

// drawn draws a chart into a temporary directory and returns the SVG.
func drawn(t *testing.T, rows []row, name string) (svg, msg string) {
	dir := t.TempDir()
	msg, err := drawChart(rows, lookupFamily(name), "2 vCPUs, test machine", dir)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "chart-"+name+".svg"))
	require.NoError(t, err)
	svg = string(b)
	require.True(t, strings.HasPrefix(svg, "<?xml"), "an SVG document")
	require.Contains(t, svg, "<svg")
	require.Contains(t, svg, "</svg>")
	assert.Contains(t, svg, "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	assert.NotContains(t, svg, "font-family:Liberation Sans;", "every text has fallback fonts")
	assert.Contains(t, svg, "Machine: 2 vCPUs, test machine")
	return svg, msg
}

func TestChartsOfTheSample(t *testing.T) {
	rows := sampleRows(t)

	fib, msg := drawn(t, rows, "fork")
	assert.Contains(t, msg, "chart-fork.svg: fib (8 runtimes), x serial at 1, 2 threads, log scale")
	for _, s := range []string{
		"spindle forkjoin.Call", "spindle pool.Join (closures)", "Rayon join", "Java ForkJoinPool",
		"C++ oneTBB", "C++ OpenMP tasks", "goroutine + WaitGroup", "Go errgroup",
		"1 thread", "2 threads", "fib(32)", "log scale", "(1, where the bars start)",
		"4.90 (74 ms)", "433 (1864 ms)", // ratios to each language's serial row
	} {
		assert.Contains(t, fib, s)
	}
	assert.NotContains(t, fib, "serial (= 1)", "the axis starts at 1: no dashed line")
	assert.NotContains(t, fib, "forkjoin.Do", "quicksort's rows stay in their chart")

	qs, msg := drawn(t, rows, "quicksort")
	assert.Contains(t, msg, "quicksort (7 runtimes), x serial at 1, 2 threads, linear scale")
	for _, s := range []string{
		"spindle forkjoin.Do", "Rayon join", "Java ForkJoinPool", "C++ oneTBB", "C++ OpenMP tasks",
		"goroutine + WaitGroup", "Go errgroup", "Quicksort of 10,000,000 int64", "linear scale",
		"serial (= 1)", "0.43 (528 ms)",
	} {
		assert.Contains(t, qs, s)
	}
	assert.NotContains(t, qs, "forkjoin.Call")

	dir := t.TempDir()
	_, err := drawChart(rows, lookupFamily("uts"), "", dir)
	assert.ErrorContains(t, err, "uts: no uts-t1, uts-t3 rows besides serial ones")
}

// The four families from one input with every workload.
func TestChartsOfOneRun(t *testing.T) {
	rows, machine, warnings := readFile(t, all)
	assert.Equal(t, "2 cpus, AMD EPYC, 6.18.44-fc-v669", machine)
	for _, w := range warnings {
		assert.Contains(t, w, "measured again", "fib and quicksort are in two of the runs")
	}

	fork, msg := drawn(t, rows, "fork")
	assert.Contains(t, msg, "fib (9 runtimes)")
	assert.Contains(t, fork, "Go closure allocations only")

	uts, msg := drawn(t, rows, "uts")
	assert.Contains(t, msg, "uts-t1 (10 runtimes), uts-t3 (10 runtimes), x serial at 1, 2 threads, log scale")
	for _, s := range []string{
		"Unbalanced Tree Search", "T1: geometric tree", "T3: binomial tree",
		"spindle Scope.Spawn", "spindle Scope.SpawnMany", "Rayon scope.spawn",
		"0.68 (529 ms)", // go-closure-floor2, the floor's 2-thread bar
	} {
		assert.Contains(t, uts, s)
	}
	assert.NotContains(t, uts, "go-closure-floor2", "drawn in the floor's row")

	iters, msg := drawn(t, rows, "iters")
	assert.Contains(t, msg, "filter (3 runtimes), find-first (3 runtimes), map-sum (3 runtimes), sort-stable (3 runtimes)")
	for _, s := range []string{
		"Parallel iterators over 10,000,000 items", "spindle forkjoin", "Rayon par_iter", "Java parallel streams",
		"1.83 (2748 ms), result not stable", "59.6 (155 ms)",
	} {
		assert.Contains(t, iters, s)
	}
	assert.NotContains(t, iters, "Rayon join", "the iterator family's own labels")

	_, msg = drawn(t, rows, "filter")
	assert.Contains(t, msg, "chart-filter.svg: filter (3 runtimes)", "a workload alone")
}

// Every text has its room, fontSlack included: inside the picture, clear
// of every other text, row labels left of the bars, bar texts inside
// their plot, and the title and legend above every plot.
func TestLayoutLeavesRoom(t *testing.T) {
	sampleRs := sampleRows(t)
	allRs, _, _ := readFile(t, all)
	cases := []struct {
		rows []row
		name string
	}{
		{sampleRs, "fork"}, {sampleRs, "quicksort"},
		{allRs, "fork"}, {allRs, "quicksort"}, {allRs, "uts"}, {allRs, "iters"},
	}
	for _, tc := range cases {
		c, ok := newChart(tc.rows, lookupFamily(tc.name))
		require.True(t, ok, tc.name)
		c.machine = "2 vCPUs, AMD EPYC, KVM guest, Linux 6.18; Go 1.26.8, Rust 1.95 with Rayon 1.6.1, g++ 12.2 with oneTBB 2021.8, OpenJDK 17"
		l := c.layout()
		rec := &recorder{Canvas: draw.New(vgsvg.New(l.width, l.height))}
		c.render(rec, l)

		picture := vg.Rectangle{Max: vg.Point{X: l.width, Y: l.height}}
		var texts, data []box
		for _, b := range rec.boxes {
			if b.kind == "data" {
				data = append(data, b)
			} else {
				texts = append(texts, b)
			}
		}
		require.Len(t, data, len(c.panels), tc.name)
		var top vg.Length // the top of the highest plot
		for _, d := range data {
			top = max(top, d.Max.Y)
		}
		for i, b := range texts {
			assert.True(t, inside(b.Rectangle, picture), "%s: %q outside the picture", tc.name, b.text)
			for _, o := range texts[i+1:] {
				assert.False(t, overlap(b.Rectangle, o.Rectangle), "%s: %q overlaps %q", tc.name, b.text, o.text)
			}
			switch b.kind {
			case "title", "legend":
				assert.Greater(t, b.Min.Y, top, "%s: %q not above the plots", tc.name, b.text)
			case "label":
				for _, d := range data {
					assert.Less(t, b.Max.X, d.Min.X, "%s: label %q reaches the plot", tc.name, b.text)
				}
			case "bar":
				in := false
				for _, d := range data {
					in = in || inside(b.Rectangle, d.Rectangle)
				}
				assert.True(t, in, "%s: bar text %q outside its plot", tc.name, b.text)
			}
		}
	}
}

func inside(r, in vg.Rectangle) bool {
	return r.Min.X >= in.Min.X && r.Min.Y >= in.Min.Y && r.Max.X <= in.Max.X && r.Max.Y <= in.Max.Y
}

func overlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func TestChartInMsWithoutSerialRows(t *testing.T) {
	// No zig-serial row: the chart shows milliseconds for every runtime.
	// go-closure-floor has no 2-thread row: its group has one bar.
	rows := []row{
		{runtime: "go-serial", workload: "fib", size: "32", threads: 1, ms: 15},
		{runtime: "go-closure-floor", workload: "fib", size: "32", threads: 1, ms: 150},
		{runtime: "go-spindle-call", workload: "fib", size: "32", threads: 1, ms: 74},
		{runtime: "go-spindle-call", workload: "fib", size: "32", threads: 2, ms: 41},
		{runtime: "zig-spawn", workload: "fib", size: "32", threads: 1, ms: 30},
		{runtime: "zig-spawn", workload: "fib", size: "32", threads: 2, ms: 16},
	}
	c, ok := newChart(rows, lookupFamily("fork"))
	require.True(t, ok)
	assert.False(t, c.ratio)
	assert.Equal(t, []string{"zig-spawn"}, c.noSerial)
	assert.Equal(t, []string{"go-spindle-call", "go-closure-floor", "zig-spawn"}, c.panels[0].runtimes)
	assert.True(t, math.IsNaN(c.panels[0].value[1][1]))

	svg, msg := drawn(t, rows, "fork")
	assert.Contains(t, msg, "ms (no serial row for zig-spawn)")
	for _, s := range []string{"zig-spawn", "Go closure allocations only", "best time in ms", "150 ms", "16 ms"} {
		assert.Contains(t, svg, s)
	}
	assert.NotContains(t, svg, "serial (= 1)")
}

func TestNothingToDraw(t *testing.T) {
	_, err := drawChart([]row{{runtime: "go-serial", workload: "fib", size: "32", threads: 1, ms: 15}}, lookupFamily("fork"), "", t.TempDir())
	assert.ErrorContains(t, err, "fork: no fib rows besides serial ones")
	_, err = drawChart(sampleRows(t), lookupFamily("nbody"), "", t.TempDir())
	assert.ErrorContains(t, err, "nbody: no nbody rows")
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

	labels = nil
	for _, tk := range logTicks(0.2, 21) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"0.2", "0.5", "1", "2", "5", "10", "20"}, labels, "2 and 5 on a short axis")

	labels = nil
	for _, tk := range logTicks(0.2, 150) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"0.2", "1", "10", "100"}, labels, "the axis' start, then powers of ten")

	assert.Equal(t, []float64{0.2, 1, 2, 5, 10}, []float64{roundDown(0.27), roundDown(1.5), roundDown(2.15), roundDown(9.9), roundDown(10)})

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
	assert.Equal(t, "fib(32)", fillN("fib({n})", "32"))
	assert.Equal(t, "over 10,000,000 items", fillN("over {n} items", "10000000"))
	assert.Equal(t, "uts (n=n)", fillN("uts (n={n})", ""))
}

func TestWrap(t *testing.T) {
	s := "Machine: 2 vCPUs, AMD EPYC, KVM guest, Linux 6.18; Go 1.26.8, Rust 1.95 with Rayon 1.6.1"
	lines := wrap(infoStyle, s, 200)
	require.Greater(t, len(lines), 1)
	assert.Equal(t, s, strings.Join(lines, " "))
	for _, l := range lines {
		assert.LessOrEqual(t, width(infoStyle, l), vg.Length(200), l)
	}
	assert.Equal(t, []string{"short"}, wrap(infoStyle, "short", 200))
}
