package render

import (
	"html/template"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The template functions every block template may use. Pages have a strict CSP
// (no inline style attributes, no inline scripts), so sizes an agent chooses become
// one of a fixed set of classes (widthClass, heightClass) or SVG attributes, and
// colours pass color() before they reach a fill or stroke attribute.
func init() {
	addFuncs(template.FuncMap{
		"md":          markdown,
		"mdAt":        markdownAt,
		"href":        href,
		"src":         src,
		"icon":        Icon,
		"num":         formatNumber,
		"color":       Color,
		"widthClass":  widthClass,
		"heightClass": heightClass,
		"humanize":    humanize,
		"heading":     heading,
		"add":         func(a, b int) int { return a + b },
		"sub":         func(a, b int) int { return a - b },
	})
}

// href is safeURL for templates: the address, or "" when it must not be linked.
func href(s string) string {
	u, _ := safeURL(s)
	return u
}

// src is safeWebURL for templates: the address a browser may load, or "".
func src(s string) string {
	u, _ := safeWebURL(s)
	return u
}

// formatNumber shows a number the way people read it: integers with thousands
// separators, others with up to 2 decimals (more only for small values).
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "–"
	case math.IsInf(f, 1):
		return "∞"
	case math.IsInf(f, -1):
		return "-∞"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return group(strconv.FormatInt(int64(f), 10))
	}
	prec := 2
	if a := math.Abs(f); a < 1 && a > 0 {
		prec = max(2, int(math.Ceil(-math.Log10(a)))+1)
		prec = min(prec, 8)
	}
	s := strconv.FormatFloat(f, 'f', prec, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	whole, frac, _ := strings.Cut(s, ".")
	if frac != "" {
		return group(whole) + "." + frac
	}
	return group(whole)
}

func group(digits string) string {
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	if len(digits) <= 3 {
		if neg {
			return "-" + digits
		}
		return digits
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	first := len(digits) % 3
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += 3 {
		if b.Len() > 0 && !(neg && b.Len() == 1) {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

var colorPattern = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|(rgb|rgba|hsl|hsla)\(\s*[0-9.%,\s/deg-]{1,60}\))$`)

// Color returns an agent's colour when it is a plain CSS colour (#hex, a name, or
// rgb()/hsl() with numbers only), else fallback: nothing else reaches an attribute.
func Color(s, fallback string) string {
	s = strings.TrimSpace(s)
	if colorPattern.MatchString(s) {
		return s
	}
	return fallback
}

// widthClass maps a width an agent gives ("40%", "1/3", 0.25, 320) onto one of the
// classes w-5 … w-100 (nearest 5 % of the container; pixel widths are read against
// an 880 px page). "" when the width says nothing usable.
func widthClass(size Scalar) string {
	f, ok := fraction(size.String())
	if !ok {
		return ""
	}
	n := int(math.Round(f*20)) * 5
	return "w-" + strconv.Itoa(min(max(n, 5), 100))
}

// fraction reads a width as a fraction of its container: "40%", "1/3", "0.25", or a
// pixel count ("320", "320px") against an 880 px page.
func fraction(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		return f / 100, err == nil && f > 0 && f <= 100
	}
	if a, b, ok := strings.Cut(s, "/"); ok {
		x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
		y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
		return x / y, err1 == nil && err2 == nil && y > 0 && x > 0 && x <= y
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "px"), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return 0, false
	}
	if f <= 1 {
		return f, true
	}
	return min(f/880, 1), true
}

// heightClass maps a height ("300px", 300, "20rem") onto one of mh-100 … mh-1000
// (a max-height in steps of 100 px). "" when the height says nothing usable.
func heightClass(size Scalar) string {
	s := strings.TrimSpace(size.String())
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "px"):
		s = strings.TrimSuffix(s, "px")
	case strings.HasSuffix(s, "rem"), strings.HasSuffix(s, "em"):
		s, mult = strings.TrimSuffix(strings.TrimSuffix(s, "rem"), "em"), 16
	case strings.HasSuffix(s, "vh"):
		s, mult = strings.TrimSuffix(s, "vh"), 8
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return ""
	}
	n := int(math.Round(f*mult/100)) * 100
	return "mh-" + strconv.Itoa(min(max(n, 100), 1000))
}

// heading is a title at a given level (2..6): <hN id="…">text</hN>, text escaped.
func heading(level int, id, text string) template.HTML {
	l := strconv.Itoa(min(max(level, 2), 6))
	return template.HTML("<h" + l + ` class="blk-title" id="` + template.HTMLEscapeString(id) + `">` +
		template.HTMLEscapeString(text) + "</h" + l + ">") // #nosec: both values escaped
}
