package blocks

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Warning phrases. Every warning reads "<path>: <what is wrong>; send <the
// fix>", repeats at most maxQuoted runes of what was sent, and is one line.

func (c *checker) missing(p string, f *field, null bool) {
	what := "missing"
	if null {
		what = "is null"
	}
	hint := ""
	if f.hint != "" {
		hint = " (" + f.hint + ")"
	}
	c.warn(p, "%s; send %s%s", what, send(f), hint)
}

// missingOneOf names the first member of o.anyOf and offers the others.
func (c *checker) missingOneOf(p string, o *object) {
	var names []string
	var first *field
	for _, k := range o.anyOf {
		for i := range o.fields {
			if f := &o.fields[i]; f.name == k && !f.old {
				if first == nil {
					first = f
				} else {
					names = append(names, k)
				}
			}
		}
	}
	if first == nil {
		return
	}
	alt := ""
	if len(names) > 0 {
		alt = ", or send " + strings.Join(names, " or ")
	}
	c.warn(join(p, first.name), "missing; send %s%s", send(first), alt)
}

// mismatch warns that v does not have f's shape; others counts further
// elements of the same array with the same problem.
func (c *checker) mismatch(p string, f *field, v any, others int) {
	more := ""
	switch {
	case others == 1:
		more = " (1 more element has the same problem)"
	case others > 1:
		more = fmt.Sprintf(" (%d more elements have the same problem)", others)
	}
	c.warn(p, "expected %s, got %s; send %s%s", expect(f), got(v), send(f), more)
}

// expect names the shape f requires, for "expected ..." phrases.
func expect(f *field) string {
	switch {
	case len(f.enum) > 0:
		return "one of " + quoteAll(f.enum)
	case f.kind == kInteger:
		return fmt.Sprintf("a whole number >= %g", f.min)
	}
	return kinds[f.kind].expect
}

// send says what to send instead, for "send ..." phrases.
func send(f *field) string {
	switch {
	case len(f.enum) > 0:
		return "one of " + quoteAll(f.enum)
	case f.kind == kInteger:
		return fmt.Sprintf("a whole JSON number >= %g", f.min)
	case f.kind == kObject:
		return "an object " + members(f.obj)
	case f.kind == kArray:
		return "an array of " + plural(f.elem)
	}
	return kinds[f.kind].send
}

// plural names the elements of an array, for "an array of ..." phrases.
func plural(f *field) string {
	s := kinds[f.kind].plural
	switch {
	case len(f.enum) > 0:
		s = "strings from " + quoteAll(f.enum)
	case f.kind == kInteger:
		s = fmt.Sprintf("whole numbers >= %g", f.min)
	case f.kind == kObject:
		s = "objects " + members(f.obj)
	case f.kind == kArray:
		s = "arrays of " + plural(f.elem)
	}
	if f.nullable {
		s += " (null for a gap)"
	}
	return s
}

// members lists the member names of o (deprecated ones left out), e.g. "{key, value}".
func members(o *object) string {
	var names []string
	for _, f := range o.fields {
		if !f.old {
			names = append(names, f.name)
		}
	}
	return "{" + strings.Join(names, ", ") + "}"
}

func quoteAll(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = quote(v)
	}
	return strings.Join(q, ", ")
}

// didYouMean suggests the allowed value the agent probably meant: the same
// but for case and separators ("Warning" -> "warning", "date-time" ->
// "datetime"), else the longest one that is a prefix of it or that it is a
// prefix of ("warning" -> "warn").
func didYouMean(s string, allowed []string) string {
	norm := func(x string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(x))
	}
	n, best := norm(s), ""
	for _, a := range allowed {
		if na := norm(a); na == n {
			best = a
			break
		} else if len(n) >= 3 && len(a) > len(best) && (strings.HasPrefix(n, na) || strings.HasPrefix(na, n)) {
			best = a
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", quote(best))
}

// maxQuoted bounds how much of a sent value a warning repeats.
const maxQuoted = 40

// quote renders a sent string for a warning: Go-quoted (so control characters
// cannot forge lines) and cut to maxQuoted runes.
func quote(s string) string {
	return strconv.Quote(clip(s, maxQuoted))
}

// clip cuts s to n runes, marking a cut with "…"; it reads at most n+1 runes.
func clip(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// got describes a sent value for the "got ..." part of a warning.
func got(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "string " + quote(v)
	case json.Number:
		return "number " + clip(string(v), maxQuoted)
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
