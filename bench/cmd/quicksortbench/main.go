// Command quicksortbench sorts 10 million int64 values serially, with
// spindle (forkjoin.Do at every partition) on pools of 1 to N workers, and
// with a goroutine per fork, checks every result and prints the median
// times and their ratio to the serial time.
//
//	go run ./bench/cmd/quicksortbench [-n 10000000] [-cutoff 32] [-workers N] [-reps 3]
//
// The workload is the fork-join peers' quicksort (see package bench):
// xorshift64 input, median-of-three Hoare partition, insertion sort below
// the cutoff, both halves forked. examples/quicksort shows the same fork,
// and forkjoin.Sort, in a screen of code, without the table.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spindle-go/spindle/bench"
	"github.com/spindle-go/spindle/pool"
)

func main() {
	// GOMAXPROCS is sized here, in the command, never in spindle itself:
	// see bench.SizeGOMAXPROCS for why and how.
	procsNote := bench.SizeGOMAXPROCS()

	n := flag.Int("n", 10_000_000, "number of int64 values to sort")
	cutoff := flag.Int("cutoff", bench.DefaultCutoff, "insertion-sort ranges shorter than this (at least 3)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "time spindle pools of 1 to this many workers")
	reps := flag.Int("reps", 3, "timed runs per row; the median is reported")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: quicksortbench [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	switch {
	case flag.NArg() > 0:
		usageError("unexpected argument %q", flag.Arg(0))
	case *n < 0:
		usageError("-n %d: want at least 0", *n)
	case *cutoff < bench.MinCutoff:
		usageError("-cutoff %d: want at least %d (partition needs 3 elements)", *cutoff, bench.MinCutoff)
	case *workers < 1:
		usageError("-workers %d: want at least 1", *workers)
	case *reps < 1:
		usageError("-reps %d: want at least 1", *reps)
	}

	// Reject a worker count that pool.New refuses before spending time on
	// the serial run.
	if p, err := pool.New(pool.WithWorkers(*workers)); err != nil {
		usageError("-workers %d: %v", *workers, err)
	} else {
		p.Close()
	}

	fmt.Printf("quicksort of %d int64 (xorshift64), cutoff %d, median of %s\n", *n, *cutoff, plural(*reps, "run"))
	fmt.Printf("machine: %s\n", bench.Machine())
	fmt.Printf("GOMAXPROCS is sized by go.uber.org/automaxprocs: %s\n\n", procsNote)

	s := make([]int64, *n)
	var sum int64
	measure := func(name string, sort func()) time.Duration {
		t, err := bench.Time(0, *reps,
			func() { sum = bench.Fill(s) },
			sort,
			func() error { return bench.Check(s, sum) })
		if err != nil {
			fmt.Fprintf(os.Stderr, "quicksortbench: %s: wrong result: %v\n", name, err)
			os.Exit(1)
		}
		return bench.Median(t)
	}

	tab := bench.NewTable(os.Stdout)
	tab.Serial(measure("serial", func() { bench.QuicksortSerial(s, *cutoff) }))

	for k := 1; k <= *workers; k++ {
		p, err := pool.New(pool.WithWorkers(k))
		if err != nil {
			fmt.Fprintln(os.Stderr, "quicksortbench:", err)
			os.Exit(1)
		}
		d := measure(fmt.Sprintf("spindle, %s", plural(k, "worker")), func() {
			p.Run(func() { bench.QuicksortDo(s, *cutoff) })
		})
		if err := p.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "quicksortbench:", err)
			os.Exit(1)
		}
		tab.Add("spindle forkjoin.Do", plural(k, "worker"), d)
	}

	d := measure("goroutine per fork", func() { bench.QuicksortWaitGroup(s, *cutoff) })
	tab.Add("goroutine per fork", fmt.Sprintf("GOMAXPROCS=%d", runtime.GOMAXPROCS(0)), d)
	tab.Footer()
	fmt.Println("The first partition, of the whole array, is sequential, so no row reaches")
	fmt.Println("a full N-fold speed-up.")
}

func usageError(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "quicksortbench: "+format+"\n", args...)
	fmt.Fprintln(os.Stderr, "run 'quicksortbench -h' for the flags")
	os.Exit(2)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
