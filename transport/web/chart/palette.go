package chart

// Colours. Series use the theme's palette through the classes s1…s8 unless the
// agent chose a colour; an agent's colour is written into a fill or stroke attribute
// only when it is a plain CSS colour (CleanColor). Heatmap cells are coloured here,
// by interpolating a fixed scale, with a text colour picked for contrast.

import (
	"math"
	"strconv"
	"strings"
)

// CleanColor returns s when it is a plain CSS colour — #rgb, #rgba, #rrggbb,
// #rrggbbaa, a name made of 3 to 20 letters, or rgb()/rgba()/hsl()/hsla() with only
// numbers, "%", "deg", commas, spaces, "/" and "-" inside — else "".
func CleanColor(s string) string {
	s = strings.TrimSpace(s)
	if len(s) < 3 || len(s) > 48 {
		return ""
	}
	if s[0] == '#' {
		if n := len(s) - 1; n != 3 && n != 4 && n != 6 && n != 8 {
			return ""
		}
		for i := 1; i < len(s); i++ {
			if !isHex(s[i]) {
				return ""
			}
		}
		return s
	}
	if len(s) <= 20 && letters(s) {
		return s
	}
	fn, args, ok := strings.Cut(s, "(")
	switch strings.ToLower(fn) {
	case "rgb", "rgba", "hsl", "hsla":
	default:
		return ""
	}
	args, ok2 := strings.CutSuffix(args, ")")
	if !ok || !ok2 {
		return ""
	}
	args = strings.ReplaceAll(args, "deg", "")
	digits := false
	for i := 0; i < len(args); i++ {
		c := args[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' || c == '%' || c == ',' || c == ' ' || c == '/' || c == '-':
		default:
			return ""
		}
	}
	if !digits {
		return ""
	}
	return s
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Heat scales, low to high, three stops each.
var heatScales = [...]struct {
	name  string
	stops [3][3]float64
	words string
}{
	{"green_red", [3][3]float64{{26, 148, 73}, {245, 197, 66}, {214, 46, 56}}, "green (low) through yellow to red (high)"},
	{"blue_red", [3][3]float64{{47, 111, 222}, {240, 240, 240}, {214, 46, 56}}, "blue (low) through white to red (high)"},
	{"gray_blue", [3][3]float64{{234, 238, 242}, {130, 170, 222}, {9, 85, 190}}, "light gray (low) to blue (high)"},
}

// heatScale returns the index of a named scale; green_red for any other name.
func heatScale(name string) int {
	for i, s := range heatScales {
		if s.name == name {
			return i
		}
	}
	return 0
}

// heatRGB is the colour at t in [0, 1] of a scale.
func heatRGB(scale int, t float64) [3]float64 {
	if !(t >= 0) {
		t = 0
	}
	t = min(t, 1)
	st := heatScales[scale].stops
	a, b, u := st[0], st[1], t*2
	if t > 0.5 {
		a, b, u = st[1], st[2], t*2-1
	}
	return [3]float64{a[0] + (b[0]-a[0])*u, a[1] + (b[1]-a[1])*u, a[2] + (b[2]-a[2])*u}
}

// heatColor is the fill of a cell at t in [0, 1] of the named scale as #rrggbb, and
// the text colour (dark or white) with the better contrast on it.
func heatColor(scale string, t float64) (fill, text string) {
	c := heatRGB(heatScale(scale), t)
	text = textOn(c)
	// a mid-tone where neither text colour reaches 4.5:1 is nudged lighter (under
	// dark text) or darker (under white text) until one does
	to := 255.0
	if text != darkText {
		to = 0
	}
	for i := 0; i < 20 && contrast(c, text) < 4.5; i++ {
		for k := range c {
			c[k] += (to - c[k]) * 0.06
		}
	}
	return hexRGB(c), text
}

func contrast(c [3]float64, text string) float64 {
	t := [3]float64{255, 255, 255}
	if text == darkText {
		t = [3]float64{31, 35, 40}
	}
	a, b := luminance(c), luminance(t)
	return (max(a, b) + 0.05) / (min(a, b) + 0.05)
}

func hexRGB(c [3]float64) string {
	b := make([]byte, 0, 7)
	b = append(b, '#')
	for _, v := range c {
		n := int(math.Round(min(max(v, 0), 255)))
		if n < 16 {
			b = append(b, '0')
		}
		b = strconv.AppendInt(b, int64(n), 16)
	}
	return string(b)
}

const darkText = "#1f2328"

// textOn picks dark text or white for the better WCAG contrast on a background.
func textOn(c [3]float64) string {
	l := luminance(c)
	dark := luminance([3]float64{31, 35, 40})
	if (l+0.05)/(dark+0.05) >= 1.05/(l+0.05) {
		return darkText
	}
	return "#ffffff"
}

func luminance(c [3]float64) float64 {
	var l [3]float64
	for i, v := range c {
		v /= 255
		if v <= 0.04045 {
			l[i] = v / 12.92
		} else {
			l[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}
