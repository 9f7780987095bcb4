// Command chart draws the fork-join peers' results as SVG bar charts, one
// per workload: for each runtime a bar per thread count, showing its time
// over the serial time of its own language (what run.sh calls x_serial),
// or its time in milliseconds when a language has no serial row.
//
//	../shared/peers/run.sh | go run ./bench/cmd/chart -out-dir docs
//	go run ./bench/cmd/chart -in ../shared/peers/results/raw.txt -out-dir docs
//
// It reads the rows that the peer programs and bench/cmd/peers print,
//
//	go-spindle-call fib n=32 threads=2 ms=41.2 result=2178309
//
// and the rows of run.sh's table (runtime, workload, threads, ms, ...);
// every other line (build messages, versions, headers) is skipped, so the
// whole output of run.sh can be piped in. It writes peers-fib.svg and
// peers-quicksort.svg (by default; see -workloads). A chart whose values
// span more than a factor of 20 uses a log scale: fib's ratios go from
// about 3 to several hundred.
//
// Exit status: 1 if a workload has no row to draw or a file cannot be
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
	workloads := flag.String("workloads", "fib,quicksort", "comma-separated workloads to draw, one file peers-<workload>.svg each")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: chart [-in rows.txt] [-out-dir docs]\n\n")
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
	rows, warnings, err := readRows(r)
	if err != nil {
		fail(2, "reading %s: %v", *in, err)
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "chart: skipped", w)
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		fail(1, "%v", err)
	}

	status := 0
	for _, wl := range strings.Split(*workloads, ",") {
		msg, err := drawWorkload(rows, strings.TrimSpace(wl), *outDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "chart:", err)
			status = 1
			continue
		}
		fmt.Println(msg)
	}
	os.Exit(status)
}

// drawWorkload writes the chart of one workload to outDir/peers-<workload>.svg
// and says what it drew.
func drawWorkload(rows []row, workload, outDir string) (string, error) {
	c, ok := newChart(rows, workload)
	if !ok {
		return "", fmt.Errorf("no %s rows besides serial ones in the input; nothing to draw", workload)
	}
	var buf bytes.Buffer
	if err := c.writeSVG(&buf); err != nil {
		return "", fmt.Errorf("%s: %v", workload, err)
	}
	path := filepath.Join(outDir, "peers-"+workload+".svg")
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
	return fmt.Sprintf("wrote %s: %s, %s at %s, %s scale",
		path, what, plural(len(c.runtimes), "runtime"), threadList(c.threads), scale), nil
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
