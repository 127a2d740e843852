package protocols

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// Decoded JSON in this package is always one of: nil, bool, json.Number,
// string, []any, map[string]any. Numbers stay json.Number so that values are
// shown exactly as the agent wrote them.

// decodeValues decodes one or more concatenated top-level JSON values
// (a single document, or JSON Lines). At least one value is returned on success.
func decodeValues(body []byte) ([]any, *Error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			if len(out) == 0 {
				return nil, newError("", "json", "empty body")
			}
			return out, nil
		}
		if err != nil {
			return nil, jsonError(err, len(out))
		}
		out = append(out, v)
	}
}

// decodeOne decodes exactly one top-level JSON value.
func decodeOne(body []byte) (any, *Error) {
	vals, err := decodeValues(body)
	if err != nil {
		return nil, err
	}
	if len(vals) > 1 {
		return nil, newError("", "json", "malformed JSON: unexpected data after the top-level value")
	}
	return vals[0], nil
}

func jsonError(err error, index int) *Error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return newError("", "json", "malformed JSON at byte %d: %v", syn.Offset, err)
	}
	if index > 0 {
		return newError("", "json", "malformed JSON in value %d: %v", index+1, err)
	}
	return newError("", "json", "malformed JSON: %v", err)
}

// marshal encodes v without HTML escaping; it cannot fail for decoded values.
func marshal(v any, indent bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent && valueDepth(v, maxPrettyDepth+1) <= maxPrettyDepth {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// prettyRaw indents a JSON text keeping its key order. ok is false when the
// text is not a single valid JSON value.
func prettyRaw(s string) (string, bool) {
	b := []byte(strings.TrimSpace(s))
	if len(b) == 0 || !json.Valid(b) {
		return "", false
	}
	if rawDepth(b) > maxPrettyDepth {
		return string(b), true
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return string(b), true
	}
	return buf.String(), true
}

// rawDepth is the bracket nesting depth of a valid JSON text.
func rawDepth(b []byte) int {
	depth, maxD, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			depth++
			if depth > maxD {
				maxD = depth
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return maxD
}

// valueDepth is the nesting depth of a decoded value, counted up to limit.
func valueDepth(v any, limit int) int {
	if limit <= 0 {
		return 0
	}
	best := 0
	switch t := v.(type) {
	case map[string]any:
		for _, c := range t {
			if d := valueDepth(c, limit-1); d > best {
				best = d
			}
			if best >= limit-1 {
				break
			}
		}
		return best + 1
	case []any:
		for _, c := range t {
			if d := valueDepth(c, limit-1); d > best {
				best = d
			}
			if best >= limit-1 {
				break
			}
		}
		return best + 1
	}
	return 0
}

// approxSize estimates the JSON size of v: string lengths plus a few bytes a node.
func approxSize(v any) int {
	switch t := v.(type) {
	case string:
		return len(t) + 2
	case json.Number:
		return len(t)
	case map[string]any:
		n := 2
		for k, c := range t {
			n += len(k) + 4 + approxSize(c)
		}
		return n
	case []any:
		n := 2
		for _, c := range t {
			n += 1 + approxSize(c)
		}
		return n
	}
	return 4
}

func asMap(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// str returns m[k] when it is a string (or a number, as written), else "".
func str(m map[string]any, k string) string {
	switch t := m[k].(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	}
	return ""
}

// number converts a decoded number (or numeric string) to a finite float64.
func number(v any) (float64, bool) {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = t.String()
	case string:
		s = strings.TrimSpace(t)
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// scalarText renders a decoded value as display text; objects and arrays as compact JSON.
func scalarText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	}
	return marshal(v, false)
}

// jsonFence renders v as a fenced Markdown JSON code block.
func jsonFence(v any) string {
	return "```json\n" + marshal(v, true) + "\n```"
}

// textOrJSON renders a value for Markdown content: strings holding a JSON
// object or array are pretty-printed in a fence, other strings are kept.
func textOrJSON(v any) string {
	s, isStr := v.(string)
	if !isStr {
		if v == nil {
			return ""
		}
		if _, ok := v.(map[string]any); ok {
			return jsonFence(v)
		}
		if _, ok := v.([]any); ok {
			return jsonFence(v)
		}
		return scalarText(v)
	}
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		if p, ok := prettyRaw(t); ok {
			return "```json\n" + p + "\n```"
		}
	}
	return s
}

// capitalize upper-cases the first ASCII letter ("assistant" → "Assistant").
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
