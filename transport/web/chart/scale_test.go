package chart

import (
	"math"
	"strings"
	"testing"
)

func TestNiceTicksStepOneTwoOrFive(t *testing.T) {
	cases := []struct {
		lo, hi     float64
		first, end float64
		step       float64
	}{
		{0, 4, 0, 4, 1},
		{0, 9.5, 0, 10, 2},
		{-12, 150, -50, 150, 50},
		{0.1, 0.9, 0, 1, 0.2},
		{7, 7, 6.2, 7.8, 0.2},
		{0, 0, 0, 1, 0.2},
		{12000, 66000, 10000, 70000, 10000},
		{0, 54, 0, 60, 10},
	}
	for _, c := range cases {
		ticks, step := niceTicks(c.lo, c.hi, 5)
		if step != c.step || ticks[0] != c.first || ticks[len(ticks)-1] != c.end {
			t.Errorf("niceTicks(%g, %g) = %v step %g; want %g..%g step %g", c.lo, c.hi, ticks, step, c.first, c.end, c.step)
		}
	}
	for _, c := range [][2]float64{{-1e300, 1e300}, {1e20, 1e20 + 1}, {5e-324, 1e-323}, {math.MaxFloat64 / 2, math.MaxFloat64 / 2}} {
		ticks, step := niceTicks(c[0], c[1], 5)
		if len(ticks) > 41 || len(ticks) < 2 || math.IsNaN(step) || math.IsInf(step, 0) {
			t.Errorf("niceTicks(%g, %g) = %d ticks, step %g", c[0], c[1], len(ticks), step)
		}
		for _, x := range ticks {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Errorf("niceTicks(%g, %g) has tick %g", c[0], c[1], x)
			}
		}
	}
}

func TestTickLabelsShareAUnit(t *testing.T) {
	f := newNumFmt(10000, 70000)
	var got []string
	for _, v := range []float64{0, 10000, 25000, -70000} {
		got = append(got, f.format(v))
	}
	if strings.Join(got, " ") != "0 10k 25k -70k" {
		t.Errorf("got %v", got)
	}
	if s := newNumFmt(0.2, 1).format(0.6000000000000001); s != "0.6" {
		t.Errorf("0.6 with step 0.2 = %q", s)
	}
	if s := newNumFmt(1e299, 1e300).format(5e299); !strings.Contains(s, "e+299") {
		t.Errorf("5e299 = %q", s)
	}
}

func TestFormatAndPercent(t *testing.T) {
	for v, want := range map[float64]string{
		1234567: "1,234,567", -1234.5: "-1,234.5", 0.5: "0.5", 0.0123: "0.012", 1e20: "1e+20",
		3: "3", 2.25: "2.25", -0.001: "-0.001", 100: "100",
	} {
		if got := Format(v); got != want {
			t.Errorf("Format(%g) = %q, want %q", v, got, want)
		}
	}
	if Format(math.NaN()) != "–" {
		t.Errorf("NaN")
	}
	for f, want := range map[float64]string{0.333: "33%", 0.0412: "4.1%", 0.00004: "<0.1%", 1: "100%", 0: "0%", 0.12: "12%"} {
		if got := Percent(f); got != want {
			t.Errorf("Percent(%g) = %q, want %q", f, got, want)
		}
	}
	for v, want := range map[float64]string{950: "950", 12500: "12.5k", 3.4e6: "3.4M", 2.5: "2.5", 0.62: "0.62", -0.35: "-0.35"} {
		if got := compact(v); got != want {
			t.Errorf("compact(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestCleanColorAcceptsOnlyPlainColours(t *testing.T) {
	for _, ok := range []string{"#36a", "#3366aa", "#3366aa80", "red", "RebeccaPurple", "rgb(1, 2, 3)", "rgba(1,2,3,.5)",
		"hsl(200deg 50% 40%)", "hsla(200, 50%, 40%, 0.5)", " green "} {
		if CleanColor(ok) == "" {
			t.Errorf("CleanColor(%q) refused", ok)
		}
	}
	for _, bad := range []string{"", "#12", "#12345", "#ggg", "url(#x)", "red;fill:blue", "rgb(1,2,3); x", "expression(1)",
		"var(--x)", "rgb(calc(1))", "rgb()", "a", "javascript:alert(1)", "red blue", "<b>", strings.Repeat("a", 30)} {
		if got := CleanColor(bad); got != "" {
			t.Errorf("CleanColor(%q) = %q, want refused", bad, got)
		}
	}
}

func TestHeatColoursKeepTheirTextLegible(t *testing.T) {
	for _, scale := range []string{"green_red", "blue_red", "gray_blue", "unknown"} {
		for i := 0; i <= 20; i++ {
			fill, text := heatColor(scale, float64(i)/20)
			bg := parseHex(fill)
			fg := parseHex(text)
			l1, l2 := luminance(bg), luminance(fg)
			ratio := (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05)
			if ratio < 4.5 {
				t.Errorf("%s at %d/20: %s text on %s has contrast %.2f", scale, i, text, fill, ratio)
			}
		}
	}
	if f, _ := heatColor("green_red", math.NaN()); f != func() string { f0, _ := heatColor("green_red", 0); return f0 }() {
		t.Errorf("NaN position gave %s", f)
	}
}

func parseHex(s string) [3]float64 {
	var c [3]float64
	for i := range c {
		var v int
		for _, r := range s[1+2*i : 3+2*i] {
			v = v*16 + strings.IndexRune("0123456789abcdef", r)
		}
		c[i] = float64(v)
	}
	return c
}
