package chart

// Sparklines: a small line of values stretched to the width of its box (no axes,
// no text — the caller writes the values out in words next to it). Gaps (NaN)
// break the line; the last value is marked with a dot. The SVG is aria-hidden for
// that reason.

// SparkOptions say how a sparkline is drawn.
type SparkOptions struct {
	// Color is the agent's colour; "" or one CleanColor refuses means Class.
	Color string
	// Class is the class giving the colour ("" means the palette's first, s1).
	Class string
	// Height in pixels (clamped to 12..240; 0 means 40).
	Height int
}

// Sparkline draws values as a small line. The line is an inner SVG stretched to
// the box (preserveAspectRatio="none", strokes kept at their width by
// vector-effect); the dots — the last value, and values standing alone between
// gaps — sit in the outer SVG at percentage positions, so they stay round.
func Sparkline(values []float64, o SparkOptions) string {
	values = capLen(values, MaxPoints)
	h := float64(o.Height)
	if h <= 0 {
		h = 40
	}
	h = min(max(h, 12), 240)
	const W = 200.0
	pad := min(4, h/6)
	lo, hi, count := dataRange([]Series{{Values: values}}, -1)
	n := len(values)
	x := func(i int) float64 {
		if n <= 1 {
			return W / 2
		}
		return W * float64(i) / float64(n-1)
	}
	y := func(v float64) float64 {
		if hi == lo {
			return h / 2
		}
		return scaleAt(v, lo, hi, h-pad, pad)
	}
	w := newBuf(512 + 40*n)
	w.s(`<svg xmlns="http://www.w3.org/2000/svg" class="ch ch-spark" width="100%"`)
	w.a("height", h)
	w.s(` overflow="visible" aria-hidden="true" focusable="false"><g`)
	if c := CleanColor(o.Color); c != "" {
		w.at("fill", c)
		w.at("stroke", c)
	} else {
		cls := o.Class
		if !plainClass(cls) {
			cls = "s1"
		}
		w.s(` class="ch-series `)
		w.s(cls)
		w.s(`" fill="#0969da" stroke="#0969da"`)
	}
	w.s(`>`)
	if count > 0 {
		w.s(`<svg viewBox="0 0 200 `)
		w.n(h)
		w.s(`" preserveAspectRatio="none" width="100%"`)
		w.a("height", h)
		w.s(` overflow="visible">`)
		// the area under the line, then the line, both broken at gaps
		w.s(`<path class="ch-area" fill-opacity="0.12" stroke="none" d="`)
		start := -1
		for i := 0; i <= n; i++ {
			ok := false
			var v float64
			if i < n {
				v, ok = val(values[i])
			}
			switch {
			case ok && start < 0:
				start = i
				w.s(`M`)
				w.pt(x(i), y(v))
			case ok:
				w.s(`L`)
				w.pt(x(i), y(v))
			case start >= 0:
				w.s(`L`)
				w.pt(x(i-1), h)
				w.s(`L`)
				w.pt(x(start), h)
				w.s(`Z`)
				start = -1
			}
		}
		w.s(`"/><path fill="none" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round" vector-effect="non-scaling-stroke" d="`)
		for i := 0; i < n; i++ {
			v, ok := val(values[i])
			if !ok {
				continue
			}
			if finiteAt(values, i-1) {
				w.s(`L`)
			} else {
				w.s(`M`)
			}
			w.pt(x(i), y(v))
		}
		w.s(`"/></svg>`)
		last := -1
		for i := n - 1; i >= 0 && last < 0; i-- {
			if finiteAt(values, i) {
				last = i
			}
		}
		for i := 0; i < n; i++ {
			v, ok := val(values[i])
			lone := ok && !finiteAt(values, i-1) && !finiteAt(values, i+1)
			if i != last && !lone {
				continue
			}
			w.s(`<circle stroke="none" cx="`)
			w.n(x(i) / W * 100)
			w.s(`%"`)
			w.a("cy", y(v))
			if i == last {
				w.s(` r="3"/>`)
			} else {
				w.s(` r="1.75"/>`)
			}
		}
	}
	w.s(`</g></svg>`)
	return string(w.b)
}

// plainClass accepts a class name made of [a-z0-9-] only.
func plainClass(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
