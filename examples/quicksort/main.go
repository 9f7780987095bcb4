// Command quicksort sorts n random ints on a spindle pool twice: with a
// short quicksort that forks both sides of every partition with
// forkjoin.Do, and with the library's forkjoin.Sort, in one line. It times
// both against slices.Sort on the calling goroutine.
//
//	go run ./examples/quicksort [-n 10000000] [-workers N] [-compare=false]
//
// It prints one line per sort, slices.Sort first (unless -compare=false),
// each spindle sort's time also as a multiple of the serial time (below 1
// is faster); every sort gets a copy of the same input.
//
// On random ints the quicksort here does less work than forkjoin.Sort
// (BenchmarkSorts times both on one worker). Its pivot, the middle
// element, is a random one on such input and splits the pieces less evenly
// than forkjoin.Sort's median of medians; but the more even a split, the
// more often the partition's loops mispredict their branches, and that
// costs more than the extra levels of partitioning the uneven splits cause
// (BenchmarkPartition times a partition around pivots of several ranks).
// Its scans also make one comparison per element, where forkjoin.Sort's
// also compare the two indexes. forkjoin.Sort is still the one to use: its
// pivots make sorted, reversed and organ-pipe inputs split well, it leaves
// sorted pieces alone, and a depth budget keeps any input from making it
// quadratic, as some inputs make this quicksort. For a table against
// serial code and goroutines on 1 to N workers, see
// ./bench/cmd/quicksortbench.
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// cutoff is the length below which quicksort sorts serially: a fork costs
// far less than sorting a thousand ints, so forks stay a small overhead.
const cutoff = 1000

// quicksort sorts s in place: it partitions s, then sorts both sides,
// possibly in parallel, with forkjoin.Do. quicksort is a plain function, so
// forkjoin.Do copies it and the slice into a record the worker reuses, and
// a fork allocates nothing.
func quicksort(s []int) {
	if len(s) < cutoff {
		slices.Sort(s)
		return
	}
	p := partition(s)
	forkjoin.Do(quicksort, s[:p], s[p:])
}

// partition is Hoare's: it reorders s (len(s) >= 2) around its middle
// element and returns p, 0 < p < len(s), such that no element of s[:p] is
// greater than any element of s[p:].
func partition(s []int) int {
	pivot := s[(len(s)-1)/2]
	i, j := -1, len(s)
	for {
		for i++; s[i] < pivot; i++ {
		}
		for j--; s[j] > pivot; j-- {
		}
		if i >= j {
			return j + 1
		}
		s[i], s[j] = s[j], s[i]
	}
}

func main() {
	// No GOMAXPROCS sizing here: Go sizes it from the container's CPU
	// limit and keeps it current, and the pools follow it; setting it
	// (automaxprocs does) would switch those updates off.
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("quicksort", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 10_000_000, "number of ints to sort")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "workers of the pool")
	compare := fs.Bool("compare", true, "also time slices.Sort and print each time's ratio to it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage(stderr, "unexpected argument %q", fs.Arg(0))
	case *n < 0:
		return usage(stderr, "-n %d: want at least 0", *n)
	case *workers < 1:
		return usage(stderr, "-workers %d: want at least 1", *workers)
	}

	p, err := pool.New(pool.WithWorkers(*workers))
	if err != nil {
		return usage(stderr, "-workers %d: %v", *workers, err)
	}
	defer p.Close()
	fmt.Fprintf(stdout, "%d random ints, workers %d, GOMAXPROCS %d:\n", *n, p.Workers(), runtime.GOMAXPROCS(0))

	input := random(*n)
	s := make([]int, *n)
	status := 0
	// sort times one sort of a copy of input and prints its line.
	sort := func(name string, sort func([]int), serial time.Duration) time.Duration {
		copy(s, input)
		start := time.Now()
		sort(s)
		d := time.Since(start)
		fmt.Fprintf(stdout, "  %-24s %8.1f ms", name, float64(d.Microseconds())/1000)
		if serial > 0 {
			fmt.Fprintf(stdout, "  %.2fx serial", float64(d)/float64(serial))
		}
		fmt.Fprintln(stdout)
		if !slices.IsSorted(s) {
			fmt.Fprintf(stderr, "quicksort: %s left the ints unsorted\n", name)
			status = 1
		}
		return d
	}
	var serial time.Duration
	if *compare {
		serial = sort("slices.Sort (serial)", slices.Sort, 0)
	}
	// p.Run runs a function on a worker of p, so the forks inside it go to
	// p. (Called from main, forkjoin would use pool.Default().)
	sort("quicksort (forkjoin.Do)", func(s []int) { p.Run(func() { quicksort(s) }) }, serial)
	sort("forkjoin.Sort", func(s []int) { p.Run(func() { forkjoin.Sort(s) }) }, serial)
	return status
}

func usage(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "quicksort: "+format+"\n", args...)
	return 2
}

// random returns n pseudo-random ints, the same ones at every call.
func random(n int) []int {
	r := rand.New(rand.NewPCG(1, 2))
	s := make([]int, n)
	for i := range s {
		s[i] = r.Int()
	}
	return s
}
