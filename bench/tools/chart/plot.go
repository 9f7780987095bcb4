package main

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/spindle-go/spindle/bench/tools/internal/chartfont"
)

// Sizes of the picture. Its height grows with the number of panels and
// runtimes, so that bars keep their thickness.
const (
	chartWidth = 24 * vg.Centimeter
	border     = 12 * vg.Millimeter / 3 // blank around everything
	barWidth   = 9 * vg.Millimeter / 2  // one bar; a group is len(threads) bars
	groupGap   = 4 * vg.Millimeter      // between the groups of two runtimes
	panelGap   = 6 * vg.Millimeter      // between a panel's axis and the next heading
	labelGap   = 10                     // points between the row labels and the axis
	textGap    = 3                      // points between a bar's end and its text

	// fontSlack is how much wider than Liberation Sans, whose metrics lay
	// the chart out, the font that draws the text may be. The SVG asks
	// for Liberation Sans, then Arial and Helvetica, which have the same
	// widths; a viewer with none of them uses its own sans-serif, DejaVu
	// Sans on many Linux systems, about 10% wider. Every text has room
	// for that: text is left-aligned, and what follows it is placed
	// fontSlack times its width further.
	fontSlack = 1.2
)

// Colours of the bars, a thread count each (Okabe and Ito's palette,
// readable with any colour vision), darker for more threads.
var barColors = []color.Color{
	color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff},
	color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff},
	color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff},
	color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff},
	color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff},
	color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff},
}

func barColor(j int) color.Color { return barColors[j%len(barColors)] }

var (
	sansRegular = chartfont.Regular
	sansBold    = chartfont.Bold
	gray        = color.Gray{Y: 70}
)

// textStyle is a left-aligned style, its point the middle of the text's
// left edge.
func textStyle(f font.Font, size vg.Length, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    font.From(f, size),
		XAlign:  draw.XLeft,
		YAlign:  draw.YCenter,
		Handler: plot.DefaultTextHandler,
	}
}

var (
	titleStyle   = textStyle(sansBold, 13, color.Black)
	infoStyle    = textStyle(sansRegular, 9.5, gray)
	legendStyle  = textStyle(sansRegular, 9.5, color.Black)
	headingStyle = textStyle(sansBold, 10.5, color.Black)
	labelStyle   = textStyle(sansRegular, 10, color.Black)
	spindleStyle = textStyle(sansBold, 10, color.Black) // spindle's row labels
	barStyle     = textStyle(sansRegular, 9, color.Black)
	tickStyle    = textStyle(sansRegular, 9, color.Black)
)

// lineHeight is the room of a line of text in a style.
func lineHeight(sty text.Style) vg.Length { return sty.Font.Size * 1.35 }

// width is the room a text needs: its width in Liberation Sans, plus the
// fontSlack allowance.
func width(sty text.Style, s string) vg.Length { return sty.Width(s) * fontSlack }

// layout is where the parts of a chart go. Lengths are from the top of
// the picture, x from its left edge.
type layout struct {
	width, height vg.Length
	lines         []textLine // the title block
	legendTop     vg.Length
	labelWidth    vg.Length // of the row labels' column, gap included
	panels        []panelBox
	log           bool
	xMin, xMax    float64 // the value axis, the same in every panel
	// serialLine says whether the panels have a dashed line at 1, for a
	// ratio, unless the axis starts there.
	serialLine bool
}

type textLine struct {
	text  string
	style text.Style
}

type panelBox struct {
	headingTop vg.Length // when the panel has a heading
	plotTop    vg.Length
	plotHeight vg.Length // bars and value axis
}

// groupHeight is the vertical room of a runtime's bars.
func (c chart) groupHeight() vg.Length {
	return vg.Length(len(c.threads))*barWidth + groupGap
}

// titleLines are the lines above the legend: the title, the machine, and
// what the bars show.
func (c chart) titleLines(l layout, room vg.Length) []textLine {
	var lines []textLine
	add := func(s string, sty text.Style) {
		for _, ln := range wrap(sty, s, room) {
			lines = append(lines, textLine{ln, sty})
		}
	}
	add(c.title(), titleStyle)
	if c.machine != "" {
		add("Machine: "+c.machine, infoStyle)
	}
	unit := "Bars: time over the serial time of the same language (the dashed line, 1); lower is better"
	if !l.serialLine {
		unit = "Bars: time over the serial time of the same language (1, where the bars start); lower is better"
	}
	if !c.ratio {
		unit = fmt.Sprintf("Bars: best time in ms (no serial row for %s); lower is better", strings.Join(c.noSerial, ", "))
	}
	scale := "linear scale"
	if l.log {
		scale = "log scale"
	}
	add(unit+"; "+scale+".", infoStyle)
	return lines
}

// wrap breaks s at spaces into lines that fit in room.
func wrap(sty text.Style, s string, room vg.Length) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		next := w
		if line != "" {
			next = line + " " + w
		}
		if line != "" && width(sty, next) > room {
			lines = append(lines, line)
			next = w
		}
		line = next
	}
	return append(lines, line)
}

// hasHeadings says whether the panels are named above their bars: when
// there are several, or one with a heading.
func (c chart) hasHeadings() bool {
	return len(c.panels) > 1 || c.panels[0].heading != ""
}

func (c chart) heading(p panel) string {
	if p.heading != "" {
		return p.heading
	}
	return p.workload
}

// layout places the title block, the legend and the panels, and fixes the
// value axis so that every bar's text ends inside the plot.
func (c chart) layout() layout {
	l := layout{width: chartWidth, log: c.logScale()}
	for _, p := range c.panels {
		for _, rt := range p.runtimes {
			l.labelWidth = max(l.labelWidth, width(c.labelStyle(rt), c.label(rt)))
		}
	}
	l.labelWidth += labelGap
	l.xMin, l.xMax = c.xRange(l)
	l.serialLine = c.ratio && l.xMin < 1

	room := l.width - 2*border
	y := border
	l.lines = c.titleLines(l, room)
	for _, ln := range l.lines {
		y += lineHeight(ln.style)
	}
	y += 3
	l.legendTop = y
	y += lineHeight(legendStyle) + 10

	axis := c.axisHeight(l)
	for i, p := range c.panels {
		var b panelBox
		if i > 0 {
			y += panelGap
		}
		if c.hasHeadings() {
			b.headingTop = y
			y += lineHeight(headingStyle) + 2
		}
		b.plotTop = y
		b.plotHeight = vg.Length(len(p.runtimes))*c.groupHeight() + axis
		y += b.plotHeight
		l.panels = append(l.panels, b)
	}
	l.height = y + border
	return l
}

func (c chart) labelStyle(runtime string) text.Style {
	if isSpindle(runtime) {
		return spindleStyle
	}
	return labelStyle
}

// plotRect is where a panel's plot (axes and bars) goes, in the
// coordinates of the canvas (y up).
func (l layout) plotRect(b panelBox) vg.Rectangle {
	return vg.Rectangle{
		Min: vg.Point{X: border + l.labelWidth, Y: l.height - b.plotTop - b.plotHeight},
		Max: vg.Point{X: l.width - border, Y: l.height - b.plotTop},
	}
}

// axisHeight is the height of the value axis below a panel's bars.
func (c chart) axisHeight(l layout) vg.Length {
	const h = 1000
	p := c.newPlot(c.panels[0], l, nil)
	da := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: l.width, Y: h}}})
	return da.Min.Y
}

// xRange returns the value axis: from 0 (linear), or from 1, 2 or 5 times
// a power of ten at or below every value and 1 (log), to far enough right
// that the text of every bar, fontSlack included, ends inside the plot.
func (c chart) xRange(l layout) (lo, hi float64) {
	vmin, vmax := c.extent()
	if l.log {
		lo = roundDown(vmin)
		if c.ratio {
			lo = min(lo, 1)
		}
	}
	hi = vmax * 1.02
	// The data area's width depends a little on hi (gonum keeps the last
	// tick's label inside it); a few rounds settle it.
	for range 4 {
		l.xMin, l.xMax = lo, hi
		p := c.newPlot(c.panels[0], l, nil)
		da := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: l.width - 2*border - l.labelWidth, Y: 1000}}})
		w := da.Size().X
		need := vmax * 1.02
		for _, pn := range c.panels {
			for i := range pn.value {
				for j, v := range pn.value[i] {
					if math.IsNaN(v) {
						continue
					}
					free := w - textGap - width(barStyle, c.barText(pn, i, j)) - 1
					if free < w/4 {
						free = w / 4 // a text longer than the plot: give up on it
					}
					stretch := float64(w / free)
					if l.log {
						need = max(need, lo*math.Pow(v/lo, stretch))
					} else {
						need = max(need, lo+(v-lo)*stretch)
					}
				}
			}
		}
		if math.Abs(need-hi) <= hi*1e-4 {
			break
		}
		hi = need
	}
	return lo, hi
}

// roundDown returns the largest of 1, 2 and 5 times a power of ten at or
// below v.
func roundDown(v float64) float64 {
	dec := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2} {
		if m*dec <= v {
			return m * dec
		}
	}
	return dec
}

// newPlot lays a panel's plot out: runtimes down the vertical axis, the
// first at the top, their bars for each thread count one under the
// other, and the value axis at the bottom, without labels on the
// vertical axis (render draws them, left-aligned, in their column).
// Bar texts are recorded in rec when it is not nil.
func (c chart) newPlot(pn panel, l layout, rec *recorder) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil

	grid := plotter.NewGrid()
	grid.Horizontal.Width = 0
	grid.Vertical.Color = color.Gray{Y: 200}
	p.Add(grid)

	n := len(pn.runtimes)
	if l.serialLine {
		one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
		if err == nil {
			one.Color = color.Gray{Y: 60}
			one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(one)
		}
	}
	for j := range c.threads {
		b := &bars{
			base:  l.xMin,
			width: barWidth,
			// The first thread count on top within each group.
			offset: vg.Length(float64(len(c.threads)-1)/2-float64(j)) * barWidth,
			color:  barColor(j),
			font:   barStyle,
			rec:    rec,
		}
		for k := range n {
			i := n - 1 - k // category k is drawn at y = k, the first runtime on top
			b.values = append(b.values, pn.value[i][j])
			b.texts = append(b.texts, c.barText(pn, i, j))
		}
		p.Add(b)
	}

	p.X.Min, p.X.Max = l.xMin, l.xMax
	p.X.Padding = 0
	p.X.Tick.Label = tickStyle
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	if l.log {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks(l.xMin, l.xMax)
	} else {
		p.X.Tick.Marker = linearTicks(l.xMax)
	}
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.Y.Padding = 0
	p.Y.Tick.Marker = plot.ConstantTicks{}
	return p
}

// recorder is a canvas that keeps the box of every text drawn, widened by
// fontSlack, and of every plot's data area, for the tests to check that
// nothing overlaps.
type recorder struct {
	draw.Canvas
	boxes []box
}

type box struct {
	kind string // "title", "legend", "heading", "label", "bar", "data"
	text string
	vg.Rectangle
}

// text draws s left-aligned, its left middle at pt.
func (r *recorder) text(kind string, sty text.Style, pt vg.Point, s string) {
	r.FillText(sty, pt, s)
	r.add(kind, s, textBox(sty, pt, s))
}

func (r *recorder) add(kind, s string, rect vg.Rectangle) {
	if r != nil {
		r.boxes = append(r.boxes, box{kind, s, rect})
	}
}

// textBox is the room of a left-aligned text at pt, fontSlack included.
func textBox(sty text.Style, pt vg.Point, s string) vg.Rectangle {
	rect := sty.Rectangle(s)
	rect.Min, rect.Max = rect.Min.Add(pt), rect.Max.Add(pt)
	rect.Max.X = rect.Min.X + width(sty, s)
	return rect
}

// render draws the chart onto rec, whose size is l's.
func (c chart) render(rec *recorder, l layout) {
	top := func(y vg.Length) vg.Length { return l.height - y } // from the top to y up

	rec.SetColor(color.White)
	rec.Fill(rec.Rectangle.Path())

	y := border
	for _, ln := range l.lines {
		h := lineHeight(ln.style)
		rec.text("title", ln.style, vg.Point{X: border, Y: top(y + h/2)}, ln.text)
		y += h
	}

	// The legend: a swatch and a name per thread count, then the dashed
	// serial line, on one line of their own.
	x := border
	mid := top(l.legendTop + lineHeight(legendStyle)/2)
	swatch := legendStyle.Font.Size
	for j, th := range c.threads {
		r := vg.Rectangle{Min: vg.Point{X: x, Y: mid - swatch/2}, Max: vg.Point{X: x + swatch, Y: mid + swatch/2}}
		fillRect(&rec.Canvas, barColor(j), r)
		rec.add("legend", "", r)
		x += swatch + 4
		name := plural(th, "thread")
		rec.text("legend", legendStyle, vg.Point{X: x, Y: mid}, name)
		x += width(legendStyle, name) + 14
	}
	if l.serialLine {
		rec.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(1), Dashes: []vg.Length{4, 3}},
			x+swatch/2, mid-swatch/2-2, x+swatch/2, mid+swatch/2+2)
		x += swatch + 4
		rec.text("legend", legendStyle, vg.Point{X: x, Y: mid}, "serial (= 1)")
	}

	for k, pn := range c.panels {
		b := l.panels[k]
		if c.hasHeadings() {
			h := lineHeight(headingStyle)
			rec.text("heading", headingStyle, vg.Point{X: border, Y: top(b.headingTop + h/2)}, c.heading(pn))
		}
		pc := draw.Canvas{Canvas: rec.Canvas.Canvas, Rectangle: l.plotRect(b)}
		p := c.newPlot(pn, l, rec)
		p.Draw(pc)
		da := p.DataCanvas(pc)
		rec.add("data", pn.workload, da.Rectangle)
		_, trY := p.Transforms(&da)
		n := len(pn.runtimes)
		for i, rt := range pn.runtimes {
			yy := trY(float64(n - 1 - i))
			rec.text("label", c.labelStyle(rt), vg.Point{X: border, Y: yy}, c.label(rt))
		}
	}
}

func fillRect(c *draw.Canvas, clr color.Color, r vg.Rectangle) {
	c.SetColor(clr)
	c.Fill(r.Path())
}

// writeSVG renders the chart as SVG.
func (c chart) writeSVG(w io.Writer) error {
	l := c.layout()
	canvas := vgsvg.New(l.width, l.height)
	c.render(&recorder{Canvas: draw.New(canvas)}, l)
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(fontFallbacks(buf.Bytes()))
	return err
}

// fontFallbacks adds fonts of the same widths after Liberation Sans, the
// only family vgsvg names, and a generic family last, so that a viewer
// without Liberation Sans draws sans-serif text of about the same width.
func fontFallbacks(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
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
// multiples of it in between without one, except 2 and 5 when the axis
// spans less than 2.5 powers of ten, and lo itself. Unlike plot.LogTicks
// it marks nothing outside the axis.
func logTicks(lo, hi float64) plot.ConstantTicks {
	few := math.Log10(hi/lo) < 2.5
	var ticks plot.ConstantTicks
	for dec := math.Pow(10, math.Floor(math.Log10(lo))); dec <= hi; dec *= 10 {
		for m := 1.0; m < 10; m++ {
			v := m * dec
			if v < lo*(1-1e-9) || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || few && (m == 2 || m == 5) || v < lo*(1+1e-9) {
				t.Label = strconv.FormatFloat(v, 'g', 6, 64)
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
