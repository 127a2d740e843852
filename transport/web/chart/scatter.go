package chart

// Scatter charts: sets of x/y points on two numeric axes. Points with a NaN
// coordinate are skipped; each point carries its values as a tooltip.

import "strings"

// Scatter draws each series' points.
func Scatter(series []PointSeries, o Options) string {
	series = capSeries(series)
	xlo, xhi, ylo, yhi, count := pointRange(series)
	// a margin of 4% keeps the outermost points off the axes
	px, py := (xhi-xlo)*0.04, (yhi-ylo)*0.04
	c := newNumCart(&o, xlo-px, xhi+px, ylo-py, yhi+py)
	title := o.Title
	if strings.TrimSpace(title) == "" {
		title = "Scatter chart"
	}
	var d strings.Builder
	d.WriteString("Scatter chart, ")
	d.WriteString(plural(count, "point", "points"))
	d.WriteString(" in ")
	d.WriteString(plural(len(series), "series", "series"))
	if count > 0 {
		d.WriteString(", x from " + Format(xlo) + " to " + Format(xhi) + ", y from " + Format(ylo) + " to " + Format(yhi))
	}
	d.WriteString(".")

	w := newBuf(2048 + 120*count)
	w.open("scatter", o.ID, title, d.String(), c.W, c.H, c.fs, false)
	c.frame(w, &o)
	if count == 0 {
		w.s(`<text class="ch-empty-label" text-anchor="middle"`)
		w.a("x", (c.l+c.r)/2)
		w.a("y", (c.t+c.b)/2)
		w.s(`>No data</text>`)
	}
	for si, s := range series {
		w.s(`<g`)
		w.paint(si, s.Color, "ch-points")
		w.s(`>`)
		for _, p := range capLen(s.Points, MaxPoints) {
			x, okx := val(p.X)
			y, oky := val(p.Y)
			if !okx || !oky {
				continue
			}
			w.s(`<circle fill-opacity="0.75" r="4"`)
			w.a("cx", c.xv(x))
			w.a("cy", c.y(y))
			w.s(`><title>`)
			if l := strings.TrimSpace(s.Label); l != "" {
				w.esc(clip(l, 80))
				w.s(`: `)
			}
			w.s(`(`)
			w.esc(Format(x))
			w.s(`, `)
			w.esc(Format(y))
			w.s(`)</title></circle>`)
		}
		w.s(`</g>`)
	}
	return w.close()
}

// pointRange is the extent of the finite points (the first MaxPoints of each
// series) and how many there are.
func pointRange(series []PointSeries) (xlo, xhi, ylo, yhi float64, count int) {
	first := true
	for _, s := range series {
		for _, p := range capLen(s.Points, MaxPoints) {
			x, okx := val(p.X)
			y, oky := val(p.Y)
			if !okx || !oky {
				continue
			}
			if first {
				xlo, xhi, ylo, yhi, first = x, x, y, y, false
			}
			xlo, xhi, ylo, yhi = min(xlo, x), max(xhi, x), min(ylo, y), max(yhi, y)
			count++
		}
	}
	if count == 0 {
		return 0, 1, 0, 1, 0
	}
	return xlo, xhi, ylo, yhi, count
}
