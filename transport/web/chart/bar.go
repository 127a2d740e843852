package chart

// Bar, line and area charts: series of values over categories. Bars are grouped
// per category (a series may colour each bar: Series.Colors), and negative values
// hang below the zero line; lines and areas break
// at gaps (NaN), and a value standing alone between gaps is drawn as a dot.

import (
	"strconv"
	"strings"
)

type kind int

const (
	kindBar kind = iota
	kindLine
	kindArea
)

var kindNames = [...]string{"bar", "line", "area"}

// Bar draws a grouped bar chart of series over the categories labels.
func Bar(labels []string, series []Series, o Options) string {
	return categorical(kindBar, labels, series, o)
}

// Line draws a line chart of series over the categories labels.
func Line(labels []string, series []Series, o Options) string {
	return categorical(kindLine, labels, series, o)
}

// Area draws a line chart with the area under each line filled.
func Area(labels []string, series []Series, o Options) string {
	return categorical(kindArea, labels, series, o)
}

// Categories is how many categories a chart of these labels and series has: the
// longer of the labels and the longest series, at most MaxPoints.
func Categories(labels []string, series []Series) int {
	n := len(labels)
	for _, s := range capSeries(series) {
		n = max(n, len(s.Values))
	}
	return min(n, MaxPoints)
}

func categorical(k kind, labels []string, series []Series, o Options) string {
	series = capSeries(series)
	n := Categories(labels, series)
	labels = capLen(labels, n)
	lo, hi, count := dataRange(series, n)
	ylo, yhi := lo, hi
	if k != kindLine {
		ylo, yhi = min(lo, 0), max(hi, 0)
	}
	rows := annotationRows(o.Annotations, labels, n)
	c := newCart(&o, labels, n, ylo, yhi, rows)

	title := o.Title
	if strings.TrimSpace(title) == "" {
		title = strings.ToUpper(kindNames[k][:1]) + kindNames[k][1:] + " chart"
	}
	w := newBuf(2048 + 160*n*max(len(series), 1))
	w.open(kindNames[k], o.ID, title, describe(k, labels, series, n, count, lo, hi, o.Annotations), c.W, c.H, c.fs, false)
	c.frame(w, &o)
	if count == 0 {
		w.s(`<text class="ch-empty-label" text-anchor="middle"`)
		w.a("x", (c.l+c.r)/2)
		w.a("y", (c.t+c.b)/2)
		w.s(`>No data</text>`)
	}
	switch k {
	case kindBar:
		c.bars(w, series)
	default:
		c.lines(w, series, k == kindArea)
	}
	c.annotations(w, o.Annotations)
	return w.close()
}

func (c *cart) bars(w *buf, series []Series) {
	ns := float64(max(len(series), 1))
	group := c.slot * 0.72
	if len(series) == 1 {
		group = c.slot * 0.6
	}
	bw := group / ns
	gap := 0.0
	switch {
	case bw > 12:
		gap = 2
	case bw > 4:
		gap = 1
	}
	base := c.base()
	for si, s := range series {
		w.s(`<g`)
		w.paint(si, s.Color, "ch-bars")
		w.s(`>`)
		for i, v := range capLen(s.Values, c.n) {
			v, ok := val(v)
			if !ok {
				continue
			}
			x := c.l + c.slot*float64(i) + (c.slot-group)/2 + float64(si)*bw + gap/2
			y := c.y(v)
			w.s(`<rect`)
			if i < len(s.Colors) {
				// a colour per bar (Chart.js style): attributes on the bar win over
				// the colour it inherits from its series
				if col := CleanColor(s.Colors[i]); col != "" {
					w.at("fill", col)
					w.at("stroke", col)
				}
			}
			w.a("x", x)
			w.a("y", min(y, base))
			w.a("width", max(bw-gap, 0.5))
			w.a("height", max(y, base)-min(y, base))
			if bw-gap > 8 {
				w.s(` rx="2"`)
			}
			w.s(`>`)
			w.valueTitle(s.Label, c.label(i), v)
			w.s(`</rect>`)
		}
		w.s(`</g>`)
	}
}

func (c *cart) lines(w *buf, series []Series, area bool) {
	base := c.base()
	for si, s := range series {
		vals := capLen(s.Values, c.n)
		finite := 0
		for _, v := range vals {
			if _, ok := val(v); ok {
				finite++
			}
		}
		w.s(`<g`)
		w.paint(si, s.Color, "ch-series")
		w.s(`>`)
		if area {
			w.s(`<path class="ch-area" fill-opacity="0.16" stroke="none" d="`)
			c.path(w, vals, true, base)
			w.s(`"/>`)
		}
		w.s(`<path class="ch-line" fill="none" stroke-width="2" stroke-linejoin="round" stroke-linecap="round" d="`)
		c.path(w, vals, false, base)
		w.s(`"/>`)
		for i, v := range vals {
			v, ok := val(v)
			if !ok {
				continue
			}
			alone := (i == 0 || !finiteAt(vals, i-1)) && !finiteAt(vals, i+1)
			if finite > 60 && !alone {
				continue
			}
			w.s(`<circle class="ch-dot" stroke-width="2"`)
			w.a("cx", c.xc(i))
			w.a("cy", c.y(v))
			w.s(` r="3">`)
			w.valueTitle(s.Label, c.label(i), v)
			w.s(`</circle>`)
		}
		w.s(`</g>`)
	}
}

func finiteAt(vals []float64, i int) bool {
	if i < 0 || i >= len(vals) {
		return false
	}
	_, ok := val(vals[i])
	return ok
}

// path writes the segments of a line (or, with closed, of the areas under it down
// to base), broken at gaps.
func (c *cart) path(w *buf, vals []float64, closed bool, base float64) {
	start := -1
	flush := func(end int) { // the run start..end-1
		if start < 0 {
			return
		}
		if closed && end-start > 1 {
			w.s(`L`)
			w.pt(c.xc(end-1), base)
			w.s(`L`)
			w.pt(c.xc(start), base)
			w.s(`Z`)
		}
		start = -1
	}
	for i, v := range vals {
		v, ok := val(v)
		if !ok {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			w.s(`M`)
		} else {
			w.s(`L`)
		}
		w.pt(c.xc(i), c.y(v))
	}
	flush(len(vals))
}

// describe summarises a chart for its <desc>: "Bar chart, 3 categories, 2 series,
// values 1 to 4. Marked: Launch at Q2."
func describe(k kind, labels []string, series []Series, n, count int, lo, hi float64, anns []Annotation) string {
	var b strings.Builder
	b.WriteString(strings.ToUpper(kindNames[k][:1]) + kindNames[k][1:] + " chart, ")
	b.WriteString(plural(n, "category", "categories"))
	b.WriteString(", ")
	b.WriteString(plural(len(series), "series", "series"))
	if count == 0 {
		b.WriteString(", no values.")
	} else {
		b.WriteString(", values " + Format(lo) + " to " + Format(hi) + ".")
	}
	marks := 0
	for _, a := range capLen(anns, MaxAnnotations) {
		i, ok := Index(a.X, labels, n)
		if !ok {
			continue
		}
		if marks++; marks > 5 {
			b.WriteString(" …")
			break
		}
		if marks == 1 {
			b.WriteString(" Marked:")
		} else {
			b.WriteString(";")
		}
		b.WriteString(" " + clip(strings.TrimSpace(a.Label), 80) + " at ")
		if i < len(labels) && strings.TrimSpace(labels[i]) != "" {
			b.WriteString(clip(strings.TrimSpace(labels[i]), 80))
		} else {
			b.WriteString("category " + strconv.Itoa(i+1))
		}
	}
	if marks > 0 && marks <= 5 {
		b.WriteString(".")
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
