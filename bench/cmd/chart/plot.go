package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Sizes of the picture. Its height grows with the number of runtimes, so
// that bars keep their thickness.
const (
	chartWidth  = 22 * vg.Centimeter
	barWidth    = 9 * vg.Millimeter / 2 // one bar; a group is len(threads) bars
	perRuntime  = 13 * vg.Millimeter    // vertical room of a group
	chartMargin = 4 * vg.Centimeter     // title, axis and legend
)

// titles of the known workloads; others show their name.
var titles = map[string]string{
	"fib":       "fib(%s), a fork at every level: the cost of a fork",
	"quicksort": "quicksort of %s int64, both halves of every partition forked",
}

func (c chart) title() string {
	size := c.size
	if size == "" {
		size = "n"
	} else if v, err := strconv.Atoi(size); err == nil {
		size = thousands(v)
	}
	if t, ok := titles[c.workload]; ok {
		return fmt.Sprintf(t, size)
	}
	return fmt.Sprintf("%s (n=%s)", c.workload, size)
}

// plot lays the chart out: runtimes down the vertical axis, the first at
// the top, their bars for each thread count side by side, and the value
// axis at the bottom, logarithmic when the values spread widely.
func (c chart) plot() *plot.Plot {
	p := plot.New()
	p.Title.Text = c.title()
	log := c.logScale()
	lo, hi := c.extent()

	// What the axis shows goes in the title's second line: gonum centres
	// an axis label at the arithmetic middle of the axis, which on a log
	// axis lies far right and squeezes the plot.
	unit := "best time in ms"
	if c.ratio {
		unit = "time / serial time of the same language"
	}
	scale := "linear scale"
	if log {
		scale = "log scale"
	}
	p.Title.Text += fmt.Sprintf("\n%s, lower is better (%s)", unit, scale)

	// The axis leaves room past the longest bar for its label.
	base := 0.0
	if log {
		base = math.Pow(10, math.Floor(math.Log10(lo)))
		p.X.Min, p.X.Max = base, hi*math.Pow(hi/base, 0.35)
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks(p.X.Min, p.X.Max)
	} else {
		p.X.Min, p.X.Max = 0, hi*1.45
		p.X.Tick.Marker = linearTicks(p.X.Max)
	}

	grid := plotter.NewGrid()
	grid.Horizontal.Width = 0
	p.Add(grid)

	n := len(c.runtimes)
	font := p.X.Tick.Label
	font.XAlign, font.YAlign = draw.XLeft, draw.YCenter
	for j, th := range c.threads {
		b := &bars{
			base:  base,
			width: barWidth,
			// The first thread count on top within each group.
			offset: vg.Length(float64(len(c.threads)-1)/2-float64(j)) * barWidth,
			color:  plotutil.Color(j),
			font:   font,
		}
		for k := range n {
			i := n - 1 - k // category k is drawn at y = k, the first runtime on top
			b.values = append(b.values, c.value[i][j])
			b.texts = append(b.texts, c.barText(i, j))
		}
		p.Add(b)
		p.Legend.Add(plural(th, "thread"), b)
	}
	if c.ratio {
		one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
		if err == nil {
			one.Color = color.Gray{Y: 80}
			one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(one)
			p.Legend.Add("serial", one)
		}
	}
	p.Legend.Top = true

	var ticks plot.ConstantTicks
	for k := range n {
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: label(c.runtimes[n-1-k])})
	}
	p.Y.Tick.Marker = ticks
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	return p
}

// writeSVG renders the chart as SVG, with a blank border (gonum draws the
// axes and the legend up to the canvas's edges).
func (c chart) writeSVG(w io.Writer) error {
	height := chartMargin + vg.Length(len(c.runtimes))*perRuntime
	canvas := vgsvg.New(chartWidth, height)
	const border = 4 * vg.Millimeter
	c.plot().Draw(draw.Crop(draw.New(canvas), border, -border, border, -border))
	_, err := canvas.WriteTo(w)
	return err
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// logTicks marks every power of ten in [lo, hi] with its value and the
// multiples of it in between without one. Unlike plot.LogTicks it marks
// nothing outside the axis.
func logTicks(lo, hi float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for dec := math.Pow(10, math.Floor(math.Log10(lo))); dec <= hi; dec *= 10 {
		for m := 1.0; m < 10; m++ {
			v := m * dec
			if v < lo*(1-1e-9) || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// linearTicks marks [0, hi] at a round step (1, 2 or 5 times a power of
// ten) that gives 4 to 10 labelled ticks.
func linearTicks(hi float64) plot.ConstantTicks {
	step := math.Pow(10, math.Floor(math.Log10(hi)))
	for _, m := range []float64{0.1, 0.2, 0.5, 1} {
		if hi/(step*m) <= 10 {
			step *= m
			break
		}
	}
	decimals := max(0, int(-math.Floor(math.Log10(step))))
	var ticks plot.ConstantTicks
	for i := 0; float64(i)*step <= hi; i++ {
		v := float64(i) * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}
