package chart

// Text in a chart: its width is estimated from the characters (SVG has no layout
// engine to ask), labels that would not fit are cut with an ellipsis and keep their
// full text in a <title> child, so a pointer shows it.

import (
	"strings"
	"unicode/utf8"
)

// runeW is the width of a character in ems, roughly that of a system sans-serif.
func runeW(r rune) float64 {
	switch {
	case r == ' ':
		return 0.28
	case strings.ContainsRune("ilj.,:;'|!()[]`", r):
		return 0.3
	case r == 'm' || r == 'w' || r == 'M' || r == 'W':
		return 0.88
	case r >= 'A' && r <= 'Z':
		return 0.7
	case r >= '0' && r <= '9':
		return 0.62
	case r < 0x80:
		return 0.56
	case wide(r):
		return 1
	}
	return 0.62
}

// wide reports East Asian wide characters and emoji, which take a full em.
func wide(r rune) bool {
	return r >= 0x1100 && (r <= 0x115f || r >= 0x2e80 && r <= 0xa4cf || r >= 0xac00 && r <= 0xd7a3 ||
		r >= 0xf900 && r <= 0xfaff || r >= 0xfe30 && r <= 0xfe4f || r >= 0xff00 && r <= 0xff60 ||
		r >= 0x1f300 && r <= 0x1faff || r >= 0x20000)
}

// textW is the estimated width of s at font size fs (s is clipped to maxRunes).
func textW(s string, fs float64) float64 {
	w, n := 0.0, 0
	for _, r := range s {
		if n++; n > maxRunes {
			break
		}
		w += runeW(r)
	}
	return w * fs
}

// clip keeps at most n runes of s.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// fit cuts s so that it takes at most maxW at font size fs, ending in "…"; cut
// says whether it did.
func fit(s string, maxW, fs float64) (shown string, cut bool) {
	s = strings.TrimSpace(s)
	if textW(s, fs) <= maxW && utf8.RuneCountInString(s) <= maxRunes {
		return s, false
	}
	budget := maxW - 0.8*fs
	w, n := 0.0, 0
	for i, r := range s {
		w += runeW(r) * fs
		if n++; w > budget || n > maxRunes {
			return strings.TrimRight(s[:i], " ") + "…", true
		}
	}
	return s, false
}

// label writes the content of a <text> element: s fitted to maxW, and its full
// text as a <title> child when it had to be cut.
func (w *buf) label(s string, maxW, fs float64) {
	shown, cut := fit(s, maxW, fs)
	if shown == "…" || maxW < fs {
		shown = ""
		cut = s != ""
	}
	w.esc(shown)
	if cut {
		w.s(`<title>`)
		w.esc(clip(s, maxRunes))
		w.s(`</title>`)
	}
}
