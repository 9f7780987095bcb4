package main

import (
	"fmt"
	"math"
	"slices"
)

// chart is what one workload's picture shows: a group of bars per
// runtime, one bar per thread count.
type chart struct {
	workload string
	size     string // the workload's n, or ""
	runtimes []string
	threads  []int
	// ms[i][j] is runtimes[i]'s time at threads[j], NaN when not measured;
	// value[i][j] is what the bar shows: ms[i][j] over the serial time of
	// the runtime's language when ratio is set, else ms[i][j] itself.
	ms, value [][]float64
	ratio     bool
	// noSerial lists the runtimes whose language has no serial row, the
	// reason for a chart in ms.
	noSerial []string
}

// runtimeOrder is the order of the known runtimes in a chart, spindle's
// first, as in the README's table; others follow in the order of the
// input.
var runtimeOrder = []string{
	"go-spindle-call", "go-spindle-do", "go-spindle-join", "go-closure-floor",
	"rust-rayon", "java-forkjoin", "cpp-tbb", "cpp-openmp",
	"go-waitgroup", "go-errgroup",
}

// labels are the names the charts show for the known runtimes.
var labels = map[string]string{
	"go-spindle-call":  "spindle forkjoin.Call",
	"go-spindle-do":    "spindle forkjoin.Do",
	"go-spindle-join":  "spindle pool.Join (closures)",
	"go-closure-floor": "Go closure allocations alone (serial)",
	"rust-rayon":       "Rust Rayon",
	"java-forkjoin":    "Java ForkJoinPool",
	"cpp-tbb":          "C++ oneTBB",
	"cpp-openmp":       "C++ OpenMP tasks",
	"go-waitgroup":     "Go goroutine + WaitGroup",
	"go-errgroup":      "Go errgroup",
}

func label(runtime string) string {
	if l, ok := labels[runtime]; ok {
		return l
	}
	return runtime
}

// newChart collects a workload's rows. The bars are ratios to the serial
// row of each runtime's language when every runtime shown has one, and
// milliseconds otherwise. It returns false when the workload has no row
// to show besides serial ones.
func newChart(rows []row, workload string) (chart, bool) {
	c := chart{workload: workload}
	serial := make(map[string]float64) // language -> serial ms
	var input []string                 // runtimes in input order
	ms := make(map[key]float64)
	for _, r := range rows {
		if r.workload != workload {
			continue
		}
		if c.size == "" {
			c.size = r.size
		}
		if isSerial(r.runtime) {
			if _, ok := serial[language(r.runtime)]; !ok {
				serial[language(r.runtime)] = r.ms
			}
			continue
		}
		if !slices.Contains(input, r.runtime) {
			input = append(input, r.runtime)
		}
		if !slices.Contains(c.threads, r.threads) {
			c.threads = append(c.threads, r.threads)
		}
		ms[key{r.runtime, workload, r.threads}] = r.ms
	}
	if len(input) == 0 {
		return c, false
	}
	slices.Sort(c.threads)
	for _, rt := range runtimeOrder {
		if slices.Contains(input, rt) {
			c.runtimes = append(c.runtimes, rt)
		}
	}
	for _, rt := range input {
		if !slices.Contains(runtimeOrder, rt) {
			c.runtimes = append(c.runtimes, rt)
		}
	}
	for _, rt := range c.runtimes {
		if _, ok := serial[language(rt)]; !ok {
			c.noSerial = append(c.noSerial, rt)
		}
	}
	c.ratio = len(c.noSerial) == 0

	for _, rt := range c.runtimes {
		msRow := make([]float64, len(c.threads))
		valRow := make([]float64, len(c.threads))
		for j, th := range c.threads {
			v, ok := ms[key{rt, workload, th}]
			if !ok {
				v = math.NaN()
			}
			msRow[j], valRow[j] = v, v
			if c.ratio {
				valRow[j] = v / serial[language(rt)]
			}
		}
		c.ms = append(c.ms, msRow)
		c.value = append(c.value, valRow)
	}
	return c, true
}

// extent returns the smallest and largest value shown.
func (c chart) extent() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, vs := range c.value {
		for _, v := range vs {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	return lo, hi
}

// logScale says whether the values spread over enough orders of
// magnitude that a linear axis would flatten the small ones: fib's
// ratios go from about 3 to over 400.
func (c chart) logScale() bool {
	lo, hi := c.extent()
	return hi/lo > 20
}

// barText is the label at the end of a bar: the ratio with the time it
// stands for, or the time alone.
func (c chart) barText(i, j int) string {
	if c.ratio {
		return fmt.Sprintf("%s (%s)", ratioText(c.value[i][j]), msText(c.ms[i][j]))
	}
	return msText(c.ms[i][j])
}

// ratioText shows a ratio with three significant digits, as the README's
// table does: 0.43, 4.93, 31.4, 434.
func ratioText(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func msText(ms float64) string {
	if ms >= 10 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.1f ms", ms)
}
