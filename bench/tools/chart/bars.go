package main

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bars draws one horizontal bar per category, from base to the category's
// value, each labelled at its end. Category i sits at y = i. It is
// plotter.BarChart's horizontal layout with two differences the charts
// need: a bar starts at base rather than 0, which a log axis cannot show,
// and a category without a value (NaN) has no bar.
type bars struct {
	values []float64
	texts  []string // drawn after the end of each bar
	base   float64
	width  vg.Length // thickness of a bar
	offset vg.Length // added to the y of every bar, to set a group's bars one under the other
	color  color.Color
	font   text.Style // left-aligned, vertically centred
	rec    *recorder  // where the texts' boxes go, or nil
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, v := range b.values {
		if math.IsNaN(v) {
			continue
		}
		y := trY(float64(i)) + b.offset
		x0, x1 := trX(b.base), trX(v)
		pts := []vg.Point{
			{X: x0, Y: y - b.width/2}, {X: x0, Y: y + b.width/2},
			{X: x1, Y: y + b.width/2}, {X: x1, Y: y - b.width/2},
		}
		c.FillPolygon(b.color, c.ClipPolygonXY(pts))
		if i < len(b.texts) {
			// On a white box, which hides the grid and the serial line
			// behind the text.
			pt := vg.Point{X: x1 + textGap, Y: y}
			r := textBox(b.font, pt, b.texts[i])
			bg := vg.Rectangle{
				Min: vg.Point{X: r.Min.X - 1, Y: y - b.width/2 + 0.5},
				Max: vg.Point{X: r.Max.X, Y: y + b.width/2 - 0.5},
			}
			fillRect(&c, color.White, bg)
			c.FillText(b.font, pt, b.texts[i])
			b.rec.add("bar", b.texts[i], r)
		}
	}
}

// DataRange implements plot.DataRanger: the bars' values and base, and the
// categories' span.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = b.base, b.base
	for _, v := range b.values {
		if !math.IsNaN(v) {
			xmin, xmax = min(xmin, v), max(xmax, v)
		}
	}
	return xmin, xmax, -0.5, float64(len(b.values)) - 0.5
}

// Thumbnail implements plot.Thumbnailer, for the legend.
func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
	}
	c.FillPolygon(b.color, c.ClipPolygonXY(pts))
}
