// Package chart draws charts as SVG markup: bar, line, area, scatter, pie (a donut)
// and radar charts, sparklines, gauges, meters (progress and funnel bars) and
// heatmaps. It is pure and deterministic: plain Go values in, the same bytes out
// every time (nothing is read from a map while writing).
//
// The rule it keeps: what it returns is safe to inline in an HTML page under a
// strict Content-Security-Policy. Every piece of text is escaped (appendEsc), every
// number written is finite and bounded (appendNum), a colour reaches a fill or stroke
// attribute only when CleanColor accepts it, and no style attribute is ever written:
// series take their colours from the classes s1…s8, which the page's stylesheet maps
// onto its theme (light and dark). Work and output are bounded by MaxSeries,
// MaxPoints and MaxCells whatever the input.
package chart

import (
	"math"
	"strconv"
)

// Bounds on what one chart draws; the rest of the input is ignored (callers say so
// next to the chart).
const (
	// MaxSeries is the most series (datasets) one chart draws.
	MaxSeries = 24
	// MaxPoints is the most values drawn per series, and the most categories.
	MaxPoints = 1000
	// MaxCells is the most rows, and the most columns, of a heatmap drawn.
	MaxCells = 100
	// MaxAnnotations is the most annotation markers drawn on one chart.
	MaxAnnotations = 50
	// maxRunes is the longest text kept of any label (in a <title> tooltip).
	maxRunes = 300
	// bigValue is where values are clamped: 1e400-style input arrives as ±Inf.
	bigValue = 1e300
)

// Series is one named row of values. NaN marks a gap (no value).
type Series struct {
	Label  string
	Values []float64
	// Color is the agent's colour for the series; "" or a colour CleanColor
	// refuses means the theme's palette.
	Color string
	// Colors are per-value colours (pie slices), used where Color is not.
	Colors []string
}

// Point is one x/y pair of a scatter chart.
type Point struct{ X, Y float64 }

// PointSeries is one named set of points of a scatter chart.
type PointSeries struct {
	Label  string
	Points []Point
	Color  string
}

// Annotation marks one category of a bar, line or area chart with a vertical line
// and a label. X names the category by its label text, or by its 0-based index.
type Annotation struct {
	X     string
	Label string
	Color string
}

// Options say how a chart is drawn.
type Options struct {
	// ID prefixes the ids inside the SVG (its title, desc, gradients); it must be
	// unique on the page. Characters outside [A-Za-z0-9_-] are replaced.
	ID string
	// Title is the chart's accessible name ("" gives the kind's name).
	Title string
	// XLabel and YLabel name the axes.
	XLabel, YLabel string
	// Annotations mark categories (bar, line and area charts).
	Annotations []Annotation
	// Width and Height are the size of the coordinate system (the viewBox); the
	// SVG scales to the width of its box. 0 means 720 × 320.
	Width, Height int
	// FontSize is the text size in viewBox units (0 means 12).
	FontSize float64
}

func (o *Options) size() (w, h, fs float64) {
	w, h, fs = float64(o.Width), float64(o.Height), o.FontSize
	if w <= 0 {
		w = 720
	}
	if h <= 0 {
		h = 320
	}
	if !(fs > 0) {
		fs = 12
	}
	return min(max(w, 200), 2000), min(max(h, 120), 1200), min(max(fs, 8), 24)
}

// val reads one value: ok is false for a gap (NaN); infinities and values beyond
// ±1e300 are clamped so that every scale stays finite.
func val(v float64) (float64, bool) {
	if math.IsNaN(v) {
		return 0, false
	}
	return max(-bigValue, min(bigValue, v)), true
}

// capSeries keeps at most MaxSeries series.
func capSeries[T any](s []T) []T {
	if len(s) > MaxSeries {
		return s[:MaxSeries]
	}
	return s
}

func capLen[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// SeriesClass is the palette class of the i-th series ("s1" … "s8", repeating).
func SeriesClass(i int) string {
	return classNames[((i%8)+8)%8]
}

var classNames = [8]string{"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"}

// itoa is strconv.Itoa, short.
func itoa(i int) string { return strconv.Itoa(i) }
