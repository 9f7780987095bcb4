package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// row is one measurement: a runtime on a workload at a thread count.
type row struct {
	runtime  string // "rust-rayon", "go-spindle-call", "go-serial", ...
	workload string // "fib", "quicksort"
	size     string // the workload's n ("32"), or "" when the row does not say
	threads  int
	ms       float64
	// failed says what the program found wrong with its result, for the
	// checks it reports rather than exiting on ("stable=NO(...)" gives
	// "not stable"), or "".
	failed string
}

// key identifies a measurement: the same key twice is the same thing
// measured twice.
type key struct {
	runtime, workload string
	threads           int
}

// readRows reads the rows of the fork-join peers in either of the two
// forms that ../shared/peers/run.sh prints, and ignores every other line
// (messages, headers, the table's footer, "#" comments), so that the
// outputs of several runs can be concatenated:
//
//	rust-rayon fib n=32 threads=2 ms=27.2 result=2178309 bg=0.01
//	rust-rayon       fib              2       27.2      3.86    0.01
//
// The first is a program's own row (run.sh adds bg=, bench/cmd/peers
// prints the same form without it); the second a row of run.sh's table,
// whose columns are runtime, workload, threads, ms, x_serial and bg_cpu.
// run.sh prints both for every measurement, the raw rows first, so the
// first row of a key wins and later ones are ignored. warnings lists the
// lines that looked like rows but could not be read, and the duplicates
// that disagree with the row kept.
//
// machine is the text after the first "machine:" line (run.sh prints the
// CPUs and kernel there), or "".
func readRows(r io.Reader) (rows []row, machine string, warnings []string, err error) {
	seen := make(map[key]int) // index in rows
	sc := bufio.NewScanner(r)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := strings.TrimSpace(sc.Text())
		if m, found := strings.CutPrefix(line, "machine:"); found {
			if machine == "" {
				machine = strings.TrimSpace(m)
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		rw, ok, perr := parseRow(line)
		if perr != nil {
			warnings = append(warnings, fmt.Sprintf("line %d: %v: %q", lineNo, perr, sc.Text()))
			continue
		}
		if !ok {
			continue
		}
		k := key{rw.runtime, rw.workload, rw.threads}
		if i, dup := seen[k]; dup {
			// The table repeats the raw row's ms, rounded to 0.1.
			if math.Abs(rows[i].ms-rw.ms) > 0.051 {
				warnings = append(warnings, fmt.Sprintf("line %d: %s %s at %d threads measured again (%.1f ms); keeping the first row (%.1f ms)",
					lineNo, rw.runtime, rw.workload, rw.threads, rw.ms, rows[i].ms))
			}
			continue
		}
		seen[k] = len(rows)
		rows = append(rows, rw)
	}
	return rows, machine, warnings, sc.Err()
}

// parseRow reads one line. ok is false for a line that is not a row
// (a header, a build message); err is set for a line in the raw form
// whose threads or ms cannot be read.
func parseRow(line string) (r row, ok bool, err error) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return row{}, false, nil
	}
	r.runtime, r.workload = f[0], f[1]

	// The table form: numbers in the third and fourth columns.
	if th, err := strconv.Atoi(f[2]); err == nil {
		ms, err := strconv.ParseFloat(f[3], 64)
		switch {
		case err != nil:
			return row{}, false, nil
		case th < 1:
			return row{}, false, fmt.Errorf("threads %d is not a positive integer", th)
		case !validMs(ms):
			return row{}, false, fmt.Errorf("ms %s is not a positive number", f[3])
		}
		r.threads, r.ms = th, ms
		return r, true, nil
	}

	// The raw form: key=value after the workload, and nothing else.
	kv := make(map[string]string)
	for _, field := range f[2:] {
		k, v, found := strings.Cut(field, "=")
		if !found {
			return row{}, false, nil
		}
		kv[k] = v
	}
	ths, okT := kv["threads"]
	mss, okM := kv["ms"]
	if !okT || !okM {
		return row{}, false, nil
	}
	if r.threads, err = strconv.Atoi(ths); err != nil || r.threads < 1 {
		return row{}, false, fmt.Errorf("threads=%q is not a positive integer", ths)
	}
	if r.ms, err = strconv.ParseFloat(mss, 64); err != nil || !validMs(r.ms) {
		return row{}, false, fmt.Errorf("ms=%q is not a positive number", mss)
	}
	r.size = kv["n"]
	for _, k := range []string{"sorted", "stable"} {
		if v, ok := kv[k]; ok && v != "ok" {
			r.failed = "not " + k
		}
	}
	return r, true, nil
}

func validMs(ms float64) bool { return ms > 0 && !math.IsInf(ms, 0) && !math.IsNaN(ms) }

// language returns the language prefix of a runtime's name ("rust" for
// "rust-rayon"), whose fastest "-serial" row is the runtime's baseline.
func language(runtime string) string {
	lang, _, _ := strings.Cut(runtime, "-")
	return lang
}

// isSerial says whether a runtime is a serial baseline of its language:
// "go-serial" and "go-spindle-serial" (a serial UTS search that allocates
// nothing, where the peers' Go serial search allocates every node) both
// are. A panel compares each language's rows with the fastest of its
// serial rows: the fair floor.
func isSerial(runtime string) bool { return strings.HasSuffix(runtime, "-serial") }
