package bench

import (
	"fmt"
	"io"
	"time"
)

// Table prints the rows of the example commands as they are measured:
// implementation, parallelism, time and ratio to the serial time.
type Table struct {
	w      io.Writer
	serial time.Duration
}

const tableFormat = "%-22s %-14s %10s %9s\n"

// NewTable prints the header to w and returns the table.
func NewTable(w io.Writer) *Table {
	fmt.Fprintf(w, tableFormat, "implementation", "parallelism", "ms", "x serial")
	fmt.Fprintf(w, tableFormat, "--------------", "-----------", "--", "--------")
	return &Table{w: w}
}

// Serial prints the serial row, whose time is the reference of the ratio
// column of the rows that follow.
func (t *Table) Serial(d time.Duration) {
	t.serial = d
	t.Add("serial", "1 thread", d)
}

// Add prints a row for a run that took d.
func (t *Table) Add(impl, parallelism string, d time.Duration) {
	ratio := "-"
	if t.serial > 0 {
		ratio = fmt.Sprintf("%.2f", float64(d)/float64(t.serial))
	}
	fmt.Fprintf(t.w, tableFormat, impl, parallelism, formatMs(d), ratio)
}

// formatMs shows d in milliseconds with at least two significant digits.
func formatMs(d time.Duration) string {
	ms := Ms(d)
	switch {
	case ms >= 10:
		return fmt.Sprintf("%.1f", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f", ms)
	default:
		return fmt.Sprintf("%.3f", ms)
	}
}

// Footer prints the legend of the ratio column.
func (t *Table) Footer() {
	fmt.Fprintln(t.w, "\nx serial = time / serial time, lower is better (0.50 = twice as fast as serial).")
}
