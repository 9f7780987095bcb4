// Command dupfind finds files with the same contents under a directory:
// the I/O-bound application of the BWoS work-stealing study
// (fsFindDuplicate), written with spindle's pool.Scope.
//
//	go run ./examples/dupfind [-root .] [-workers N] [-compare=false | -serial]
//
// One task lists each directory and spawns a task for each of its
// subdirectories on the same scope, so the walk spreads over the workers
// as the tree unfolds. Files are grouped by size first: a file whose size
// no other file has cannot have a duplicate and is never opened. As soon
// as a second file of some size turns up, both are read and hashed
// (SHA-256), each in a task of its own, while the walk goes on; files of
// one size with the same digest form a group of duplicates. The scope
// returns when the last task has finished.
//
// Symlinks are not followed (a link to a parent would loop) and pipes,
// sockets and devices are never opened (opening a pipe can block
// forever); both are counted. A directory that cannot be listed or a file
// that cannot be read is reported on stderr, with a count in the summary,
// and the exit status is then 1. The root itself may be a symlink to a
// directory. Groups are printed largest files first, paths sorted, so the
// output does not depend on the schedule.
//
// By default it runs the search twice after one untimed run that warms
// the page cache: serially, on the calling goroutine, each task as soon
// as it is spawned, then with spindle. It checks that they agree and
// prints one line per search, the spindle search's time also as a
// multiple of the serial time (below 1 is faster). -compare=false runs
// the spindle search alone, -serial the serial one alone, neither with a
// warm-up. On a warm cache reading is copying and hashing, CPU work that
// the workers share; on a cold disk a worker waits for each read, and
// more workers than cores keep more reads in flight.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/spindle-go/spindle/pool"
)

func main() {
	// No GOMAXPROCS sizing here: Go sizes it from the container's CPU
	// limit and keeps it current, and the pools follow it; setting it
	// (automaxprocs does) would switch those updates off.
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command; it returns the exit status, so that its deferred
// calls run before the process exits.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dupfind", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "directory to search")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "workers of the spindle pool")
	compare := fs.Bool("compare", true, "also search serially, check that both searches agree and print both times")
	serial := fs.Bool("serial", false, "search serially, on one goroutine, instead of with spindle")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: dupfind [flags]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	compareSet := false
	fs.Visit(func(f *flag.Flag) { compareSet = compareSet || f.Name == "compare" })
	switch {
	case fs.NArg() > 0:
		return usageError(stderr, "unexpected argument %q (give the directory with -root)", fs.Arg(0))
	case *workers < 1:
		return usageError(stderr, "-workers %d: want at least 1", *workers)
	case *serial && compareSet && *compare:
		return usageError(stderr, "-serial and -compare exclude each other")
	case *serial:
		*compare = false
	}
	if err := checkRoot(*root); err != nil {
		return usageError(stderr, "-root: %v", err)
	}

	var p *pool.Pool
	if !*serial {
		var err error
		if p, err = pool.New(pool.WithWorkers(*workers)); err != nil {
			return usageError(stderr, "-workers %d: %v", *workers, err)
		}
		defer p.Close()
	}
	parallel := func() result { return findParallel(p, osFS{}, *root) }
	onOne := func() result { return findSerial(osFS{}, *root) }

	var r result
	status := 0
	switch {
	case *serial:
		fmt.Fprintf(stdout, "search of %s, GOMAXPROCS %d:\n", *root, runtime.GOMAXPROCS(0))
		var d time.Duration
		r, d = timed(onOne)
		row(stdout, "serial", d, 0)
	case *compare:
		fmt.Fprintf(stdout, "search of %s, workers %d, GOMAXPROCS %d, after one untimed warm-up run:\n",
			*root, p.Workers(), runtime.GOMAXPROCS(0))
		parallel() // warms the page cache and the pool
		rs, ds := timed(onOne)
		row(stdout, "serial", ds, 0)
		var dp time.Duration
		r, dp = timed(parallel)
		row(stdout, "spindle", dp, ds)
		if !sameFindings(r, rs) {
			// The tree changed between the runs, or there is a bug.
			fmt.Fprintln(stderr, "dupfind: the serial and the parallel search found different things; was the tree changing?")
			status = 1
		}
	default:
		fmt.Fprintf(stdout, "search of %s, workers %d, GOMAXPROCS %d:\n", *root, p.Workers(), runtime.GOMAXPROCS(0))
		var d time.Duration
		r, d = timed(parallel)
		row(stdout, "spindle", d, 0)
	}

	fmt.Fprintln(stdout)
	printSummary(stdout, r)
	fmt.Fprintln(stdout)
	printGroups(stdout, r)
	printProblems(stderr, r)
	if len(r.Problems) > 0 {
		status = 1
	}
	return status
}

func timed(find func() result) (result, time.Duration) {
	start := time.Now()
	r := find()
	return r, time.Since(start)
}

// row prints a search's time and, if serial > 0, the time as a multiple
// of serial.
func row(w io.Writer, name string, d, serial time.Duration) {
	fmt.Fprintf(w, "  %-8s %8.1f ms", name, float64(d.Microseconds())/1000)
	if serial > 0 {
		fmt.Fprintf(w, "  %.2fx serial", float64(d)/float64(serial))
	}
	fmt.Fprintln(w)
}

func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "dupfind: "+format+"\n", args...)
	fmt.Fprintln(stderr, "run 'dupfind -h' for the flags")
	return 2
}
