// Package formats is the one check of the string formats the API takes (e-mail,
// URL, date, date-time), used by forms, templates, blocks and accounts alike, so
// that what one accepts the others accept too. They follow the OpenAPI formats of
// the same names, with the allowances people need noted on each.
package formats

import (
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// maxEmail is the longest e-mail address accepted (characters).
const maxEmail = 320

// Email reports whether s is one plain e-mail address ("ada@example.com"; no
// display name, no angle brackets, no list) of at most maxEmail characters.
func Email(s string) bool {
	if s == "" || len(s) > maxEmail {
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

// dateTimeText is the shape of a DateTime: YYYY-MM-DDThh:mm, then optional
// seconds (with an optional fraction after a dot), then an optional zone (Z or
// ±hh:mm, hours 00-23). Go's time.Parse alone would also take a one-digit hour, a
// comma before the fraction and offsets such as +24:00 or +23:60; the shape refuses
// them, so that what this package accepts is what the blocks' JSON Schema pattern
// accepts (actors/model/blocks/formats.go, kept in step by a test there).
var dateTimeText = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2})(:[0-9]{2}(?:\.[0-9]+)?)?(Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])?$`)

// DateTime reads a date and time: RFC 3339 (OpenAPI "date-time"), with two
// allowances people need: the zone may be left out (what a browser's
// datetime-local field sends; read as UTC) and so may the seconds. A leap second
// (:60, which RFC 3339 allows and Go's parser refuses) reads as :59 of the same
// minute. The result is in UTC.
func DateTime(s string) (time.Time, bool) {
	t, _, ok := DateTimeZone(s)
	return t, ok
}

// DateTimeZone is DateTime that also reports whether s named its zone (Z or
// ±hh:mm); a zone-less s was read as UTC.
func DateTimeZone(s string) (t time.Time, zoned, ok bool) {
	m := dateTimeText.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false, false
	}
	minute, second, zone := m[1], m[2], m[3]
	switch {
	case second == "":
		second = ":00"
	case second[1:3] == "60":
		second = ":59" + second[3:]
	}
	zoned = zone != ""
	if !zoned {
		zone = "Z"
	}
	t, err := time.Parse(time.RFC3339Nano, minute+second+zone)
	if err != nil {
		return time.Time{}, false, false
	}
	return t.UTC(), zoned, true
}

// Timestamp reads either a Date (as midnight UTC) or a DateTime: the moments block
// data carries (timeline events, countdown targets).
func Timestamp(s string) (time.Time, bool) {
	if t, ok := Date(s); ok {
		return t, true
	}
	return DateTime(s)
}
