package blocks

import (
	"fmt"
	"regexp"
	"strings"

	"folio/actors/model/formats"
)

// The string formats below are regular expressions for the JSON Schema "pattern"
// keywords. They use only syntax that RE2 (Go) and ECMA-262 (JSON Schema) read the
// same way.
const (
	// timePattern is the shape of a timestamp formats.Timestamp accepts: a date
	// (2024-05-01) or a date-time in the extended format (2024-05-01T14:30,
	// 2024-05-01T14:30:00, with optional fractional seconds and an optional Z or
	// ±hh:mm offset). A pattern cannot know the calendar, so it also takes
	// 2023-02-29, which the Go check refuses. TestTimePatternAgreesWithFormats
	// keeps the two in step.
	timePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}(T([01][0-9]|2[0-3]):[0-5][0-9](:([0-5][0-9]|60)(\.[0-9]+)?)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?)?$`

	// urlPattern accepts http(s) URLs and relative references: anything that
	// does not start with a scheme ("name:") other than http or https.
	urlPattern = `^([hH][tT][tT][pP][sS]?:|[^a-zA-Z]|[a-zA-Z][a-zA-Z0-9+.-]*([^a-zA-Z0-9+.:-]|$))`

	// imageURLPattern is the pattern of image fields: urlPattern. Inline data:
	// images are refused (warned at publish, never drawn): they bloat the stored
	// page and every copy of it, and the review page loads images only from
	// http(s) and this origin (its Content-Security-Policy).
	imageURLPattern = urlPattern

	timeExample = `"2024-05-01T14:30:00Z"`
)

var (
	timeRE = regexp.MustCompile(timePattern)
	urlRE  = regexp.MustCompile(urlPattern)
)

// timeProblem returns why s is not a timestamp formats.Timestamp accepts, or "".
// timeRE only chooses the words: text of the right shape can fail only on its
// calendar date.
func timeProblem(s string) string {
	if _, ok := formats.Timestamp(s); ok {
		return ""
	}
	if timeRE.MatchString(s) {
		return fmt.Sprintf("%s is not a calendar date; send a timestamp such as %s", quote(s), timeExample)
	}
	if len(s) > 10 && s[10] == ' ' && timeRE.MatchString(s[:10]+"T"+s[11:]) {
		return fmt.Sprintf("%s is not an ISO 8601 timestamp (put T between date and time); send a timestamp such as %s", quote(s), timeExample)
	}
	return fmt.Sprintf("%s is not an ISO 8601 timestamp; send a timestamp such as %s", quote(s), timeExample)
}

// urlProblem returns why s is not an acceptable link target, or "". Browsers
// drop tabs and newlines anywhere and spaces or control characters at the ends
// of a URL before reading its scheme, so the check does the same:
// "java\tscript:" is caught.
func urlProblem(s string, image bool) string {
	t := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	t = strings.TrimFunc(t, func(r rune) bool { return r <= ' ' })
	want := "an http(s) or relative URL"
	if t == "" {
		return "is empty; send " + want
	}
	if urlRE.MatchString(t) {
		return ""
	}
	scheme := t
	if i := strings.IndexByte(t, ':'); i >= 0 {
		scheme = t[:i+1]
	}
	if image && strings.EqualFold(scheme, "data:") {
		return "inline data: images are not shown; upload the image (POST /v1/pages/{pageId}/files) or host it, and send its http(s) address"
	}
	return fmt.Sprintf("scheme %s is not allowed; send %s", quote(strings.ToLower(scheme)), want)
}
