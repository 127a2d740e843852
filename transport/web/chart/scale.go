package chart

// Scales and numbers: axis ticks on "nice" 1-2-5 steps, tick labels in a compact
// form (2.5k, 1.2M), and values in full (1,234.5) for tooltips and descriptions.
// Everything here stays finite for any finite input (values are clamped to ±1e300
// before they get here).

import (
	"math"
	"strconv"
	"strings"
)

// niceTicks returns ticks covering [lo, hi] on a 1-2-5 step, about target of them
// (never more than 41), and the step.
func niceTicks(lo, hi float64, target int) ([]float64, float64) {
	if lo > hi {
		lo, hi = hi, lo
	}
	if span := hi - lo; span == 0 || span < 1e-9*max(math.Abs(lo), math.Abs(hi)) {
		if lo == 0 {
			lo, hi = 0, 1
		} else {
			d := math.Abs(lo) * 0.1
			lo, hi = lo-d, hi+d
		}
	}
	step := niceStep((hi - lo) / float64(max(target, 1)))
	start := math.Floor(lo/step) * step
	end := math.Ceil(hi/step) * step
	n := int(math.Round((end - start) / step))
	n = min(max(n, 1), 40)
	ticks := make([]float64, n+1)
	dec := int(math.Max(0, -math.Floor(math.Log10(step)))) // decimals of the step
	for i := range ticks {
		t := start + float64(i)*step
		if math.Abs(t) < step*1e-9 {
			t = 0
		} else if dec <= 12 && math.Abs(t) < 1e15 {
			// 0.1 + 0.2 → 0.3: drop the float noise below the step's last digit
			p := math.Pow(10, float64(dec))
			t = math.Round(t*p) / p
		}
		ticks[i] = t
	}
	return ticks, step
}

// niceStep rounds raw to the nearest (on a log scale) of 1, 2 or 5 times a power
// of ten.
func niceStep(raw float64) float64 {
	if !(raw > 0) || math.IsInf(raw, 0) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	f := raw / mag
	switch {
	case f >= math.Sqrt(50):
		f = 10
	case f >= math.Sqrt(10):
		f = 5
	case f >= math.Sqrt(2):
		f = 2
	default:
		f = 1
	}
	return f * mag
}

// scaleAt maps v from the domain [d0, d1] onto the range [r0, r1].
func scaleAt(v, d0, d1, r0, r1 float64) float64 {
	if d1 == d0 {
		return (r0 + r1) / 2
	}
	return r0 + (v-d0)/(d1-d0)*(r1-r0)
}

// numFmt formats the ticks of one axis alike: a common unit (k, M, B, T) and as
// many decimals as the step needs.
type numFmt struct {
	div    float64
	suffix string
	dec    int
	exp    bool
}

func newNumFmt(step, maxAbs float64) numFmt {
	if maxAbs >= 1e15 || step > 0 && step < 1e-6 {
		return numFmt{exp: true}
	}
	f := numFmt{div: 1}
	switch {
	case maxAbs >= 1e12:
		f.div, f.suffix = 1e12, "T"
	case maxAbs >= 1e9:
		f.div, f.suffix = 1e9, "B"
	case maxAbs >= 1e6:
		f.div, f.suffix = 1e6, "M"
	case maxAbs >= 1e4:
		f.div, f.suffix = 1e3, "k"
	}
	if s := step / f.div; s > 0 && s < 1 {
		f.dec = min(int(math.Ceil(-math.Log10(s)-1e-9)), 6)
	}
	return f
}

func (f numFmt) format(v float64) string {
	if f.exp {
		if v == 0 {
			return "0"
		}
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	s := strconv.FormatFloat(v/f.div, 'f', f.dec, 64)
	if strings.Trim(s, "-0.") == "" {
		return "0"
	}
	return s + f.suffix
}

// short is Format when that is at most 7 characters long (8,150), else compact.
func short(v float64) string {
	if s := Format(v); len(s) <= 7 {
		return s
	}
	return compact(v)
}

// compact formats one value briefly (cell labels, gauge ends): 950, 12.5k, 3.4M.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e15 || a > 0 && a < 1e-4:
		return strconv.FormatFloat(v, 'g', 3, 64)
	case a >= 1e4:
		f := newNumFmt(0, a)
		return trimZeros(strconv.FormatFloat(v/f.div, 'f', 1, 64)) + f.suffix
	case a >= 100:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	case a >= 1:
		return trimZeros(strconv.FormatFloat(v, 'f', 1, 64))
	}
	return trimZeros(strconv.FormatFloat(v, 'f', 2, 64))
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// Format shows a value in full the way people read it: integers with thousands
// separators, others with up to 2 decimals (more only for small values), very large
// or very small ones in e-notation. NaN is "–".
func Format(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "-∞"
	}
	a := math.Abs(v)
	if a >= 1e15 || a > 0 && a < 1e-6 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	if v == math.Trunc(v) {
		return group(strconv.FormatInt(int64(v), 10))
	}
	prec := 2
	if a < 1 {
		prec = min(max(2, int(math.Ceil(-math.Log10(a)))+1), 8)
	}
	s := trimZeros(strconv.FormatFloat(v, 'f', prec, 64))
	whole, frac, _ := strings.Cut(s, ".")
	if frac != "" {
		return group(whole) + "." + frac
	}
	return group(whole)
}

// group puts thousands separators into an integer's digits.
func group(digits string) string {
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	first := len(digits) % 3
	if first == 0 {
		first = 3
	}
	b.WriteString(digits[:min(first, len(digits))])
	for i := first; i < len(digits); i += 3 {
		b.WriteByte(',')
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// Percent formats a share (0.333 → "33%", 0.0412 → "4.1%", 0.00004 → "<0.1%").
func Percent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "–"
	}
	p := f * 100
	switch a := math.Abs(p); {
	case a == 0:
		return "0%"
	case a < 0.1:
		if p < 0 {
			return ">-0.1%"
		}
		return "<0.1%"
	case a < 10:
		return trimZeros(strconv.FormatFloat(p, 'f', 1, 64)) + "%"
	case a >= 1e6:
		return strconv.FormatFloat(p, 'g', 3, 64) + "%"
	}
	return strconv.FormatFloat(math.Round(p), 'f', 0, 64) + "%"
}

// dataRange is the smallest and largest finite value of the series (within the
// first n values of each), and how many values there are; n < 0 means all.
func dataRange(series []Series, n int) (lo, hi float64, count int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		vals := s.Values
		if n >= 0 {
			vals = capLen(vals, n)
		}
		for _, v := range vals {
			if v, ok := val(v); ok {
				lo, hi = min(lo, v), max(hi, v)
				count++
			}
		}
	}
	if count == 0 {
		return 0, 1, 0
	}
	return lo, hi, count
}
