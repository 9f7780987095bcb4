// Command fib computes fib(n) by double recursion, forking at every level,
// in spindle's two ways: forkjoin.Call, a typed fork that allocates
// nothing, and pool.Join, a fork of two closures; then as real code would,
// with forkjoin.Call above a cutoff and the plain recursion below it. It
// times each against the plain recursion on the calling goroutine.
//
//	go run ./examples/fib [-n 32] [-workers N] [-compare=false]
//
// It prints one line per run: the serial recursion first (unless
// -compare=false), then each spindle version with its time as a multiple
// of the serial time (below 1 is faster), and last the result. With a
// fork at every level each fork guards a single add, so those times are
// mostly the cost of the forks, well above the serial time; with the
// cutoff, each fork guards thousands of calls and the forks cost next to
// nothing. For a table against serial code and goroutines on 1 to N
// workers, see ./bench/cmd/fibbench.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// fibSerial is the recursion without forks: the baseline.
func fibSerial(n int) int {
	if n < 2 {
		return n
	}
	return fibSerial(n-1) + fibSerial(n-2)
}

// fibCall forks with forkjoin.Call, which returns fibCall(n-1) and
// fibCall(n-2), computed possibly in parallel. The function and its second
// argument are copied into a record that the worker reuses, so a fork
// allocates nothing.
func fibCall(n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Call(fibCall, n-1, n-2)
	return a + b
}

// cutoff is the n below which fibCutoff recurses serially: fib(cutoff)
// makes tens of thousands of calls, next to which a fork is cheap, and
// fib(32) still forks hundreds of times, enough to keep the workers busy.
const cutoff = 20

// fibCutoff is fibCall with the plain recursion below the cutoff.
func fibCutoff(n int) int {
	if n < cutoff {
		return fibSerial(n)
	}
	a, b := forkjoin.Call(fibCutoff, n-1, n-2)
	return a + b
}

// fibJoin forks with pool.Join, which runs two closures, possibly in
// parallel. The second closure, which another worker may run, and the b it
// writes are allocated on the heap at every fork.
func fibJoin(n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	pool.Join(func() { a = fibJoin(n - 1) }, func() { b = fibJoin(n - 2) })
	return a + b
}

func main() {
	// No GOMAXPROCS sizing here: Go sizes it from the container's CPU
	// limit and keeps it current, and the pools follow it; setting it
	// (automaxprocs does) would switch those updates off.
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fib", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 32, "compute fib(n)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "workers of the pool")
	compare := fs.Bool("compare", true, "also time the serial recursion and print each time's ratio to it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage(stderr, "unexpected argument %q", fs.Arg(0))
	case *n < 0 || *n > 50:
		return usage(stderr, "-n %d: want 0 to 50", *n)
	case *workers < 1:
		return usage(stderr, "-workers %d: want at least 1", *workers)
	}

	p, err := pool.New(pool.WithWorkers(*workers))
	if err != nil {
		return usage(stderr, "-workers %d: %v", *workers, err)
	}
	defer p.Close()
	fmt.Fprintf(stdout, "fib(%d), workers %d, GOMAXPROCS %d:\n", *n, p.Workers(), runtime.GOMAXPROCS(0))

	var serial time.Duration
	results := map[int]bool{}
	if *compare {
		var r int
		serial = timed(func() { r = fibSerial(*n) })
		row(stdout, "serial", serial, 0)
		results[r] = true
	}
	// p.Run runs a function on a worker of p, so the forks inside it go to
	// p. (Called from main, forkjoin.Call would use pool.Default(), and
	// pool.Join would run its first half on main.)
	for _, v := range []struct {
		name string
		fib  func(int) int
	}{
		{"forkjoin.Call", fibCall},
		{"pool.Join", fibJoin},
		{fmt.Sprintf("forkjoin.Call, serial below fib(%d)", cutoff), fibCutoff},
	} {
		var r int
		d := timed(func() { p.Run(func() { r = v.fib(*n) }) })
		row(stdout, v.name, d, serial)
		results[r] = true
	}
	for r := range results {
		fmt.Fprintf(stdout, "fib(%d) = %d\n", *n, r)
	}
	if len(results) > 1 {
		fmt.Fprintln(stderr, "fib: the runs disagree")
		return 1
	}
	return 0
}

// timed returns how long f took.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// row prints a run's name and time and, if serial > 0, the time as a
// multiple of serial.
func row(w io.Writer, name string, d, serial time.Duration) {
	fmt.Fprintf(w, "  %-36s %8.1f ms", name, float64(d.Microseconds())/1000)
	if serial > 0 {
		fmt.Fprintf(w, "  %.2fx serial", float64(d)/float64(serial))
	}
	fmt.Fprintln(w)
}

func usage(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "fib: "+format+"\n", args...)
	return 2
}
