package chart

// Heatmaps: a grid of cells coloured by value on a fixed scale, each cell showing
// its value in the text colour with the better contrast on it; row labels on the
// left, column labels on top (rotated when they are wider than a cell), and a
// colour legend from min to max below. Unlike the other charts a heatmap is drawn
// at its own size (its box scrolls when it is wider than the page), so its text
// never shrinks. At most MaxCells rows and MaxCells columns are drawn.

import (
	"math"
	"strings"
)

// HeatmapSpec is what a heatmap shows.
type HeatmapSpec struct {
	Rows, Columns []string
	Values        [][]float64 // rows × columns, NaN for an empty cell
	// Scale is green_red (the default), blue_red or gray_blue.
	Scale string
	// Min and Max fix the ends of the colour scale when HasMin / HasMax.
	Min, Max       float64
	HasMin, HasMax bool
}

// HeatSize is how many rows and columns a heatmap draws: the longer of the labels
// and the values, at most MaxCells each.
func HeatSize(h HeatmapSpec) (rows, cols int) {
	rows = min(max(len(h.Rows), len(h.Values)), MaxCells)
	cols = len(h.Columns)
	for _, r := range capLen(h.Values, MaxCells) {
		cols = max(cols, len(r))
	}
	return rows, min(cols, MaxCells)
}

// heatRange is the span of the colour scale: Min and Max when given (in order),
// the smallest and largest drawn value otherwise; count is the number of values.
func heatRange(h HeatmapSpec) (lo, hi float64, count int) {
	nr, nc := HeatSize(h)
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range capLen(h.Values, nr) {
		for _, v := range capLen(r, nc) {
			if v, ok := val(v); ok {
				lo, hi = min(lo, v), max(hi, v)
				count++
			}
		}
	}
	if count == 0 {
		lo, hi = 0, 1
	}
	if v, ok := val(h.Min); h.HasMin && ok {
		lo = v
	}
	if v, ok := val(h.Max); h.HasMax && ok {
		hi = v
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	return lo, hi, count
}

func heatAt(h *HeatmapSpec, r, c int) (float64, bool) {
	if r >= len(h.Values) || c >= len(h.Values[r]) {
		return 0, false
	}
	return val(h.Values[r][c])
}

func labelAt(l []string, i int) string {
	if i < len(l) {
		return strings.TrimSpace(l[i])
	}
	return ""
}

// Heatmap draws a heatmap.
func Heatmap(h HeatmapSpec, o Options) string {
	_, _, fs := o.size()
	nr, nc := HeatSize(h)
	lo, hi, count := heatRange(h)
	scale := heatScale(h.Scale)

	widestV := 0.0
	for r := 0; r < nr; r++ {
		for c := 0; c < nc; c++ {
			if v, ok := heatAt(&h, r, c); ok {
				widestV = max(widestV, textW(compact(v), fs))
			}
		}
	}
	cw := min(max(widestV+16, 44), 88)
	const ch = 30.0
	rowW := 0.0
	for r := 0; r < nr; r++ {
		rowW = max(rowW, textW(clip(labelAt(h.Rows, r), 40), fs))
	}
	rowW = min(rowW, 160)
	left := 4.0
	if rowW > 0 {
		left = rowW + 14
	}
	colW := 0.0
	for c := 0; c < nc; c++ {
		colW = max(colW, textW(clip(labelAt(h.Columns, c), 40), fs))
	}
	rot := colW > cw-8
	top, right := fs+12, 8.0
	if rot {
		colW = min(colW, 130)
		top = colW*0.7071 + fs + 10
		right = max(right, colW*0.7071)
	}
	gridW, gridH := float64(nc)*cw, float64(nr)*ch
	legendW := min(max(gridW, 160), 260)
	W := max(left+gridW+right, left+legendW+8, 200)
	legendY := top + gridH + 16
	H := legendY + 10 + fs + 14

	title := o.Title
	if strings.TrimSpace(title) == "" {
		title = "Heatmap"
	}
	var d strings.Builder
	d.WriteString("Heatmap, " + plural(nr, "row", "rows") + " × " + plural(nc, "column", "columns"))
	if count == 0 {
		d.WriteString(", no values")
	} else if empty := nr*nc - count; empty > 0 {
		d.WriteString(", " + plural(empty, "empty cell", "empty cells"))
	}
	d.WriteString("; colours from " + heatScales[scale].words + ", scale " + Format(lo) + " to " + Format(hi) + ".")
	if len(h.Rows) > MaxCells || len(h.Values) > MaxCells || len(h.Columns) > MaxCells {
		d.WriteString(" Only the first " + itoa(MaxCells) + " rows and columns are drawn.")
	}

	id := cleanID(o.ID)
	w := newBuf(2048 + nr*nc*160)
	w.open("heatmap", id, title, d.String(), W, H, fs, true)

	w.s(`<g class="ch-tick" text-anchor="end">`)
	for r := 0; r < nr; r++ {
		if l := labelAt(h.Rows, r); l != "" {
			w.s(`<text`)
			w.a("x", left-10)
			w.a("y", top+float64(r)*ch+ch/2+fs*0.35)
			w.s(`>`)
			w.label(l, rowW, fs)
			w.s(`</text>`)
		}
	}
	if rot {
		w.s(`</g><g class="ch-tick" text-anchor="start">`)
	} else {
		w.s(`</g><g class="ch-tick" text-anchor="middle">`)
	}
	for c := 0; c < nc; c++ {
		l := labelAt(h.Columns, c)
		if l == "" {
			continue
		}
		x := left + float64(c)*cw + cw/2
		if rot {
			w.s(`<text transform="translate(`)
			w.pt(x-fs*0.3, top-6)
			w.s(`) rotate(-45)">`)
			w.label(l, colW, fs)
		} else {
			w.s(`<text`)
			w.a("x", x)
			w.a("y", top-8)
			w.s(`>`)
			w.label(l, cw-4, fs)
		}
		w.s(`</text>`)
	}
	w.s(`</g>`)

	titles := nr*nc <= 2500
	for r := 0; r < nr; r++ {
		for c := 0; c < nc; c++ {
			x, y := left+float64(c)*cw+1, top+float64(r)*ch+1
			v, ok := heatAt(&h, r, c)
			var fill, text string
			if ok {
				t := 0.5
				if hi > lo {
					t = (v - lo) / (hi - lo)
				}
				fill, text = heatColor(heatScales[scale].name, t)
			}
			w.s(`<rect`)
			if ok {
				w.s(` fill="`)
				w.s(fill)
				w.s(`"`)
			} else {
				w.s(` class="ch-empty" fill="#eef1f4"`)
			}
			w.a("x", x)
			w.a("y", y)
			w.a("width", cw-2)
			w.a("height", ch-2)
			w.s(` rx="3"`)
			if titles {
				w.s(`><title>`)
				rl, cl := labelAt(h.Rows, r), labelAt(h.Columns, c)
				if rl == "" {
					rl = "row " + itoa(r+1)
				}
				if cl == "" {
					cl = "column " + itoa(c+1)
				}
				w.esc(clip(rl, 80) + " · " + clip(cl, 80) + ": ")
				if ok {
					w.esc(Format(v))
				} else {
					w.s(`no value`)
				}
				w.s(`</title></rect>`)
			} else {
				w.s(`/>`)
			}
			if ok {
				w.s(`<text text-anchor="middle" pointer-events="none" fill="`)
				w.s(text)
				w.s(`"`)
				w.a("x", x+cw/2-1)
				w.a("y", y+ch/2-1+fs*0.35)
				w.s(`>`)
				w.esc(compact(v))
				w.s(`</text>`)
			}
		}
	}

	// the legend: the scale as a gradient, min and max below it
	w.s(`<defs><linearGradient id="`)
	w.s(id)
	w.s(`-g">`)
	for i, off := range [3]string{"0", "0.5", "1"} {
		w.s(`<stop offset="`)
		w.s(off)
		w.s(`" stop-color="`)
		w.s(hexRGB(heatScales[scale].stops[i]))
		w.s(`"/>`)
	}
	w.s(`</linearGradient></defs><rect class="ch-legend-bar"`)
	w.a("x", left)
	w.a("y", legendY)
	w.a("width", legendW)
	w.s(` height="10" rx="2" fill="url(#`)
	w.s(id)
	w.s(`-g)"/><g class="ch-tick">`)
	w.s(`<text text-anchor="start"`)
	w.a("x", left)
	w.a("y", legendY+10+fs+2)
	w.s(`>`)
	w.esc(compact(lo))
	w.s(`</text><text text-anchor="end"`)
	w.a("x", left+legendW)
	w.a("y", legendY+10+fs+2)
	w.s(`>`)
	w.esc(compact(hi))
	w.s(`</text></g>`)
	return w.close()
}
