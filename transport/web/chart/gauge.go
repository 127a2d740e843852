package chart

// Gauges: a half-circle arc from 0 to max, filled up to the value, with the
// thresholds as coloured bands just outside the arc and the value written large in
// the middle. The value's arc takes the colour of the band it falls in. Values
// outside 0..max are drawn clamped (the text keeps the real value); a max that is
// missing, zero or negative becomes a round number above the value (GaugeMax).

import (
	"math"
	"sort"
	"strings"
)

// Threshold is where a band of a gauge starts, and its colour.
type Threshold struct {
	Value float64
	Color string
}

// GaugeSpec is what a gauge shows.
type GaugeSpec struct {
	Value      float64
	Max        float64 // ≤ 0 or NaN: see GaugeMax
	Unit       string
	Thresholds []Threshold
}

// GaugeMax is the top of a gauge's scale: max when it is positive and finite, else
// 100, or a round number at or above the value when that exceeds 100.
func GaugeMax(value, maxV float64) float64 {
	if m, ok := val(maxV); ok && m > 0 {
		return m
	}
	if v, ok := val(value); ok && v > 100 {
		step := niceStep(v / 10)
		return math.Ceil(v/step) * step
	}
	return 100
}

// SortedThresholds are the thresholds with a finite value, in ascending order (the
// first MaxPoints of them).
func SortedThresholds(th []Threshold) []Threshold {
	out := make([]Threshold, 0, min(len(th), MaxPoints))
	for _, t := range capLen(th, MaxPoints) {
		if v, ok := val(t.Value); ok {
			out = append(out, Threshold{Value: v, Color: t.Color})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

// Band is the index in SortedThresholds of the band holding value (the last
// threshold at or below it), or -1 when it lies below every threshold.
func Band(value float64, sorted []Threshold) int {
	b := -1
	for i, t := range sorted {
		if value >= t.Value {
			b = i
		}
	}
	return b
}

// Gauge draws a gauge.
func Gauge(g GaugeSpec, o Options) string {
	const W, H, cx, cy, R, width = 240.0, 150.0, 120.0, 124.0, 92.0, 18.0
	value, ok := val(g.Value)
	maxV := GaugeMax(g.Value, g.Max)
	frac := 0.0
	if ok {
		frac = min(max(value/maxV, 0), 1)
	}
	th := SortedThresholds(g.Thresholds)
	band := -1
	if ok {
		band = Band(value, th)
	}
	unit := strings.TrimSpace(clip(g.Unit, 40))
	valueText := "–"
	if ok {
		valueText = compact(value)
	}

	title := o.Title
	if strings.TrimSpace(title) == "" {
		title = "Gauge"
	}
	var d strings.Builder
	if ok {
		d.WriteString(Format(value))
	} else {
		d.WriteString("No value")
	}
	if unit != "" {
		if unit != "%" {
			d.WriteString(" ")
		}
		d.WriteString(unit)
	}
	d.WriteString(" of " + Format(maxV))
	if ok {
		d.WriteString(" (" + Percent(value/maxV) + ")")
	}
	d.WriteString(".")
	for i, t := range th {
		if i == 0 {
			d.WriteString(" Thresholds:")
		} else if i >= 12 {
			d.WriteString(" …")
			break
		} else {
			d.WriteString(",")
		}
		d.WriteString(" " + Format(t.Value))
		if c := CleanColor(t.Color); c != "" {
			d.WriteString(" " + c)
		}
	}
	if len(th) > 0 {
		d.WriteString(".")
		if band >= 0 {
			d.WriteString(" The value is at or above the threshold " + Format(th[band].Value) + ".")
		} else if ok {
			d.WriteString(" The value is below every threshold.")
		}
	}

	w := newBuf(2048 + 200*len(th))
	w.open("gauge", o.ID, title, d.String(), W, H, 12, false)
	// the angle of a fraction: π at 0 (left) to 0 at 1 (right), over the top
	pt := func(r, f float64) { w.pt(cx-r*math.Cos(math.Pi*f), cy-r*math.Sin(math.Pi*f)) }
	arc := func(r, f0, f1 float64) {
		w.s(` d="M`)
		pt(r, f0)
		w.s(`A`)
		w.n(r)
		w.s(` `)
		w.n(r)
		w.s(` 0 0 1 `)
		pt(r, f1)
		w.s(`"`)
	}
	w.s(`<path class="ch-ring-track" fill="none" stroke="#eef1f4"`)
	w.a("stroke-width", width)
	arc(R, 0, 1)
	w.s(`/>`)
	for i, t := range th {
		f0 := min(max(t.Value/maxV, 0), 1)
		f1 := 1.0
		if i+1 < len(th) {
			f1 = min(max(th[i+1].Value/maxV, 0), 1)
		}
		if f1 <= f0 {
			continue
		}
		w.s(`<g`)
		w.paint(bandClass(i), t.Color, "ch-band")
		w.s(`><path fill="none" stroke-width="5"`)
		arc(R+width/2+6, f0, f1)
		w.s(`/></g>`)
	}
	if frac > 0 {
		color := ""
		cls := 0
		if band >= 0 {
			color, cls = th[band].Color, bandClass(band)
		}
		w.s(`<g`)
		w.paint(cls, color, "ch-value-arc")
		w.s(`><path fill="none"`)
		w.a("stroke-width", width)
		arc(R, 0, frac)
		w.s(`/></g>`)
	}
	// the value, large, with its unit beside it when short and below when long
	w.s(`<text class="ch-gauge-value" text-anchor="middle" font-size="34" font-weight="600"`)
	w.a("x", cx)
	w.a("y", cy-8)
	w.s(`>`)
	w.esc(valueText)
	if unit != "" && textW(unit, 16) <= 60 {
		w.s(`<tspan class="ch-gauge-unit" font-size="16" font-weight="400" dx="3">`)
		w.esc(unit)
		w.s(`</tspan>`)
	}
	w.s(`</text>`)
	if unit != "" && textW(unit, 16) > 60 {
		w.s(`<text class="ch-gauge-unit" text-anchor="middle" font-size="13"`)
		w.a("x", cx)
		w.a("y", cy+12)
		w.s(`>`)
		w.label(unit, 2*(R-width)-8, 13)
		w.s(`</text>`)
	}
	w.s(`<g class="ch-tick" text-anchor="middle">`)
	w.s(`<text`)
	w.a("x", cx-R)
	w.a("y", cy+20)
	w.s(`>0</text><text`)
	w.a("x", cx+R)
	w.a("y", cy+20)
	w.s(`>`)
	w.esc(compact(maxV))
	w.s(`</text></g>`)
	return w.close()
}

// bandClass is the palette index of a band the agent gave no colour: amber, red,
// purple, pink, then the rest of the palette.
func bandClass(i int) int { return [...]int{3, 5, 4, 1, 6, 2, 7, 0}[i%8] }

// BandClass is the palette class of the i-th band (in SortedThresholds order) when
// its threshold has no usable colour.
func BandClass(i int) string { return SeriesClass(bandClass(i)) }
