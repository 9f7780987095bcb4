// Command dupfind finds files with the same contents under a directory:
// the I/O-bound application of the BWoS work-stealing study
// (fsFindDuplicate), written with spindle's pool.Scope.
//
//	go run ./examples/dupfind [-root .] [-workers N] [-serial | -compare]
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
// -serial runs the same search on the calling goroutine, each task as
// soon as it is spawned; -compare runs both, after one untimed run that
// warms the page cache, checks that they agree and prints both times and
// their ratio. On a warm cache reading is copying and hashing, CPU work
// that the workers share; on a cold disk a worker waits for each read,
// and more workers than cores keep more reads in flight.
//
// GOMAXPROCS is sized with go.uber.org/automaxprocs and the output says
// what it decided.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"go.uber.org/automaxprocs/maxprocs"

	"github.com/spindle-go/spindle/pool"
)

func main() { os.Exit(run()) }

// run is the command; it returns the exit status, so that its deferred
// calls run before the process exits.
func run() int {
	// GOMAXPROCS is sized here, in the command, never in spindle itself:
	// a library must not change a process-wide setting behind its user's
	// back. automaxprocs lowers it to the container's CPU quota, if any.
	procsNote := sizeGOMAXPROCS()

	root := flag.String("root", ".", "directory to search")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "workers of the spindle pool")
	serial := flag.Bool("serial", false, "search serially, on one goroutine, instead of with spindle")
	compare := flag.Bool("compare", false, "search both ways, check that they agree and print both times")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: dupfind [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	switch {
	case flag.NArg() > 0:
		usageError("unexpected argument %q (give the directory with -root)", flag.Arg(0))
	case *workers < 1:
		usageError("-workers %d: want at least 1", *workers)
	case *serial && *compare:
		usageError("-serial and -compare exclude each other")
	}
	if err := checkRoot(*root); err != nil {
		usageError("-root: %v", err)
	}

	fmt.Printf("GOMAXPROCS=%d, sized by go.uber.org/automaxprocs: %s\n", runtime.GOMAXPROCS(0), procsNote)
	var p *pool.Pool
	if !*serial {
		var err error
		if p, err = pool.New(pool.WithWorkers(*workers)); err != nil {
			usageError("-workers %d: %v", *workers, err)
		}
		defer p.Close()
	}
	parallel := func() result { return findParallel(p, osFS{}, *root) }
	onOne := func() result { return findSerial(osFS{}, *root) }
	spindle := fmt.Sprintf("spindle, %s", plural(*workers, "worker"))

	var r result
	status := 0
	switch {
	case *serial:
		var d time.Duration
		r, d = timed(onOne)
		fmt.Printf("serial search of %s: %s\n\n", *root, formatMs(d))
	case *compare:
		parallel() // warms the page cache and the pool
		rs, ds := timed(onOne)
		var dp time.Duration
		r, dp = timed(parallel)
		fmt.Printf("search of %s after one untimed warm-up run:\n", *root)
		fmt.Printf("  %-20s %s\n", "serial", formatMs(ds))
		fmt.Printf("  %-20s %s\n", spindle, formatMs(dp))
		fmt.Printf("  %-20s %.2f (spindle / serial, lower is better)\n\n", "ratio", float64(dp)/float64(ds))
		if !sameFindings(r, rs) {
			// The tree changed between the runs, or there is a bug.
			fmt.Fprintln(os.Stderr, "dupfind: the serial and the parallel search found different things; was the tree changing?")
			status = 1
		}
	default:
		var d time.Duration
		r, d = timed(parallel)
		fmt.Printf("search of %s with %s: %s\n\n", *root, spindle, formatMs(d))
	}

	printSummary(os.Stdout, r)
	fmt.Println()
	printGroups(os.Stdout, r)
	printProblems(os.Stderr, r)
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

func formatMs(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

// sizeGOMAXPROCS sizes GOMAXPROCS with automaxprocs and returns what it
// decided, for the output's header.
func sizeGOMAXPROCS() string {
	var note string
	if _, err := maxprocs.Set(maxprocs.Logger(func(format string, args ...any) {
		note = fmt.Sprintf(format, args...)
	})); err != nil {
		note = "maxprocs: " + err.Error()
	}
	return note
}

func usageError(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "dupfind: "+format+"\n", args...)
	fmt.Fprintln(os.Stderr, "run 'dupfind -h' for the flags")
	os.Exit(2)
}
