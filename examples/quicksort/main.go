// Command quicksort sorts n random ints twice on a spindle pool: with a
// short quicksort that forks both sides of every partition with
// forkjoin.Do, and with the library's forkjoin.Sort, in one line.
//
//	go run ./examples/quicksort [-n 10000000] [-workers N]
//
// On random input the two take about the same time. The quicksort here
// shows the fork; forkjoin.Sort is the one to use: its pivots are better
// (a median of medians), it leaves sorted pieces alone, and a depth budget
// keeps any input from making it quadratic, as some inputs make this
// quicksort. For a table against serial code and goroutines on 1 to N
// workers, see ./bench/cmd/quicksortbench.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"go.uber.org/automaxprocs/maxprocs"

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
	// A program, unlike a library, may set GOMAXPROCS: automaxprocs lowers
	// it to the container's CPU quota, if any, and logs what it did.
	if _, err := maxprocs.Set(maxprocs.Logger(log.Printf)); err != nil {
		log.Print(err)
	}
	n := flag.Int("n", 10_000_000, "number of ints to sort")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "workers of the pool")
	flag.Parse()

	p, err := pool.New(pool.WithWorkers(*workers))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	fmt.Printf("a pool of %d workers\n", p.Workers())

	// p.Run runs a function on a worker of p, so the forks inside it go to
	// p. (Called from main, forkjoin would use pool.Default().)
	s := random(*n)
	start := time.Now()
	p.Run(func() { quicksort(s) })
	fmt.Printf("quicksort     %d ints in %v, sorted: %t\n", len(s), time.Since(start), slices.IsSorted(s))

	s = random(*n)
	start = time.Now()
	p.Run(func() { forkjoin.Sort(s) })
	fmt.Printf("forkjoin.Sort %d ints in %v, sorted: %t\n", len(s), time.Since(start), slices.IsSorted(s))
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
