package chart

// Pie charts, drawn as a donut: one ring per series (the first outermost, at most
// maxRings), one slice per positive value; zero, negative and missing values have
// no slice. A single ring shows its total in the middle. Slices take the palette in
// category order, or the per-value colours of the series (Series.Colors).

import (
	"math"
	"strings"
)

const maxRings = 4

// PieRings is how many series a pie chart draws as rings.
func PieRings(series []Series) int { return min(len(series), maxRings) }

// Pie draws the series as concentric donut rings.
func Pie(labels []string, series []Series, o Options) string {
	series = capLen(series, maxRings)
	n := Categories(labels, series)
	_, _, fs := o.size()
	const size, cx, cy, R = 240.0, 120.0, 120.0, 116.0
	k := max(len(series), 1)
	inner := R * 0.6
	if k > 1 {
		inner = R * 0.36
	}
	thick := (R - inner) / float64(k)
	title := o.Title
	if strings.TrimSpace(title) == "" {
		title = "Pie chart"
	}
	w := newBuf(1024 + 200*n*k)
	w.open("pie", o.ID, title, describePie(labels, series, n), size, size, fs, false)
	drawn := false
	for ri, s := range series {
		r1 := R - float64(ri)*thick
		r0 := r1 - thick
		if k > 1 {
			r0 += 2
		}
		vals := capLen(s.Values, n)
		total := positiveSum(vals)
		if total <= 0 {
			w.s(`<circle class="ch-ring-track" fill="none" stroke="#eef1f4"`)
			w.a("cx", cx)
			w.a("cy", cy)
			w.a("r", (r0+r1)/2)
			w.a("stroke-width", r1-r0)
			w.s(`/>`)
			continue
		}
		drawn = true
		w.s(`<g class="ch-ring">`)
		a := 0.0
		for i, v := range vals {
			v, ok := val(v)
			if !ok || v <= 0 {
				continue
			}
			a1 := a + v/total*2*math.Pi
			color := ""
			if i < len(s.Colors) {
				color = s.Colors[i]
			}
			w.s(`<path`)
			w.paint(i, color, "ch-slice")
			w.s(` fill-rule="evenodd" d="`)
			slice(w, cx, cy, r0, r1, a, a1)
			w.s(`"><title>`)
			if l := strings.TrimSpace(s.Label); l != "" && k > 1 {
				w.esc(clip(l, 80))
				w.s(` · `)
			}
			if i < len(labels) && strings.TrimSpace(labels[i]) != "" {
				w.esc(clip(strings.TrimSpace(labels[i]), 80))
				w.s(`: `)
			}
			w.esc(Format(v) + " (" + Percent(v/total) + ")")
			w.s(`</title></path>`)
			a = a1
		}
		w.s(`</g>`)
		if k == 1 {
			w.s(`<text class="ch-pie-total" text-anchor="middle" font-size="26" font-weight="600"`)
			w.a("x", cx)
			w.a("y", cy+4)
			w.s(`>`)
			w.esc(short(total))
			w.s(`</text><text class="ch-tick" text-anchor="middle"`)
			w.a("x", cx)
			w.a("y", cy+4+fs+6)
			w.s(`>Total</text>`)
		}
	}
	if !drawn {
		w.s(`<text class="ch-empty-label" text-anchor="middle"`)
		w.a("x", cx)
		w.a("y", cy+4)
		w.s(`>No data</text>`)
	}
	return w.close()
}

func positiveSum(vals []float64) float64 {
	total := 0.0
	for _, v := range vals {
		if v, ok := val(v); ok && v > 0 {
			total += v
		}
	}
	if math.IsInf(total, 0) {
		return bigValue
	}
	return total
}

// slice writes the outline of a ring sector from angle a0 to a1 (radians clockwise
// from the top) between radii r0 and r1; a whole ring is two half arcs each way.
func slice(w *buf, cx, cy, r0, r1, a0, a1 float64) {
	p := func(r, a float64) { w.pt(cx+r*math.Sin(a), cy-r*math.Cos(a)) }
	arc := func(r float64, large, sweep string, a float64) {
		w.s(`A`)
		w.n(r)
		w.s(` `)
		w.n(r)
		w.s(` 0 `)
		w.s(large)
		w.s(` `)
		w.s(sweep)
		w.s(` `)
		p(r, a)
	}
	if a1-a0 >= 2*math.Pi-1e-6 {
		w.s(`M`)
		p(r1, 0)
		arc(r1, "1", "1", math.Pi)
		arc(r1, "1", "1", 0)
		w.s(`ZM`)
		p(r0, 0)
		arc(r0, "1", "0", math.Pi)
		arc(r0, "1", "0", 0)
		w.s(`Z`)
		return
	}
	large := "0"
	if a1-a0 > math.Pi {
		large = "1"
	}
	w.s(`M`)
	p(r1, a0)
	arc(r1, large, "1", a1)
	w.s(`L`)
	p(r0, a1)
	arc(r0, large, "0", a0)
	w.s(`Z`)
}

// describePie lists the first ring's slices with their shares.
func describePie(labels []string, series []Series, n int) string {
	var b strings.Builder
	b.WriteString("Pie chart")
	if len(series) > 1 {
		b.WriteString(", " + plural(len(series), "ring", "rings") + " (the first outermost)")
	}
	if len(series) == 0 {
		b.WriteString(", no values.")
		return b.String()
	}
	vals := capLen(series[0].Values, n)
	total := positiveSum(vals)
	if total <= 0 {
		b.WriteString(", no positive values.")
		return b.String()
	}
	shown := 0
	for i, v := range vals {
		v, ok := val(v)
		if !ok || v <= 0 {
			continue
		}
		if shown++; shown > 12 {
			b.WriteString(", …")
			break
		}
		if shown == 1 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		if i < len(labels) && strings.TrimSpace(labels[i]) != "" {
			b.WriteString(clip(strings.TrimSpace(labels[i]), 80) + " ")
		}
		b.WriteString(Format(v) + " (" + Percent(v/total) + ")")
	}
	b.WriteString(". Total " + Format(total) + ".")
	return b.String()
}
