package chart

// Meters: a horizontal bar filled to a fraction (progress bars and funnel steps).
// Widths are percentages of the box, so the bar stretches to any width without a
// viewBox and its rounded ends stay round. The SVG is aria-hidden: the caller gives
// the value in words (and role="progressbar" where it is one).

// Meter draws a bar filled to frac (clamped to 0..1) of its width, height pixels
// high; centred puts the filled part in the middle (a funnel step) instead of at
// the start. color is the agent's colour ("" or refused: the palette's first).
func Meter(frac float64, color string, centred bool, height int) string {
	if !(frac > 0) {
		frac = 0
	}
	frac = min(frac, 1)
	h := float64(min(max(height, 4), 64))
	w := newBuf(400)
	w.s(`<svg xmlns="http://www.w3.org/2000/svg" class="ch ch-meter" width="100%"`)
	w.a("height", h)
	w.s(` aria-hidden="true" focusable="false"><rect class="ch-track" width="100%"`)
	w.a("height", h)
	w.a("rx", h/2)
	w.s(` fill="#eef1f4"/>`)
	if frac > 0 {
		pct := frac * 100
		w.s(`<g`)
		w.paint(0, color, "ch-fill")
		w.s(`><rect stroke="none"`)
		if centred {
			w.s(` x="`)
			w.n((100 - pct) / 2)
			w.s(`%"`)
		}
		w.s(` width="`)
		w.n(pct)
		w.s(`%"`)
		w.a("height", h)
		w.a("rx", h/2)
		w.s(`/></g>`)
	}
	w.s(`</svg>`)
	return string(w.b)
}
