package render

import (
	"net/url"
	"strings"
)

// safeURL is the one check every address an agent sends passes before it reaches
// an href, src or action: only http, https and mailto survive, plus paths on this
// origin ("/…", never "//host", which is another origin). Control characters and
// backslashes are refused outright (browsers strip or rewrite them, which is how
// "java\tscript:" and "/\evil.example" slip past naive checks). ok is false for
// anything else, and the caller shows the address as text or not at all.
func safeURL(raw string) (string, bool) {
	s := strings.TrimSpace(raw)
	if s == "" || len(s) > 4096 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return "", false
		}
	}
	if strings.HasPrefix(s, "/") {
		if strings.HasPrefix(s, "//") {
			return "", false
		}
		return s, true
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "", false
		}
		return u.String(), true
	case "mailto":
		return u.String(), true
	}
	return "", false
}

// safeWebURL is safeURL without mailto: for what a browser loads (images, media,
// embeds), where only http(s) and this origin make sense.
func safeWebURL(raw string) (string, bool) {
	s, ok := safeURL(raw)
	if !ok || strings.HasPrefix(strings.ToLower(s), "mailto:") {
		return "", false
	}
	return s, true
}
