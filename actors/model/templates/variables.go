package templates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"folio/actors/model/fault"
	"folio/actors/model/formats"
)

// Variable types. Every value is checked before anything is built; limits keep one
// template's page within the page limits. URLs, e-mail addresses, dates and
// date-times are checked by actors/model/formats, as form fields are.
const (
	TString   = "string"   // one line of text, at most 500 characters
	TText     = "text"     // free text with line breaks, at most 20,000 characters
	TNumber   = "number"   // a JSON number
	tInteger  = "integer"  // a JSON number without a fractional part
	tBoolean  = "boolean"  // true or false
	TURL      = "url"      // an absolute http(s) URL, at most 2,048 characters
	tEmail    = "email"    // a plain e-mail address
	tDate     = "date"     // YYYY-MM-DD
	tDateTime = "datetime" // an RFC 3339 timestamp, e.g. 2025-05-01T14:30:00Z (zone-less read as UTC)
	tEnum     = "enum"     // one of the variable's options
	tList     = "list"     // an array of strings (at most 100, each at most 1,000 characters)
	tMap      = "map"      // an object of labels to strings, numbers or booleans (at most 100)
	TRows     = "rows"     // an array of objects (at most 500 rows, 30 keys) of strings, numbers, booleans or null
)

// Types lists every variable type.
var Types = []string{TString, TText, TNumber, tInteger, tBoolean, TURL, tEmail, tDate, tDateTime, tEnum, tList, tMap, TRows}

const (
	maxString   = 500
	maxText     = 20000
	maxURL      = 2048
	maxItems    = 100
	maxItemText = 1000
	maxCell     = 2000
	maxRows     = 500
	maxColumns  = 30
)

// number keeps a JSON number's value and the digits the agent sent.
type number struct {
	f    float64
	text string
}

// pair is one entry of a map variable, in the order sent.
type pair struct {
	key string
	val any // string, number or bool
}

// table is a rows variable: the columns in first-seen order and the rows.
type table struct {
	columns []string
	rows    []map[string]any // cells: string, number (as json.Number text), bool or nil
}

// values are the checked variables by key: string (string, text, url, email, date,
// datetime, enum), number (number, integer), bool, []string, []pair or table.
type values map[string]any

func (v values) str(key string) string {
	s, _ := v[key].(string)
	return s
}

func (v values) num(key string) (number, bool) {
	n, ok := v[key].(number)
	return n, ok
}

func (v values) flag(key string) (bool, bool) {
	b, ok := v[key].(bool)
	return b, ok
}

func (v values) list(key string) []string {
	l, _ := v[key].([]string)
	return l
}

func (v values) pairs(key string) []pair {
	p, _ := v[key].([]pair)
	return p
}

func (v values) table(key string) (table, bool) {
	t, ok := v[key].(table)
	return t, ok
}

// parse checks raw against the template's variables.
func (t *Template) parse(raw json.RawMessage) (values, []string, error) {
	in := map[string]json.RawMessage{}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' {
			return nil, nil, t.fieldErr("variables", "type", "variables must be an object keyed by the template's variable keys")
		}
		if err := json.Unmarshal(trimmed, &in); err != nil {
			return nil, nil, t.fieldErr("variables", "type", "variables must be an object keyed by the template's variable keys")
		}
	}
	out := values{}
	known := map[string]bool{}
	for _, v := range t.Variables {
		known[v.Key] = true
		r, ok := in[v.Key]
		if !ok || bytes.Equal(bytes.TrimSpace(r), []byte("null")) {
			if v.Default != nil {
				out[v.Key] = defaultValue(v.Default)
				continue
			}
			if v.Required {
				return nil, nil, t.varErr(v, "required", "variables.%s (%s) is required: send %s", v.Key, v.Label, expect(v))
			}
			continue
		}
		var s string
		if json.Unmarshal(r, &s) == nil && strings.TrimSpace(s) == "" && isStringType(v.Type) {
			// An empty string is an absent value.
			if v.Default != nil {
				out[v.Key] = defaultValue(v.Default)
				continue
			}
			if v.Required {
				return nil, nil, t.varErr(v, "required", "variables.%s (%s) is required and must not be empty", v.Key, v.Label)
			}
			continue
		}
		val, err := t.check(v, r)
		if err != nil {
			return nil, nil, err
		}
		if v.Required && isEmpty(val) {
			return nil, nil, t.varErr(v, "required", "variables.%s (%s) is required and must not be empty", v.Key, v.Label)
		}
		out[v.Key] = val
	}
	var warnings []string
	for _, k := range sortedKeys(in) {
		if known[k] {
			continue
		}
		w := fmt.Sprintf("variables.%s: %s has no variable %q; ignored", clip(k, 64), t.Name, clip(k, 64))
		if s := t.suggest(k); s != "" {
			w += fmt.Sprintf(" (did you mean %q?)", s)
		}
		warnings = append(warnings, w)
		if len(warnings) == 20 {
			break
		}
	}
	return out, warnings, nil
}

func isStringType(t string) bool {
	switch t {
	case TString, TText, TURL, tEmail, tDate, tDateTime, tEnum:
		return true
	}
	return false
}

// isEmpty tells a required value that says nothing: "", [], {} or no rows.
func isEmpty(val any) bool {
	switch x := val.(type) {
	case string:
		return strings.TrimSpace(x) == ""
	case []string:
		return len(x) == 0
	case []pair:
		return len(x) == 0
	case table:
		return len(x.rows) == 0
	}
	return false
}

func defaultValue(d any) any {
	switch x := d.(type) {
	case float64:
		return number{f: x, text: strconv.FormatFloat(x, 'f', -1, 64)}
	case int:
		return number{f: float64(x), text: strconv.Itoa(x)}
	}
	return d
}

// check decodes one value of variable v.
func (t *Template) check(v Variable, r json.RawMessage) (any, error) {
	switch v.Type {
	case TString, TText, TURL, tEmail, tDate, tDateTime, tEnum:
		var s string
		if json.Unmarshal(r, &s) != nil {
			return nil, t.typeErr(v)
		}
		return t.checkString(v, s)
	case TNumber, tInteger:
		var n json.Number
		if r = bytes.TrimSpace(r); len(r) == 0 || r[0] == '"' || json.Unmarshal(r, &n) != nil {
			return nil, t.typeErr(v)
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, t.typeErr(v)
		}
		if v.Type == tInteger && (f != math.Trunc(f) || math.Abs(f) > 1<<53) {
			return nil, t.typeErr(v)
		}
		return number{f: f, text: n.String()}, nil
	case tBoolean:
		var b bool
		if json.Unmarshal(r, &b) != nil {
			return nil, t.typeErr(v)
		}
		return b, nil
	case tList:
		var l []string
		if json.Unmarshal(r, &l) != nil {
			return nil, t.typeErr(v)
		}
		if len(l) > maxItems {
			return nil, t.limitErr(v, "max_items", maxItems, "variables.%s has %d items; the limit is %d", v.Key, len(l), maxItems)
		}
		for i, s := range l {
			if utf8.RuneCountInString(s) > maxItemText {
				e := t.limitErr(v, "max_length", maxItemText, "variables.%s[%d] is longer than %d characters", v.Key, i, maxItemText)
				e.Details["field"] = fmt.Sprintf("variables.%s[%d]", v.Key, i)
				return nil, e
			}
		}
		return l, nil
	case tMap:
		return t.checkMap(v, r)
	case TRows:
		return t.checkRows(v, r)
	}
	return nil, fmt.Errorf("templates: %s.%s has unknown type %q", t.Name, v.Key, v.Type)
}

func (t *Template) checkString(v Variable, s string) (any, error) {
	limit := maxString
	switch v.Type {
	case TText:
		limit = maxText
	case TURL:
		limit = maxURL
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return nil, t.limitErr(v, "max_length", limit, "variables.%s is %d characters; the limit is %d", v.Key, n, limit)
	}
	switch v.Type {
	case TString:
		return strings.Join(strings.Fields(s), " "), nil // one line
	case TText:
		return strings.ReplaceAll(s, "\r\n", "\n"), nil
	case TURL:
		if !formats.WebURL(s) {
			return nil, t.varErr(v, "format", "variables.%s must be an absolute http(s) URL such as https://example.com/x", v.Key)
		}
		return s, nil
	case tEmail:
		if !formats.Email(s) {
			return nil, t.varErr(v, "format", "variables.%s must be a plain e-mail address such as ana@example.com", v.Key)
		}
		return s, nil
	case tDate:
		if _, ok := formats.Date(s); !ok {
			return nil, t.varErr(v, "format", "variables.%s must be a date YYYY-MM-DD such as 2025-05-01", v.Key)
		}
		return s, nil
	case tDateTime:
		at, ok := formats.DateTime(s)
		if !ok {
			return nil, t.varErr(v, "format", "variables.%s must be an RFC 3339 timestamp such as 2025-05-01T14:30:00Z", v.Key)
		}
		return at.Format(time.RFC3339), nil
	case tEnum:
		for _, o := range v.Options {
			if s == o {
				return s, nil
			}
		}
		e := t.varErr(v, "enum", "variables.%s must be one of %s", v.Key, strings.Join(v.Options, ", "))
		e.Details["allowed"] = v.Options
		return nil, e
	}
	return s, nil
}

func (t *Template) checkMap(v Variable, r json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(r))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return nil, t.typeErr(v)
	}
	if len(m) > maxItems {
		return nil, t.limitErr(v, "max_items", maxItems, "variables.%s has %d entries; the limit is %d", v.Key, len(m), maxItems)
	}
	out := make([]pair, 0, len(m))
	for _, k := range objectKeys(r) {
		val, ok := scalarValue(m[k])
		if !ok || val == nil {
			e := t.varErr(v, "type", "variables.%s.%s must be a string, number or boolean", v.Key, clip(k, 64))
			e.Details["field"] = "variables." + v.Key + "." + clip(k, 64)
			return nil, e
		}
		out = append(out, pair{key: clip(k, maxString), val: val})
	}
	return out, nil
}

func (t *Template) checkRows(v Variable, r json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(r))
	dec.UseNumber()
	var rows []map[string]any
	if dec.Decode(&rows) != nil {
		return nil, t.typeErr(v)
	}
	if len(rows) > maxRows {
		return nil, t.limitErr(v, "max_items", maxRows, "variables.%s has %d rows; the limit is %d", v.Key, len(rows), maxRows)
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(r, &raws)
	tb := table{rows: make([]map[string]any, len(rows))}
	seen := map[string]bool{}
	for i, row := range rows {
		at := fmt.Sprintf("variables.%s[%d]", v.Key, i)
		if row == nil {
			e := t.varErr(v, "type", "%s must be an object of cells", at)
			e.Details["field"] = at
			return nil, e
		}
		out := make(map[string]any, len(row))
		for _, k := range objectKeys(raws[i]) {
			val, ok := scalarValue(row[k])
			if !ok {
				e := t.varErr(v, "type", "%s.%s must be a string, number, boolean or null", at, clip(k, 64))
				e.Details["field"] = at + "." + clip(k, 64)
				return nil, e
			}
			if !seen[k] {
				if len(tb.columns) == maxColumns {
					return nil, t.limitErr(v, "max_columns", maxColumns, "variables.%s uses more than %d different keys", v.Key, maxColumns)
				}
				seen[k] = true
				tb.columns = append(tb.columns, k)
			}
			out[k] = val
		}
		tb.rows[i] = out
	}
	return tb, nil
}

// scalarValue accepts a string (within the cell limit), a number, a boolean or null.
func scalarValue(x any) (any, bool) {
	switch v := x.(type) {
	case nil, bool, json.Number:
		return v, true
	case string:
		return clip(v, maxCell), true
	}
	return nil, false
}

// objectKeys lists the keys of a JSON object in the order sent (duplicates once).
func objectKeys(r json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(r))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := tok.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// expect describes what a variable of v's type looks like.
func expect(v Variable) string {
	switch v.Type {
	case TString, TText:
		return "a string"
	case TNumber:
		return "a number"
	case tInteger:
		return "a whole number"
	case tBoolean:
		return "true or false"
	case TURL:
		return "an http(s) URL string"
	case tEmail:
		return "an e-mail address string"
	case tDate:
		return `a date string "YYYY-MM-DD"`
	case tDateTime:
		return `an RFC 3339 timestamp string such as "2025-05-01T14:30:00Z"`
	case tEnum:
		return "one of " + strings.Join(v.Options, ", ")
	case tList:
		return "an array of strings"
	case tMap:
		return "an object of strings, numbers or booleans"
	case TRows:
		return "an array of objects"
	}
	return v.Type
}

func (t *Template) fieldErr(field, constraint, format string, args ...any) *fault.Error {
	e := fault.Field(field, constraint, format, args...)
	e.Details["template"] = t.Name
	return e
}

func (t *Template) varErr(v Variable, constraint, format string, args ...any) *fault.Error {
	e := t.fieldErr("variables."+v.Key, constraint, format, args...)
	e.Details["expected"] = v.Type
	return e
}

func (t *Template) typeErr(v Variable) *fault.Error {
	return t.varErr(v, "type", "variables.%s (%s) must be %s", v.Key, v.Label, expect(v))
}

func (t *Template) limitErr(v Variable, constraint string, limit int, format string, args ...any) *fault.Error {
	e := t.varErr(v, constraint, format, args...)
	e.Details["limit"] = limit
	return e
}

// suggest names the template's variable closest to an unknown key, if any is close.
func (t *Template) suggest(k string) string {
	best, bestD := "", 3
	lk := strings.ToLower(k)
	for _, v := range t.Variables {
		if d := distance(lk, strings.ToLower(v.Key)); d < bestD {
			best, bestD = v.Key, d
		}
	}
	return best
}

// distance is the Levenshtein distance, giving up (returning a large value) on long keys.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 10
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
