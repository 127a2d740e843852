package chart

// The SVG writer: one growing byte slice per chart. Text goes through appendEsc and
// numbers through appendNum, so nothing an agent wrote can open an element or an
// attribute, and no NaN or Inf ever reaches the output.

import (
	"math"
	"strconv"
	"unicode/utf8"
)

type buf struct{ b []byte }

func newBuf(n int) *buf { return &buf{b: make([]byte, 0, n)} }

// s writes trusted markup (constants of this package).
func (w *buf) s(x string) { w.b = append(w.b, x...) }

// esc writes agent text, escaped.
func (w *buf) esc(x string) { w.b = appendEsc(w.b, x) }

// n writes a number.
func (w *buf) n(v float64) { w.b = appendNum(w.b, v) }

// a writes ` name="number"`.
func (w *buf) a(name string, v float64) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, name...)
	w.b = append(w.b, '=', '"')
	w.b = appendNum(w.b, v)
	w.b = append(w.b, '"')
}

// at writes ` name="text"` with the text escaped.
func (w *buf) at(name, v string) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, name...)
	w.b = append(w.b, '=', '"')
	w.b = appendEsc(w.b, v)
	w.b = append(w.b, '"')
}

// pt writes "x,y" (a path or polygon coordinate).
func (w *buf) pt(x, y float64) {
	w.b = appendNum(w.b, x)
	w.b = append(w.b, ',')
	w.b = appendNum(w.b, y)
}

// coordLimit bounds every number written: far beyond any viewBox, far below the
// range where browsers misbehave.
const coordLimit = 1e7

// appendNum writes v rounded to 2 decimals, without trailing zeros; NaN and Inf
// (which a caller should never pass) become 0.
func appendNum(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	v = math.Round(max(-coordLimit, min(coordLimit, v))*100) / 100
	if v == 0 {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// appendEsc writes text for an XML text node or quoted attribute: the five markup
// characters become references, control characters become spaces, invalid UTF-8
// becomes U+FFFD and the non-characters U+FFFE/U+FFFF are dropped.
func appendEsc(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '&':
			b = append(b, "&amp;"...)
		case r == '<':
			b = append(b, "&lt;"...)
		case r == '>':
			b = append(b, "&gt;"...)
		case r == '"':
			b = append(b, "&#34;"...)
		case r == '\'':
			b = append(b, "&#39;"...)
		case r == utf8.RuneError && size == 1:
			b = append(b, "\uFFFD"...)
		case r < 0x20 || r >= 0x7f && r < 0xa0:
			b = append(b, ' ')
		case r == 0xFFFE || r == 0xFFFF:
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

// cleanID keeps an id to [A-Za-z0-9_-] (other characters become "_"), at most 200
// bytes, never empty.
func cleanID(id string) string {
	if id == "" {
		return "ch"
	}
	if len(id) > 200 {
		id = id[:200]
	}
	out := []byte(id)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			out[i] = '_'
		}
	}
	return string(out)
}

// open starts a chart's SVG document: the viewBox, the accessible name and its
// description (role="img" with aria-labelledby/aria-describedby pointing at the
// <title> and <desc> children). natural draws it at its own size (heatmaps, which
// scroll in their box) instead of the width of its box.
func (w *buf) open(kind, id, title, desc string, vw, vh, fs float64, natural bool) {
	id = cleanID(id)
	w.s(`<svg xmlns="http://www.w3.org/2000/svg" class="ch ch-`)
	w.s(kind)
	w.s(`" viewBox="0 0 `)
	w.n(vw)
	w.s(` `)
	w.n(vh)
	if natural {
		w.s(`"`)
		w.a("width", vw)
		w.a("height", vh)
	} else {
		w.s(`" width="100%" preserveAspectRatio="xMidYMid meet"`)
	}
	w.s(` role="img" aria-labelledby="`)
	w.s(id)
	w.s(`-t" aria-describedby="`)
	w.s(id)
	w.s(`-d"`)
	w.a("font-size", fs)
	w.s(`><title id="`)
	w.s(id)
	w.s(`-t">`)
	w.esc(clip(title, maxRunes))
	w.s(`</title><desc id="`)
	w.s(id)
	w.s(`-d">`)
	w.esc(desc)
	w.s(`</desc>`)
}

func (w *buf) close() string {
	w.s(`</svg>`)
	return string(w.b)
}

// paint gives shape(s) the colour of series i: the theme class sN (with a fixed
// fallback colour for the SVG shown without the page's stylesheet, which the class
// overrides), or the agent's colour when CleanColor accepts it. extra is a class of
// this package added to the element.
func (w *buf) paint(i int, color, extra string) {
	if c := CleanColor(color); c != "" {
		if extra != "" {
			w.s(` class="`)
			w.s(extra)
			w.s(`"`)
		}
		w.at("fill", c)
		w.at("stroke", c)
		return
	}
	w.s(` class="`)
	if extra != "" {
		w.s(extra)
		w.s(` `)
	}
	w.s(SeriesClass(i))
	w.s(`" fill="`)
	w.s(fallback[((i%8)+8)%8])
	w.s(`" stroke="`)
	w.s(fallback[((i%8)+8)%8])
	w.s(`"`)
}

// fallback are the light theme's chart colours, used only by an SVG shown without
// the page's stylesheet (the classes s1…s8 override them).
var fallback = [8]string{"#0969da", "#bf3989", "#1a7f37", "#9a6700", "#8250df", "#cf222e", "#1b7c83", "#57606a"}
