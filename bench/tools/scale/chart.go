package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/spindle-go/spindle/bench/tools/internal/chartfont"
)

// The chart: a panel per workload, log-log axes from 1 to maxWorkers
// workers, with the work-span model's bounds on the speedup over one
// worker and the measured points. Style of bench/tools/chart: Liberation
// Sans, Okabe and Ito's colours, a title block with the machine.
const (
	maxWorkers  = 128
	panelCols   = 3
	chartWidth  = 24 * vg.Centimeter
	panelHeight = 8 * vg.Centimeter
	border      = 4 * vg.Millimeter
	// fontSlack is the room left for a viewer's fallback font, wider than
	// Liberation Sans (see bench/tools/chart).
	fontSlack = 1.2
	// legendExtraRows is the room kept for the legend's second row.
	legendExtraRows = 1
)

var (
	colUpper    = color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff} // blue
	colLower    = color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff} // sky blue
	colBurdened = color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff} // vermillion
	colIdeal    = color.Gray{Y: 170}
	colMeasured = color.Black
	gray        = color.Gray{Y: 70}
	sansRegular = chartfont.Regular
	sansBold    = chartfont.Bold
)

func textStyle(f font.Font, size vg.Length, c color.Color) text.Style {
	return text.Style{Color: c, Font: font.From(f, size), XAlign: draw.XLeft, YAlign: draw.YTop,
		Handler: plot.DefaultTextHandler}
}

// powersOfTwo are the ticks of both axes: every power of two, labelled
// (fractions as 1/n), every other one when the axis spans more than nine
// octaves, so that labels never touch.
type powersOfTwo struct{}

func (powersOfTwo) Ticks(lo, hi float64) []plot.Tick {
	every := 1
	if math.Log2(hi/lo) > 9 {
		every = 2
	}
	var ticks []plot.Tick
	for e := int(math.Ceil(math.Log2(lo) - 1e-9)); math.Exp2(float64(e)) <= hi*1.0001; e++ {
		v := math.Exp2(float64(e))
		label := strconv.FormatFloat(v, 'g', -1, 64)
		if e < 0 {
			label = "1/" + strconv.Itoa(1<<-e)
		}
		if e%every != 0 {
			label = ""
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

// curve samples f at workers 1..maxWorkers (a point per quarter octave).
func curve(f func(p int) float64) plotter.XYs {
	var xys plotter.XYs
	for e := 0.0; e <= math.Log2(maxWorkers)+1e-9; e += 0.25 {
		p := int(math.Round(math.Exp2(e)))
		if len(xys) > 0 && xys[len(xys)-1].X == float64(p) {
			continue
		}
		xys = append(xys, plotter.XY{X: float64(p), Y: f(p)})
	}
	return xys
}

func line(xys plotter.XYs, c color.Color, width vg.Length, dashes ...vg.Length) *plotter.Line {
	l, err := plotter.NewLine(xys)
	if err != nil {
		panic(err)
	}
	l.Color, l.Width, l.Dashes = c, width, dashes
	return l
}

// panelPlot is one workload's panel.
func panelPlot(r result) *plot.Plot {
	p := plot.New()
	a := r.a
	p.Title.Text = fmt.Sprintf("%s\nparallelism %s, burdened %s", r.w.name, short(a.Parallelism()), short(a.BurdenedParallelism()))
	p.Title.TextStyle.Font = font.From(sansBold, 10)
	p.Title.Padding = 2 * vg.Millimeter
	p.X.Label.Text = "workers"
	p.Y.Label.Text = "speedup over 1 worker"
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Scale = plot.LogScale{}
		ax.Tick.Marker = powersOfTwo{}
		ax.Label.TextStyle.Font = font.From(sansRegular, 9)
		ax.Tick.Label.Font = font.From(sansRegular, 8.5)
		ax.Min, ax.Max = 1, maxWorkers
	}
	// The speedup axis goes down to the lowest value drawn, a power of two
	// from 1/2 to 1/64; lower values are drawn at the bottom.
	ideal := line(curve(func(n int) float64 { return float64(n) }), colIdeal, vg.Points(0.8), vg.Points(2), vg.Points(2))
	upper := line(curve(func(n int) float64 { _, up := a.Speedup(n); return up }), colUpper, vg.Points(1.6))
	lower := line(curve(func(n int) float64 { lo, _ := a.Speedup(n); return lo }), colLower, vg.Points(1.6), vg.Points(5), vg.Points(2.5))
	burdened := line(curve(func(n int) float64 { lo, _ := a.BurdenedSpeedup(n); return lo }), colBurdened, vg.Points(1.6), vg.Points(1.5), vg.Points(2))
	var pts plotter.XYs
	for _, n := range measureAt {
		if t := r.measured[n]; t > 0 {
			pts = append(pts, plotter.XY{X: float64(n), Y: float64(r.measured[1]) / float64(t)})
		}
	}
	lowest := 1.0
	for _, xys := range []plotter.XYs{lower.XYs, burdened.XYs, pts} {
		for _, xy := range xys {
			lowest = min(lowest, xy.Y)
		}
	}
	p.Y.Min = 0.5
	for p.Y.Min > lowest && p.Y.Min > 1.0/64 {
		p.Y.Min /= 2
	}
	for _, xys := range []plotter.XYs{lower.XYs, burdened.XYs, pts} {
		for i := range xys {
			xys[i].Y = max(xys[i].Y, p.Y.Min)
		}
	}
	measured, err := plotter.NewScatter(pts)
	if err != nil {
		panic(err)
	}
	measured.GlyphStyle = draw.GlyphStyle{Color: colMeasured, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
	p.Add(ideal, upper, lower, burdened, measured)
	return p
}

// short formats a parallelism for a title.
func short(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// legendItems are the chart's series, drawn once in the title block.
func legendItems() []struct {
	name  string
	thumb plot.Thumbnailer
} {
	m, _ := plotter.NewScatter(plotter.XYs{{X: 1, Y: 1}})
	m.GlyphStyle = draw.GlyphStyle{Color: colMeasured, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
	xy := plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}}
	return []struct {
		name  string
		thumb plot.Thumbnailer
	}{
		{"upper bound min(P, W/S)", line(xy, colUpper, vg.Points(1.6))},
		{"lower bound W/(W/P+S)", line(xy, colLower, vg.Points(1.6), vg.Points(5), vg.Points(2.5))},
		{"burdened lower bound", line(xy, colBurdened, vg.Points(1.6), vg.Points(1.5), vg.Points(2))},
		{"ideal (P)", line(xy, colIdeal, vg.Points(0.8), vg.Points(2), vg.Points(2))},
		{"measured T1/TP", m},
	}
}

// writeChart draws the results to an SVG file.
func writeChart(path string, results []result, machine, clock string) error {
	rows := (len(results) + panelCols - 1) / panelCols
	titleSty := textStyle(sansBold, 13, color.Black)
	infoSty := textStyle(sansRegular, 9.5, gray)
	legendSty := textStyle(sansRegular, 9.5, color.Black)
	lh := func(s text.Style) vg.Length { return s.Font.Size * 1.35 }
	info := []string{
		"Machine: " + machine,
		"Predicted by " + clock + " (forks executed serially, strands timed); points: measured on pools of 1 and 2 workers.",
		"Burdened: each fork on the critical path charged one steal, " + results[0].a.StealCost.String() + " (pool.StealCost). Log-log axes.",
	}
	header := border + lh(titleSty) + vg.Length(len(info))*lh(infoSty) + lh(legendSty)*(1.6+legendExtraRows)
	height := header + vg.Length(rows)*panelHeight + border
	c := vgsvg.New(chartWidth, height)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	y := height - border
	dc.FillText(titleSty, vg.Point{X: border, Y: y}, "Will it scale? Work-span analysis of spindle's benchmark workloads")
	y -= lh(titleSty)
	for _, s := range info {
		dc.FillText(infoSty, vg.Point{X: border, Y: y}, s)
		y -= lh(infoSty)
	}
	// The legend: a thumbnail and a name per series, on one line.
	y -= lh(legendSty) * 0.3
	x := border
	thumbW := 9 * vg.Millimeter
	for _, it := range legendItems() {
		if next := x + thumbW + 1.5*vg.Millimeter + legendSty.Width(it.name)*fontSlack; next > chartWidth-border {
			x = border
			y -= lh(legendSty)
		}
		box := draw.Canvas{Canvas: dc, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: y - lh(legendSty)*0.85},
			Max: vg.Point{X: x + thumbW, Y: y - lh(legendSty)*0.15}}}
		it.thumb.Thumbnail(&box)
		x += thumbW + 1.5*vg.Millimeter
		dc.FillText(legendSty, vg.Point{X: x, Y: y}, it.name)
		x += legendSty.Width(it.name)*fontSlack + 4*vg.Millimeter
	}

	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, panelCols)
	}
	for i, r := range results {
		plots[i/panelCols][i%panelCols] = panelPlot(r)
	}
	body := draw.Crop(dc, border, -border, border, -header)
	tiles := draw.Tiles{Rows: rows, Cols: panelCols, PadX: 6 * vg.Millimeter, PadY: 6 * vg.Millimeter}
	canvases := plot.Align(plots, tiles, body)
	for i := range plots {
		for j, p := range plots[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
