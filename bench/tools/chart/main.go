// Command chart draws the fork-join peers' results as SVG bar charts, one
// per workload family, from one table that holds every workload:
//
//	chart-fork.svg       fib: the cost of a fork (log scale)
//	chart-quicksort.svg  quicksort
//	chart-uts.svg        Unbalanced Tree Search, trees T1 and T3, a panel each
//	chart-iters.svg      filter, find-first, map-sum, sort-stable, a panel each
//
// Each panel has a group of horizontal bars per runtime, a bar per thread
// count, showing its time over the serial time of its own language (what
// run.sh calls x_serial), or its time in milliseconds when a language has
// no serial row. The panels of a chart share their value axis, which is
// logarithmic when the values span more than a factor of 20 (fib's ratios
// go from about 2 to several hundred). The title names the workloads and
// the machine, the legend has a line of its own under it, and the row
// labels a column sized to the longest.
//
//	../shared/peers/run.sh | go run ./bench/tools/chart -out-dir docs
//	go run ./bench/tools/chart -in run.txt -machine "2 vCPUs, AMD EPYC, Linux 6.18" -out-dir docs
//	go run ./bench/tools/chart -in docs/runs/peers-fib-quicksort-2026-11-23.txt -charts fork,quicksort
//
// It reads the rows that the peer programs and bench/cmd/peers print,
//
//	go-spindle-call fib n=32 threads=2 ms=41.2 result=2178309
//
// and the rows of run.sh's table (runtime, workload, threads, ms, ...);
// every other line (build messages, versions, headers, the table's footer,
// "#" comments) is skipped, so the whole output of run.sh can be piped in,
// and the outputs of several runs concatenated. A measurement read twice
// keeps its first value, with a warning if the second differs. The
// machine line of the titles is -machine, or else what follows the
// input's first "machine:" line.
//
// -charts names the charts to draw: fork, quicksort, uts, iters, or any
// workload's name for a chart of that workload alone (chart-<name>.svg).
// The SVG text is laid out with the metrics of Liberation Sans and asks
// for it or Arial, with room for a somewhat wider fallback font. To look
// at a chart as a picture: rsvg-convert -z 1.5 docs/chart-fork.svg -o
// /tmp/chart-fork.png (Debian package librsvg2-bin).
//
// Exit status: 1 if a chart has no row to draw or a file cannot be
// written, 2 for a bad flag or an unreadable input.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	in := flag.String("in", "-", "file of peer rows, - for stdin")
	outDir := flag.String("out-dir", "docs", "directory for the SVG files (created if missing)")
	charts := flag.String("charts", familyNames(), "comma-separated charts to draw (families, or workloads), one file chart-<name>.svg each")
	machine := flag.String("machine", "", `the machine, for the titles (default: the input's "machine:" line)`)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: chart [-in rows.txt] [-out-dir docs] [-charts fork,...] [-machine text]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		fail(2, "unexpected argument %q (give the input with -in)", flag.Arg(0))
	}

	var r io.Reader = os.Stdin
	if *in != "-" {
		f, err := os.Open(*in)
		if err != nil {
			fail(2, "%v", err)
		}
		defer f.Close()
		r = f
	}
	rows, inputMachine, warnings, err := readRows(r)
	if err != nil {
		fail(2, "reading %s: %v", *in, err)
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "chart: skipped", w)
	}
	if *machine == "" {
		*machine = inputMachine
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		fail(1, "%v", err)
	}

	status := 0
	for _, name := range strings.Split(*charts, ",") {
		msg, err := drawChart(rows, lookupFamily(strings.TrimSpace(name)), *machine, *outDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "chart:", err)
			status = 1
			continue
		}
		fmt.Println(msg)
	}
	os.Exit(status)
}

// drawChart writes the chart of a family to outDir/chart-<name>.svg and
// says what it drew.
func drawChart(rows []row, f family, machine, outDir string) (string, error) {
	var workloads []string
	for _, p := range f.panels {
		workloads = append(workloads, p.workload)
	}
	c, ok := newChart(rows, f)
	if !ok {
		return "", fmt.Errorf("%s: no %s rows besides serial ones in the input; nothing to draw",
			f.name, strings.Join(workloads, ", "))
	}
	c.machine = machine
	var buf bytes.Buffer
	if err := c.writeSVG(&buf); err != nil {
		return "", fmt.Errorf("%s: %v", f.name, err)
	}
	path := filepath.Join(outDir, "chart-"+f.name+".svg")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	what := "x serial"
	if !c.ratio {
		what = fmt.Sprintf("ms (no serial row for %s)", strings.Join(c.noSerial, ", "))
	}
	scale := "linear"
	if c.logScale() {
		scale = "log"
	}
	var panels []string
	for _, p := range c.panels {
		panels = append(panels, fmt.Sprintf("%s (%s)", p.workload, plural(len(p.runtimes), "runtime")))
	}
	msg := fmt.Sprintf("wrote %s: %s, %s at %s, %s scale",
		path, strings.Join(panels, ", "), what, threadList(c.threads), scale)
	if len(c.missing) > 0 {
		msg += fmt.Sprintf("; no rows for %s", strings.Join(c.missing, ", "))
	}
	return msg, nil
}

func threadList(ts []int) string {
	var s []string
	for _, t := range ts {
		s = append(s, fmt.Sprint(t))
	}
	return strings.Join(s, ", ") + " threads"
}

func fail(status int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "chart: "+format+"\n", args...)
	os.Exit(status)
}
