// Package formats is the one check of the string formats the API takes (e-mail,
// URL, date, date-time), used by forms, templates, blocks and accounts alike, so
// that what one accepts the others accept too. They follow the OpenAPI formats of
// the same names, with the allowances people need noted on each.
package formats

import (
	"net/mail"
	"net/url"
	"strings"
	"time"
)

// MaxEmail is the longest e-mail address accepted (characters).
const MaxEmail = 320

// Email reports whether s is one plain e-mail address ("ada@example.com"; no
// display name, no angle brackets, no list) of at most MaxEmail characters.
func Email(s string) bool {
	if s == "" || len(s) > MaxEmail {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s
}

// WebURL reports whether s is an absolute http or https URL with a host.
func WebURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return true
	}
	return false
}

// Date reads a calendar date, YYYY-MM-DD (OpenAPI "date").
func Date(s string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

// dateTimeLayouts are the date-times accepted: RFC 3339 (OpenAPI "date-time"), and
// the same without a zone (what a browser's datetime-local field sends; read as
// UTC), with or without seconds.
var dateTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04"}

// DateTime reads a date and time: RFC 3339, or the same without a zone (read as
// UTC). The result is in UTC.
func DateTime(s string) (time.Time, bool) {
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// Timestamp reads either a Date (as midnight UTC) or a DateTime: the moments block
// data carries (timeline events, countdown targets).
func Timestamp(s string) (time.Time, bool) {
	if t, ok := Date(s); ok {
		return t, true
	}
	return DateTime(s)
}
