package main

import (
	"fmt"
	"math"
	"slices"
)

// chart is what one family's picture shows: a panel per workload, in each
// a group of bars per runtime, one bar per thread count, all on one value
// axis.
type chart struct {
	family
	machine string // the machine line of the title, or ""
	panels  []panel
	threads []int // every thread count of any panel, one colour each
	// ratio says whether the bars are times over the serial time of each
	// runtime's language (every runtime shown has a serial row), rather
	// than milliseconds.
	ratio bool
	// noSerial lists the runtimes whose language has no serial row, the
	// reason for a chart in ms.
	noSerial []string
	// missing lists the family's workloads without a row to show.
	missing []string
}

// panel is one workload's bars.
type panel struct {
	workload, heading string
	size              string // the workload's n, or ""
	runtimes          []string
	// ms[i][j] is runtimes[i]'s time at the chart's threads[j], NaN when
	// not measured; value[i][j] is what the bar shows: ms[i][j] over
	// serial[i] when the chart is a ratio, else ms[i][j] itself.
	ms, value [][]float64
	failed    [][]string  // a result's failed check, or ""
	serial    []float64   // the serial time of each runtime's language, NaN if none
	measured  map[key]row // the rows, until newChart has filled ms
}

// newChart collects a family's rows, a panel per workload with a row to
// show besides serial ones. It returns false when no workload has one.
func newChart(rows []row, f family) (chart, bool) {
	c := chart{family: f}
	for _, spec := range f.panels {
		p, threads, ok := newPanel(rows, spec)
		if !ok {
			c.missing = append(c.missing, spec.workload)
			continue
		}
		c.panels = append(c.panels, p)
		for _, th := range threads {
			if !slices.Contains(c.threads, th) {
				c.threads = append(c.threads, th)
			}
		}
	}
	if len(c.panels) == 0 {
		return c, false
	}
	slices.Sort(c.threads)
	for _, p := range c.panels {
		for i, rt := range p.runtimes {
			if math.IsNaN(p.serial[i]) && !slices.Contains(c.noSerial, rt) {
				c.noSerial = append(c.noSerial, rt)
			}
		}
	}
	c.ratio = len(c.noSerial) == 0

	for k := range c.panels {
		p := &c.panels[k]
		for i, rt := range p.runtimes {
			msRow := make([]float64, len(c.threads))
			valRow := make([]float64, len(c.threads))
			failedRow := make([]string, len(c.threads))
			for j, th := range c.threads {
				r, ok := p.measured[key{rt, p.workload, th}]
				v := r.ms
				if !ok {
					v = math.NaN()
				}
				msRow[j], valRow[j], failedRow[j] = v, v, r.failed
				if c.ratio {
					valRow[j] = v / p.serial[i]
				}
			}
			p.ms = append(p.ms, msRow)
			p.value = append(p.value, valRow)
			p.failed = append(p.failed, failedRow)
		}
		p.measured = nil
	}
	return c, true
}

// newPanel collects a workload's rows into p.measured, by row name (see
// aliases); newChart lays them out by the chart's thread counts.
func newPanel(rows []row, spec panelSpec) (p panel, threads []int, ok bool) {
	p = panel{workload: spec.workload, heading: spec.heading, measured: make(map[key]row)}
	serial := make(map[string]float64) // language -> serial ms
	var input []string                 // runtimes in input order
	for _, r := range rows {
		if r.workload != spec.workload {
			continue
		}
		if p.size == "" {
			p.size = r.size
		}
		if isSerial(r.runtime) {
			if old, ok := serial[language(r.runtime)]; !ok || r.ms < old {
				serial[language(r.runtime)] = r.ms
			}
			continue
		}
		rt := rowName(r.runtime)
		k := key{rt, r.workload, r.threads}
		if _, dup := p.measured[k]; dup {
			continue // an alias measured like the row it joins: the first wins
		}
		if !slices.Contains(input, rt) {
			input = append(input, rt)
		}
		if !slices.Contains(threads, r.threads) {
			threads = append(threads, r.threads)
		}
		p.measured[k] = r
	}
	if len(input) == 0 {
		return p, nil, false
	}
	p.runtimes = orderRuntimes(input)
	for _, rt := range p.runtimes {
		s, ok := serial[language(rt)]
		if !ok {
			s = math.NaN()
		}
		p.serial = append(p.serial, s)
	}
	return p, threads, true
}

// extent returns the smallest and largest value shown in any panel.
func (c chart) extent() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range c.panels {
		for _, vs := range p.value {
			for _, v := range vs {
				if !math.IsNaN(v) {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
	}
	return lo, hi
}

// logScale says whether the values spread over enough orders of
// magnitude that a linear axis would flatten the small ones: fib's
// ratios go from about 2 to over 400.
func (c chart) logScale() bool {
	lo, hi := c.extent()
	return hi/lo > 20
}

// barText is the label at the end of a bar: the ratio with the time it
// stands for, or the time alone, and what was wrong with the result.
func (c chart) barText(p panel, i, j int) string {
	s := msText(p.ms[i][j])
	if c.ratio {
		s = fmt.Sprintf("%s (%s)", ratioText(p.value[i][j]), s)
	}
	if p.failed[i][j] != "" {
		s += ", result " + p.failed[i][j]
	}
	return s
}

// title is the chart's first line, with the size of its first panel that
// has one.
func (c chart) title() string {
	size := ""
	for _, p := range c.panels {
		if p.size != "" {
			size = p.size
			break
		}
	}
	return fillN(c.titleFormat, size)
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
