// Command wordcount counts the words of a generated text into a map, with
// a serial loop and with forkjoin.Fold, checks that the counts agree, and
// prints both times and their ratio. It also times the floor of any
// parallel count on the machine: the text cut into as many parts as there
// are workers, each counted on a goroutine locked to its thread into a map
// of its own, and the maps merged; no pool does less.
//
//	go run ./examples/wordcount [-mb 50] [-vocab 200000] [-workers N] [-rounds 3]
//
// Fold cuts the text into pieces of at least 256 KiB; each run of pieces
// that one worker folds in order counts into a map of its own, and the
// maps are merged left to right. Words cut by a piece's boundary belong to
// the piece where they begin. The times are the best of -rounds runs of each, alternated.
package main

import (
	"flag"
	"fmt"
	"log"
	"maps"
	"math"
	"runtime"
	"time"

	"github.com/spindle-go/spindle/pool"
)

func main() {
	mb := flag.Int("mb", 50, "megabytes of text")
	vocab := flag.Int("vocab", 200_000, "distinct words the text is drawn from")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "workers of the pool")
	rounds := flag.Int("rounds", 3, "runs of each count; the best is printed")
	flag.Parse()
	if *mb < 1 || *vocab < 2 || *workers < 1 || *rounds < 1 {
		log.Fatal("wordcount: -mb, -workers and -rounds must be at least 1, -vocab at least 2")
	}

	text := generate(*mb<<20, *vocab, 1)
	p, err := pool.New(pool.WithWorkers(*workers))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	var serial, parallel, floor map[string]int
	best := bestAlternated(*rounds,
		func() { serial = countSerial(text) },
		func() { p.Run(func() { parallel = countParallel(text) }) },
		func() { floor = countThreads(text, *workers) })
	serialTime, parallelTime, floorTime := best[0], best[1], best[2]
	if !maps.Equal(serial, parallel) || !maps.Equal(serial, floor) {
		log.Fatal("wordcount: the parallel counts differ from the serial ones")
	}

	words := 0
	for _, n := range serial {
		words += n
	}
	fmt.Printf("%d MB, %d words, %d distinct, %d workers\n", *mb, words, len(serial), p.Workers())
	fmt.Printf("serial %.1f ms, spindle %.1f ms, ratio %.2f\n",
		ms(serialTime), ms(parallelTime), parallelTime.Seconds()/serialTime.Seconds())
	fmt.Printf("floor: %d parts on %d threads and their merge %.1f ms, ratio %.2f\n",
		*workers, *workers, ms(floorTime), floorTime.Seconds()/serialTime.Seconds())
}

// bestAlternated runs each of fs in turn, rounds times each, and returns
// the shortest time of each: alternating spreads the machine's changes of
// load over all of them.
func bestAlternated(rounds int, fs ...func()) []time.Duration {
	best := make([]time.Duration, len(fs))
	for i := range best {
		best[i] = time.Duration(math.MaxInt64)
	}
	for range rounds {
		for i, f := range fs {
			best[i] = min(best[i], timed(f))
		}
	}
	return best
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
