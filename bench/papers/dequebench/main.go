// Command dequebench compares the work-stealing deques of package deque
// with the microbenchmark method of the BWoS work (Wang et al., OSDI 2023,
// and the thesis that measured it): one owner goroutine pushes items until
// the deque is full (or holds -capacity items, for the deques that grow),
// then pops until it is empty, over and over, for -duration; meanwhile
// -stealers goroutines steal from it, each at -freq attempts per second
// (paced by busy-waiting on the clock; 0 means as fast as it can).
//
//	go run ./bench/papers/dequebench -variant all -stealers 1 -duration 2s
//
// For each deque it prints one row: the owner's throughput (pushes plus
// pops per second), the thieves' (successful steals per second) and their
// sum; the median and 99th percentile of one push, one pop and one
// successful steal, timed on one call in 64 and net of the clock's own
// cost (printed in the header); and the failed steals, split into Empty
// (nothing to take) and Retry (lost a race). Then, for each deque, the
// consistency check pushes = pops + steals + remaining; the exit status
// is 1 if any check fails, 2 for bad flags.
//
// With -exp bulk it instead reproduces the experiments of Kataru, Davarnia
// and Jannesari's bulk work-stealing queue: the latency of pushing a batch
// of 1, 128, 512 or 1024 items, and of stealing 10% to 60% of a deque of
// -capacity items, for deque.Bulk's batch operations against deque.ChaseLev
// doing the same one item at a time. Those run on one goroutine, with no
// concurrent thief: they time the operations, not contention.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spindle-go/spindle/deque"
)

// config is the parsed command line.
type config struct {
	variants  []string
	stealers  int
	freq      float64 // steal attempts per second per stealer; 0: no pacing
	capacity  int
	blockSize int
	blocks    int
	payload   int
	duration  time.Duration
	exp       string
}

var allVariants = []string{"chaselev", "abp", "bwos", "locked", "bulk"}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, runs the benchmark, writes the report to stdout and
// returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dequebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	variant := fs.String("variant", "all", "deque to measure: all, or one of "+strings.Join(allVariants, ", "))
	stealers := fs.Int("stealers", 1, "stealing goroutines")
	freq := fs.Float64("freq", 0, "steal attempts per second per stealer (0: as fast as possible)")
	capacity := fs.Int("capacity", 1024, "items per fill: ABP's capacity, the cap of each fill for the growing deques, the stolen-from size for -exp bulk")
	blockSize := fs.Int("blocksize", 128, "BWoS block size, and Bulk's segment size")
	blocks := fs.Int("blocks", 8, "BWoS block count (BWoS holds blocks*blocksize items)")
	payload := fs.Int("payload", 0, "bytes per item, read by whoever takes the item")
	duration := fs.Duration("duration", 2*time.Second, "how long to measure each deque (for -exp bulk: each table)")
	exp := fs.String("exp", "", `experiment: "" (the owner/thieves benchmark) or "bulk"`)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg := config{
		stealers: *stealers, freq: *freq, capacity: *capacity, blockSize: *blockSize,
		blocks: *blocks, payload: *payload, duration: *duration, exp: *exp,
	}
	switch {
	case *variant == "all":
		cfg.variants = allVariants
	case slices.Contains(allVariants, *variant):
		cfg.variants = []string{*variant}
	default:
		fmt.Fprintf(stderr, "dequebench: unknown -variant %q\n", *variant)
		return 2
	}
	if err := cfg.check(fs.NArg()); err != nil {
		fmt.Fprintln(stderr, "dequebench:", err)
		return 2
	}
	fmt.Fprintf(stdout, "dequebench: %s %s/%s, GOMAXPROCS %d, %d CPUs\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU())
	if cfg.exp == "bulk" {
		runBulkExperiments(cfg, stdout)
		return 0
	}
	return runThesis(cfg, stdout)
}

func (c config) check(extraArgs int) error {
	switch {
	case extraArgs > 0:
		return fmt.Errorf("unexpected arguments")
	case c.stealers < 0:
		return fmt.Errorf("-stealers %d < 0", c.stealers)
	case !(c.freq >= 0):
		return fmt.Errorf("-freq %g < 0", c.freq)
	case c.capacity < 1 || c.capacity > 1<<26:
		return fmt.Errorf("-capacity %d not in [1, 1<<26]", c.capacity)
	case c.blockSize < 1 || c.blocks < 2 || c.blocks > (1<<26)/c.blockSize:
		return fmt.Errorf("-blocks %d -blocksize %d: need blocks >= 2, blocksize >= 1, blocks*blocksize <= 1<<26",
			c.blocks, c.blockSize)
	case c.payload < 0 || c.payload > 1<<20:
		return fmt.Errorf("-payload %d not in [0, 1<<20]", c.payload)
	case c.duration <= 0:
		return fmt.Errorf("-duration %v <= 0", c.duration)
	case c.exp != "" && c.exp != "bulk":
		return fmt.Errorf("unknown -exp %q", c.exp)
	}
	return nil
}

// item is what the deques carry. Its payload is written once, when the
// item is made, and only read afterwards (by whoever takes the item), so
// the owner can push the same item again while a thief still reads it.
type item struct {
	payload []byte
}

// consume reads one byte per cache line of v's payload and returns their
// sum, standing in for work on the item's data.
func consume(v *item) int {
	s := 0
	for i := 0; i < len(v.payload); i += 64 {
		s += int(v.payload[i])
	}
	return s
}

// newItems returns n items with payloads of size bytes.
func newItems(n, size int) []*item {
	items := make([]*item, n)
	for i := range items {
		items[i] = &item{payload: make([]byte, size)}
		for j := range items[i].payload {
			items[i].payload[j] = byte(i + j)
		}
	}
	return items
}

// newDeque builds the named deque for cfg.
func newDeque(name string, cfg config) deque.Deque[item] {
	switch name {
	case "chaselev":
		return deque.NewChaseLev[item](cfg.capacity)
	case "abp":
		return deque.NewABP[item](cfg.capacity)
	case "bwos":
		return deque.NewBWoS[item](cfg.blocks, cfg.blockSize)
	case "locked":
		return deque.NewLocked[item](cfg.capacity)
	case "bulk":
		return deque.NewBulk[item](cfg.blockSize)
	}
	panic("dequebench: unknown variant " + name)
}
