package chart

// The frame of the charts with axes (bar, line, area, scatter): the plot box, the
// y scale with its grid and tick labels, the x axis (categories or numbers), the
// axis titles and the annotation markers. Category labels that would collide are
// rotated, or thinned to every k-th; labels that still do not fit are cut with an
// ellipsis (full text in a <title>).

import (
	"math"
	"strconv"
	"strings"
)

const (
	rotAngle = 40 // degrees of rotated category labels
	sinRot   = 0.6428
	cosRot   = 0.7660
)

type cart struct {
	W, H, fs   float64
	l, t, r, b float64 // the plot box: left, top, right and bottom edges

	y0, y1 float64 // y domain
	yTicks []float64
	yFmt   numFmt

	// categories (bar, line, area)
	n      int
	labels []string
	slot   float64
	step   int     // every step-th label is drawn
	rot    bool    // labels rotated by rotAngle
	labW   float64 // the widest a label may be drawn

	// numbers along x (scatter)
	numeric bool
	x0, x1  float64
	xTicks  []float64
	xFmt    numFmt
}

// newCart lays out a chart of n categories with values from lo to hi; rows is the
// number of annotation label rows to leave room for above the plot.
func newCart(o *Options, labels []string, n int, lo, hi float64, rows int) *cart {
	c := &cart{labels: labels, n: max(n, 1)}
	c.W, c.H, c.fs = o.size()
	c.yAxis(o, lo, hi)
	c.t = 12 + float64(rows)*(c.fs+4)
	if rows > 0 {
		c.t += 4
	}
	c.r = c.W - 16
	c.slot = (c.r - c.l) / float64(c.n)
	bottom := c.layoutLabels()
	if o.XLabel != "" {
		bottom += c.fs + 8
	}
	c.b = max(c.H-bottom, c.t+40)
	return c
}

// newNumCart lays out a chart with numbers along both axes.
func newNumCart(o *Options, xlo, xhi, ylo, yhi float64) *cart {
	c := &cart{numeric: true, n: 1}
	c.W, c.H, c.fs = o.size()
	c.yAxis(o, ylo, yhi)
	c.t = 12
	c.r = c.W - 16
	var step float64
	c.xTicks, step = niceTicks(xlo, xhi, max(2, int((c.r-c.l)/90)))
	c.x0, c.x1 = c.xTicks[0], c.xTicks[len(c.xTicks)-1]
	c.xFmt = newNumFmt(step, max(math.Abs(c.x0), math.Abs(c.x1)))
	widest := 0.0
	for _, t := range c.xTicks {
		widest = max(widest, textW(c.xFmt.format(t), c.fs))
	}
	gap := (c.r - c.l) / float64(max(len(c.xTicks)-1, 1))
	c.step = max(1, int(math.Ceil((widest+10)/gap)))
	bottom := c.fs + 14
	if o.XLabel != "" {
		bottom += c.fs + 8
	}
	c.b = max(c.H-bottom, c.t+40)
	return c
}

// yAxis picks the y ticks and the left margin their labels need.
func (c *cart) yAxis(o *Options, lo, hi float64) {
	var step float64
	c.yTicks, step = niceTicks(lo, hi, max(3, int(c.H/60)))
	c.y0, c.y1 = c.yTicks[0], c.yTicks[len(c.yTicks)-1]
	c.yFmt = newNumFmt(step, max(math.Abs(c.y0), math.Abs(c.y1)))
	widest := 0.0
	for _, t := range c.yTicks {
		widest = max(widest, textW(c.yFmt.format(t), c.fs))
	}
	c.l = 10 + widest + 8
	if o.YLabel != "" {
		c.l += c.fs + 8
	}
}

func (c *cart) y(v float64) float64 { return scaleAt(v, c.y0, c.y1, c.b, c.t) }

// xc is the centre of category i.
func (c *cart) xc(i int) float64 { return c.l + c.slot*(float64(i)+0.5) }

// xv is the position of the number v along x.
func (c *cart) xv(v float64) float64 { return scaleAt(v, c.x0, c.x1, c.l, c.r) }

// base is where bars and areas start: the zero line, or the edge of the plot
// nearest to it when 0 lies outside the domain.
func (c *cart) base() float64 { return c.y(min(max(0, c.y0), c.y1)) }

func (c *cart) label(i int) string {
	if i < len(c.labels) {
		return strings.TrimSpace(c.labels[i])
	}
	return ""
}

// layoutLabels decides how category labels are drawn and returns the room they
// need below the plot.
func (c *cart) layoutLabels() float64 {
	fs, widest := c.fs, 0.0
	for i := 0; i < c.n; i++ {
		widest = max(widest, textW(clip(c.label(i), 40), fs))
	}
	c.step, c.labW = 1, c.slot-4
	switch {
	case widest == 0:
		return fs + 8
	case widest+8 <= c.slot:
		return fs + 14
	case c.slot >= fs*1.3 && c.n <= 60 && widest > fs*3.2:
		c.rot = true
		c.labW = min(widest, 0.3*c.H/sinRot)
		return c.labW*sinRot + fs*cosRot + 16
	}
	w := min(widest, 6*fs)
	c.step = max(1, int(math.Ceil((w+8)/c.slot)))
	c.labW = float64(c.step)*c.slot - 8
	return fs + 14
}

// frame draws the grid, the tick labels, the axis titles and the zero line.
func (c *cart) frame(w *buf, o *Options) {
	fs := c.fs
	w.s(`<g class="ch-grid">`)
	for _, t := range c.yTicks {
		y := c.y(t)
		w.s(`<line`)
		w.a("x1", c.l)
		w.a("x2", c.r)
		w.a("y1", y)
		w.a("y2", y)
		w.s(`/>`)
	}
	w.s(`</g><g class="ch-tick" text-anchor="end">`)
	for _, t := range c.yTicks {
		w.s(`<text`)
		w.a("x", c.l-8)
		w.a("y", c.y(t)+fs*0.35)
		w.s(`>`)
		w.esc(c.yFmt.format(t))
		w.s(`</text>`)
	}
	w.s(`</g>`)
	if c.numeric {
		c.numberLabels(w)
	} else {
		c.categoryLabels(w)
	}
	if o.YLabel != "" {
		w.s(`<text class="ch-axis-label" text-anchor="middle" transform="translate(`)
		w.pt(fs+2, (c.t+c.b)/2)
		w.s(`) rotate(-90)">`)
		w.label(o.YLabel, c.b-c.t, fs)
		w.s(`</text>`)
	}
	if o.XLabel != "" {
		w.s(`<text class="ch-axis-label" text-anchor="middle"`)
		w.a("x", (c.l+c.r)/2)
		w.a("y", c.H-6)
		w.s(`>`)
		w.label(o.XLabel, c.r-c.l, fs)
		w.s(`</text>`)
	}
	y := c.base()
	w.s(`<line class="ch-axis"`)
	w.a("x1", c.l)
	w.a("x2", c.r)
	w.a("y1", y)
	w.a("y2", y)
	w.s(`/>`)
}

func (c *cart) categoryLabels(w *buf) {
	fs := c.fs
	if c.rot {
		w.s(`<g class="ch-tick" text-anchor="end">`)
	} else {
		w.s(`<g class="ch-tick" text-anchor="middle">`)
	}
	for i := 0; i < c.n && i < len(c.labels); i += c.step {
		lab := c.label(i)
		if lab == "" {
			continue
		}
		x := c.xc(i)
		if c.rot {
			w.s(`<text transform="translate(`)
			w.pt(x+fs*0.3, c.b+fs*0.8+4)
			w.s(`) rotate(-`)
			w.b = strconv.AppendInt(w.b, rotAngle, 10)
			w.s(`)">`)
			w.label(lab, min(c.labW, (x-4)/cosRot), fs)
		} else {
			w.s(`<text`)
			w.a("x", x)
			w.a("y", c.b+fs+6)
			w.s(`>`)
			w.label(lab, c.labW, fs)
		}
		w.s(`</text>`)
	}
	w.s(`</g>`)
}

func (c *cart) numberLabels(w *buf) {
	w.s(`<g class="ch-tick" text-anchor="middle">`)
	for i := 0; i < len(c.xTicks); i += c.step {
		t := c.xTicks[i]
		w.s(`<text`)
		w.a("x", c.xv(t))
		w.a("y", c.b+c.fs+6)
		w.s(`>`)
		w.esc(c.xFmt.format(t))
		w.s(`</text>`)
	}
	w.s(`</g>`)
}

// Index finds the category an annotation's x names: a label equal to it (exactly,
// then ignoring case), else a 0-based index written as a number.
func Index(x string, labels []string, n int) (int, bool) {
	x = strings.TrimSpace(x)
	if x == "" {
		return 0, false
	}
	labels = capLen(labels, n)
	for i, l := range labels {
		if strings.TrimSpace(l) == x {
			return i, true
		}
	}
	for i, l := range labels {
		if strings.EqualFold(strings.TrimSpace(l), x) {
			return i, true
		}
	}
	if f, err := strconv.ParseFloat(x, 64); err == nil && f == math.Trunc(f) && f >= 0 && f < float64(n) {
		return int(f), true
	}
	return 0, false
}

// annotationRows counts the annotations that name a category, and the label rows
// they need (two when there is more than one, so neighbours can alternate).
func annotationRows(anns []Annotation, labels []string, n int) int {
	k := 0
	for _, a := range capLen(anns, MaxAnnotations) {
		if _, ok := Index(a.X, labels, n); ok {
			k++
		}
	}
	return min(k, 2)
}

// annotations draws a dashed vertical line at each annotated category, and its
// label above the plot; a label that would overlap the one before it goes on the
// second row.
func (c *cart) annotations(w *buf, anns []Annotation) {
	fs := c.fs
	var placed [2][][2]float64 // the extents of the labels on each row
	for _, a := range capLen(anns, MaxAnnotations) {
		i, ok := Index(a.X, c.labels, c.n)
		if !ok {
			continue
		}
		x := c.xc(i)
		w.s(`<g class="ch-ann"`)
		if col := CleanColor(a.Color); col != "" {
			w.at("stroke", col)
		}
		w.s(`><line`)
		w.a("x1", x)
		w.a("x2", x)
		w.a("y1", c.t-4)
		w.a("y2", c.b)
		w.s(` stroke-dasharray="4 3"/>`)
		if strings.TrimSpace(a.Label) != "" {
			shown, _ := fit(a.Label, c.W*0.4, fs)
			tw := textW(shown, fs)
			lx := min(max(x, 2+tw/2), c.W-2-tw/2)
			x0, x1 := lx-tw/2-4, lx+tw/2+4
			row := 0
			for _, e := range placed[0] {
				if x0 < e[1] && e[0] < x1 {
					row = 1
				}
			}
			placed[row] = append(placed[row], [2]float64{x0, x1})
			w.s(`<text class="ch-ann-label" text-anchor="middle"`)
			w.a("x", lx)
			w.a("y", c.t-8-float64(row)*(fs+4))
			w.s(`>`)
			w.label(a.Label, c.W*0.4, fs)
			w.s(`</text>`)
		}
		w.s(`</g>`)
	}
}

// valueTitle writes a shape's tooltip: "series · category: value".
func (w *buf) valueTitle(series, category string, v float64) {
	w.s(`<title>`)
	series, category = strings.TrimSpace(series), strings.TrimSpace(category)
	if series != "" {
		w.esc(clip(series, 80))
		if category != "" {
			w.s(` · `)
		}
	}
	if category != "" {
		w.esc(clip(category, 80))
	}
	if series != "" || category != "" {
		w.s(`: `)
	}
	w.esc(Format(v))
	w.s(`</title>`)
}
