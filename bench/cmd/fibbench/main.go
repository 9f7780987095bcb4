// Command fibbench computes fib(n) by double recursion with a fork at
// every level: serially, with spindle's forkjoin.Call and pool.Join on
// pools of 1 to N workers, and with a goroutine and a sync.WaitGroup per
// fork. It checks every result and prints the median times and their ratio
// to the serial time. With no sequential cutoff each fork guards a single
// add, so the table shows what a fork costs.
//
//	go run ./bench/cmd/fibbench [-n 32] [-workers N] [-reps 3]
//
// examples/fib shows the same two forks in a screen of code, without the
// table.
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

// maxN keeps a typo from starting a run of hours: fib(n) makes about
// 1.6^n forks.
const maxN = 50

func main() {
	// GOMAXPROCS is sized here, in the command, never in spindle itself:
	// see bench.SizeGOMAXPROCS for why and how.
	procsNote := bench.SizeGOMAXPROCS()

	n := flag.Int("n", 32, fmt.Sprintf("compute fib(n), 0 <= n <= %d", maxN))
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "time spindle pools of 1 to this many workers")
	reps := flag.Int("reps", 3, "timed runs per row; the median is reported")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: fibbench [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	switch {
	case flag.NArg() > 0:
		usageError("unexpected argument %q", flag.Arg(0))
	case *n < 0 || *n > maxN:
		usageError("-n %d: want 0 to %d", *n, maxN)
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

	want := bench.FibExpected(*n)
	fmt.Printf("fib(%d) = %d with a fork at every level (%d forks), median of %s\n",
		*n, want, bench.FibForks(*n), plural(*reps, "run"))
	fmt.Printf("machine: %s\n", bench.Machine())
	fmt.Printf("GOMAXPROCS is sized by go.uber.org/automaxprocs: %s\n\n", procsNote)

	measure := func(name string, fib func() int64) time.Duration {
		var got int64
		t, err := bench.Time(0, *reps, nil,
			func() { got = fib() },
			func() error {
				if got != want {
					return fmt.Errorf("got %d, want %d", got, want)
				}
				return nil
			})
		if err != nil {
			fmt.Fprintf(os.Stderr, "fibbench: %s: wrong result: %v\n", name, err)
			os.Exit(1)
		}
		return bench.Median(t)
	}

	tab := bench.NewTable(os.Stdout)
	tab.Serial(measure("serial", func() int64 { return bench.FibSerial(*n) }))

	kernels := []struct {
		name string
		fib  func(int) int64
	}{
		{"spindle forkjoin.Call", bench.FibCall},
		{"spindle pool.Join", bench.FibJoin},
	}
	for k := 1; k <= *workers; k++ {
		p, err := pool.New(pool.WithWorkers(k))
		if err != nil {
			fmt.Fprintln(os.Stderr, "fibbench:", err)
			os.Exit(1)
		}
		for _, kr := range kernels {
			d := measure(fmt.Sprintf("%s, %s", kr.name, plural(k, "worker")), func() int64 {
				var r int64
				p.Run(func() { r = kr.fib(*n) })
				return r
			})
			tab.Add(kr.name, plural(k, "worker"), d)
		}
		if err := p.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "fibbench:", err)
			os.Exit(1)
		}
	}

	d := measure("goroutine per fork", func() int64 { return bench.FibWaitGroup(*n) })
	tab.Add("goroutine + WaitGroup", fmt.Sprintf("GOMAXPROCS=%d", runtime.GOMAXPROCS(0)), d)
	tab.Footer()
}

func usageError(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fibbench: "+format+"\n", args...)
	fmt.Fprintln(os.Stderr, "run 'fibbench -h' for the flags")
	os.Exit(2)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
