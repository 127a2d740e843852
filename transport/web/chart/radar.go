package chart

// Radar charts: one axis per category around a circle, one closed polygon per
// series. Fewer than 3 categories make no polygon, so those are drawn as bars.
// Axis labels are placed around the rim, thinned when there are many and cut to
// the room beside the chart.

import (
	"math"
	"strings"
)

// Radar draws each series as a polygon over the categories' axes.
func Radar(labels []string, series []Series, o Options) string {
	series = capSeries(series)
	n := Categories(labels, series)
	if n < 3 {
		return categorical(kindBar, labels, series, o)
	}
	labels = capLen(labels, n)
	W, H, fs := o.size()
	lo, hi, count := dataRange(series, n)
	ticks, _ := niceTicks(min(lo, 0), hi, 4)
	d0, d1 := ticks[0], ticks[len(ticks)-1]
	f := newNumFmt(ticks[1]-ticks[0], max(math.Abs(d0), math.Abs(d1)))

	widest := 0.0
	for i := 0; i < n && i < len(labels); i++ {
		widest = max(widest, textW(clip(strings.TrimSpace(labels[i]), 40), fs))
	}
	widest = min(widest, W*0.175, 150)
	cx, cy := W/2, H/2
	R := max(min(W/2-widest-16, H/2-fs*1.5-8), 40)
	step := 1
	if per := 2 * math.Pi * R / float64(n); per < fs*1.4 {
		step = int(math.Ceil(fs * 1.4 / per))
	}
	at := func(r float64, i int) (float64, float64) {
		a := 2 * math.Pi * float64(i) / float64(n)
		return cx + r*math.Sin(a), cy - r*math.Cos(a)
	}
	radius := func(v float64) float64 { return scaleAt(v, d0, d1, 0, R) }

	title := o.Title
	if strings.TrimSpace(title) == "" {
		title = "Radar chart"
	}
	desc := "Radar chart, " + plural(n, "axis", "axes") + ", " + plural(len(series), "series", "series")
	if count == 0 {
		desc += ", no values."
	} else {
		desc += ", values " + Format(lo) + " to " + Format(hi) + "."
	}
	w := newBuf(2048 + 120*n*max(len(series), 1))
	w.open("radar", o.ID, title, desc, W, H, fs, false)

	w.s(`<g class="ch-grid" fill="none">`)
	for _, t := range ticks[1:] {
		w.s(`<polygon points="`)
		for i := 0; i < n; i++ {
			if i > 0 {
				w.s(` `)
			}
			w.pt(at(radius(t), i))
		}
		w.s(`"/>`)
	}
	for i := 0; i < n; i++ {
		x, y := at(R, i)
		w.s(`<line`)
		w.a("x1", cx)
		w.a("y1", cy)
		w.a("x2", x)
		w.a("y2", y)
		w.s(`/>`)
	}
	// ring values beside the top axis, haloed; the outermost is left out when the
	// first category's label sits there
	w.s(`</g><g class="ch-tick ch-halo" text-anchor="end">`)
	for i, t := range ticks[1:] {
		if i == len(ticks)-2 && len(labels) > 0 && strings.TrimSpace(labels[0]) != "" {
			break
		}
		w.s(`<text`)
		w.a("x", cx-5)
		w.a("y", cy-radius(t)+fs*0.35)
		w.s(`>`)
		w.esc(f.format(t))
		w.s(`</text>`)
	}
	w.s(`</g><g class="ch-tick ch-radar-label">`)
	for i := 0; i < n && i < len(labels); i += step {
		lab := strings.TrimSpace(labels[i])
		if lab == "" {
			continue
		}
		a := 2 * math.Pi * float64(i) / float64(n)
		x, y := at(R+10, i)
		sin, cos := math.Sin(a), math.Cos(a)
		anchor, room := "middle", min(W*0.3, 2*min(x, W-x)-8)
		switch {
		case sin > 0.3:
			anchor, room = "start", W-x-4
		case sin < -0.3:
			anchor, room = "end", x-4
		}
		switch {
		case cos < -0.3:
			y += fs * 0.8
		case cos <= 0.3:
			y += fs * 0.35
		default:
			y -= 2
		}
		w.s(`<text text-anchor="`)
		w.s(anchor)
		w.s(`"`)
		w.a("x", x)
		w.a("y", y)
		w.s(`>`)
		w.label(lab, room, fs)
		w.s(`</text>`)
	}
	w.s(`</g>`)

	for si, s := range series {
		vals := capLen(s.Values, n)
		w.s(`<g`)
		w.paint(si, s.Color, "ch-series")
		w.s(`><path class="ch-area" fill-opacity="0.14" stroke-width="2" stroke-linejoin="round" d="`)
		first := true
		for i, v := range vals {
			if v, ok := val(v); ok {
				if first {
					w.s(`M`)
					first = false
				} else {
					w.s(`L`)
				}
				w.pt(at(radius(v), i))
			}
		}
		if !first {
			w.s(`Z`)
		}
		w.s(`"/>`)
		for i, v := range vals {
			v, ok := val(v)
			if !ok {
				continue
			}
			x, y := at(radius(v), i)
			w.s(`<circle class="ch-dot" stroke-width="2" r="3"`)
			w.a("cx", x)
			w.a("cy", y)
			w.s(`>`)
			lab := ""
			if i < len(labels) {
				lab = labels[i]
			}
			w.valueTitle(s.Label, lab, v)
			w.s(`</circle>`)
		}
		w.s(`</g>`)
	}
	return w.close()
}
