package protocols

import "strings"

// A2UI dynamic values: a literal, a data binding {"path": "/json/pointer"}, a
// function call {"call": ..., "args": ...}, or (v0.8) {"literalString": ...}.
// Relative paths resolve against the scope: "/" at the top, the item's
// pointer (e.g. "/items/3") inside a template.

// joinPath resolves path against scope and returns an absolute pointer.
func joinPath(scope, path string) (string, bool) {
	abs := path
	if !strings.HasPrefix(path, "/") {
		rel := strings.TrimPrefix(path, "./")
		switch {
		case rel == "" || rel == ".":
			abs = scope
		case scope == "" || scope == "/":
			abs = "/" + rel
		default:
			abs = scope + "/" + rel
		}
	}
	if abs == "" {
		abs = "/"
	}
	if _, err := parsePointer(abs, true); err != nil {
		return "", false
	}
	return abs, true
}

// lookup reads an absolute pointer from the surface's data model.
func (r *renderer) lookup(abs string) (any, bool) {
	toks, err := parsePointer(abs, true)
	if err != nil || r.surf.data == nil {
		return nil, false
	}
	return getAt(r.surf.data, toks)
}

// resolve evaluates a dynamic value to plain decoded JSON (nil when unknown).
// cid names the component in warnings.
func (r *renderer) resolve(v any, scope, cid string) any {
	switch t := v.(type) {
	case string:
		return r.interpolate(t, scope, cid)
	case map[string]any:
		if p, ok := t["path"].(string); ok {
			abs, ok := joinPath(scope, p)
			if !ok {
				r.w.add("component %s: binding path %q is not a valid JSON pointer", cid, p)
				return nil
			}
			if val, found := r.lookup(abs); found {
				return val
			}
			if lit, ok := literal08(t); ok {
				return lit
			}
			r.w.add("component %s: binding %s has no value in the data model", cid, abs)
			return nil
		}
		if lit, ok := literal08(t); ok {
			return lit
		}
		if _, ok := t["call"].(string); ok {
			return r.call(t, scope, cid)
		}
	}
	return v
}

func literal08(m map[string]any) (any, bool) {
	for _, k := range [...]string{"literalString", "literalNumber", "literalBoolean", "literalArray"} {
		if v, ok := m[k]; ok {
			return v, true
		}
	}
	return nil, false
}

// call evaluates a function call as far as a server can: formatString
// interpolates its value; any other function yields its "value" argument
// (e.g. formatDate, formatNumber show the raw value).
func (r *renderer) call(m map[string]any, scope, cid string) any {
	var arg any
	switch a := m["args"].(type) {
	case map[string]any:
		arg = a["value"]
	case []any:
		if len(a) > 0 {
			arg = a[0]
		}
	}
	if arg == nil {
		return nil
	}
	return r.resolve(arg, scope, cid)
}

// text resolves a dynamic value to display text, charging the output budget.
func (r *renderer) text(v any, scope, cid string) string {
	s := scalarText(r.resolve(v, scope, cid))
	if !r.charge(len(s)) {
		return ""
	}
	return s
}

// interpolate replaces ${/abs/path} and ${relative/path} in s by data model
// values. "\${" is a literal "${"; expressions that are not paths (function
// calls such as ${now()}) are left as written.
func (r *renderer) interpolate(s, scope, cid string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		if i > 0 && s[i-1] == '\\' {
			b.WriteString(s[:i-1])
			b.WriteString("${")
			s = s[i+2:]
			continue
		}
		end := matchBrace(s[i+2:])
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		expr := strings.TrimSpace(s[i+2 : i+2+end])
		s = s[i+3+end:]
		if strings.ContainsAny(expr, "(){}'\" ") {
			b.WriteString("${" + expr + "}")
			continue
		}
		abs, ok := joinPath(scope, expr)
		if !ok {
			b.WriteString("${" + expr + "}")
			continue
		}
		v, found := r.lookup(abs)
		if !found {
			r.w.add("component %s: ${%s} has no value in the data model", cid, abs)
			continue
		}
		sub := scalarText(v)
		if !r.charge(len(sub)) {
			return b.String()
		}
		b.WriteString(sub)
	}
}

// matchBrace returns the index of the "}" closing an expression that starts
// at s[0], allowing nested braces, or -1.
func matchBrace(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}
