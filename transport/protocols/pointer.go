package protocols

import (
	"errors"
	"sort"
	"strconv"
	"strings"
)

// JSON Pointer (RFC 6901) over decoded values. Every function here is
// iterative or recursive only to the pointer's length, which parsePointer
// caps at maxPointerTokens.

var errPointer = errors.New("invalid JSON pointer")

// parsePointer splits p into unescaped tokens. With slashIsRoot (A2UI data
// paths) "/" names the whole document; per RFC 6901 it names the key "".
func parsePointer(p string, slashIsRoot bool) ([]string, error) {
	if p == "" || (slashIsRoot && p == "/") {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, errPointer
	}
	if strings.Count(p, "/") > maxPointerTokens {
		return nil, errors.New("JSON pointer too long")
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		if strings.Contains(t, "~") {
			toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		}
	}
	return toks, nil
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// arrayIndex parses an array index token; n is the array length.
func arrayIndex(tok string, n int) (int, bool) {
	if tok == "" || len(tok) > 9 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// getAt returns the value at toks.
func getAt(root any, toks []string) (any, bool) {
	cur := root
	for _, t := range toks {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, ok := arrayIndex(t, len(c))
			if !ok {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// setCreate stores val at toks, creating (or replacing scalars with) objects
// on the way, and returns the new root. Used for A2UI data models.
func setCreate(root any, toks []string, val any) any {
	if len(toks) == 0 {
		return val
	}
	t := toks[0]
	switch c := root.(type) {
	case map[string]any:
		c[t] = setCreate(c[t], toks[1:], val)
		return c
	case []any:
		if i, ok := arrayIndex(t, len(c)); ok {
			c[i] = setCreate(c[i], toks[1:], val)
			return c
		}
		if t == "-" || t == strconv.Itoa(len(c)) {
			return append(c, setCreate(nil, toks[1:], val))
		}
	}
	return map[string]any{t: setCreate(nil, toks[1:], val)}
}

// removeAt deletes the value at toks; missing paths are ignored.
func removeAt(root any, toks []string) any {
	if len(toks) == 0 {
		return nil
	}
	parent, ok := getAt(root, toks[:len(toks)-1])
	if !ok {
		return root
	}
	last := toks[len(toks)-1]
	switch c := parent.(type) {
	case map[string]any:
		delete(c, last)
	case []any:
		if i, ok := arrayIndex(last, len(c)); ok {
			nc := append(c[:i:i], c[i+1:]...)
			root, _ = putAt(root, toks[:len(toks)-1], nc)
		}
	}
	return root
}

// putAt replaces the value at toks, whose parent must exist; for an array
// parent the index must exist. Containers are modified in place.
func putAt(root any, toks []string, val any) (any, error) {
	if len(toks) == 0 {
		return val, nil
	}
	parent, ok := getAt(root, toks[:len(toks)-1])
	if !ok {
		return root, errors.New("path not found")
	}
	last := toks[len(toks)-1]
	switch c := parent.(type) {
	case map[string]any:
		c[last] = val
		return root, nil
	case []any:
		i, ok := arrayIndex(last, len(c))
		if !ok {
			return root, errors.New("array index out of range")
		}
		c[i] = val
		return root, nil
	}
	return root, errors.New("parent is not a container")
}

// sortedKeys returns the keys of m in byte order, for deterministic output.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// deepCopy copies v, spending one unit of *budget per value; ok is false
// when the budget runs out.
func deepCopy(v any, budget *int) (any, bool) {
	*budget--
	if *budget < 0 {
		return nil, false
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			cc, ok := deepCopy(c, budget)
			if !ok {
				return nil, false
			}
			out[k] = cc
		}
		return out, true
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			cc, ok := deepCopy(c, budget)
			if !ok {
				return nil, false
			}
			out[i] = cc
		}
		return out, true
	}
	return v, true
}
