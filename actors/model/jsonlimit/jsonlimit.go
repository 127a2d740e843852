// Package jsonlimit bounds the shape of free-form JSON before anything decodes it.
// Block data, form data, template variables, A2UI/AG-UI payloads and callback replies
// are JSON whose inner structure the service does not fix, so the body size limit
// alone does not bound what decoding, storing and rendering them costs: 60 KB of
// "[[[[…" is 30,000 levels, and every level multiplies what a recursive walker or a
// pretty-printer does. Depth is checked once, in one linear pass over the bytes,
// where JSON enters (the API's body decoder, the callback reply reader). The API's
// decoder checks in the same pass that every string is valid UTF-8 (Scan).
package jsonlimit

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of objects and arrays accepted anywhere in a JSON
// value. A page body with blocks nested the most the API allows (6 levels) reaches
// about 32 (each block level costs ~5: blocks array, block, data, column, blocks);
// a tree block of 16 levels about 36. 64 leaves room for that and refuses the
// pathological.
const MaxDepth = 64

// tooDeep describes where a JSON value first nests deeper than the limit.
type tooDeep struct {
	Path  string // e.g. "blocks[0].data.nodes[0].children[0]…"
	Limit int
}

// Problem is the first place a JSON text breaks one of the shape rules of Scan.
type Problem struct {
	Path       string // as tooDeep.Path; "" for the top level
	Constraint string // "max_depth" or "utf8"
	Limit      int    // the depth limit (max_depth)
}

// Constraints of a Problem.
const (
	constraintDepth = "max_depth"
	ConstraintUTF8  = "utf8"
)

// Check scans raw once (O(len(raw)), no allocation but the path of a failure) and
// reports the first place deeper than limit, or nil. Bytes that are not valid JSON
// are not its concern: it never fails on them, and the decoder that runs next does.
func Check(raw []byte, limit int) *tooDeep {
	if p := scan(raw, limit, false); p != nil {
		return &tooDeep{Path: p.Path, Limit: p.Limit}
	}
	return nil
}

// Scan is Check that also refuses a string that is not valid UTF-8, in the same
// single pass. JSON text is UTF-8 (RFC 8259 §8.1); a value kept as raw JSON (block
// data, form data) would otherwise be stored and served byte for byte as text no
// JSON parser must accept. Invalid bytes outside strings are left to the decoder,
// which refuses them as malformed.
func Scan(raw []byte, limit int) *Problem { return scan(raw, limit, true) }

func scan(raw []byte, limit int, checkUTF8 bool) *Problem {
	type level struct {
		array bool
		index int
		key   []byte // the current member's name (objects), a slice of raw
	}
	var stack []level
	var lastString []byte // the string just read: a member name when ':' follows
	expectKey := false    // the next string in the innermost object is a member name
	path := func(levels []level, extra []byte) string {
		var b strings.Builder
		for j, l := range levels {
			switch {
			case l.array:
				b.WriteString("[" + strconv.Itoa(l.index) + "]")
			case l.key != nil:
				if j > 0 {
					b.WriteByte('.')
				}
				b.Write(l.key[:min(len(l.key), 64)])
			}
			if b.Len() > 300 {
				b.WriteString("…")
				return b.String()
			}
		}
		if extra != nil {
			if len(levels) > 0 {
				b.WriteByte('.')
			}
			b.WriteString(strings.ToValidUTF8(string(extra[:min(len(extra), 64)]), "\ufffd"))
		}
		return b.String()
	}
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			start := i + 1
			ascii := true
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				} else if raw[i] >= utf8.RuneSelf {
					ascii = false
				}
			}
			if i <= len(raw) {
				lastString = raw[start:min(i, len(raw))]
			}
			if checkUTF8 && !ascii && !utf8.Valid(lastString) {
				if expectKey {
					return &Problem{Path: path(stack[:len(stack)-1], lastString), Constraint: ConstraintUTF8}
				}
				return &Problem{Path: path(stack, nil), Constraint: ConstraintUTF8}
			}
		case ':':
			if n := len(stack); n > 0 && !stack[n-1].array {
				stack[n-1].key = lastString
			}
			expectKey = false
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].array {
					stack[n-1].index++
				} else {
					expectKey = true
				}
			}
		case '{', '[':
			if len(stack) >= limit {
				return &Problem{Path: path(stack, nil), Constraint: constraintDepth, Limit: limit}
			}
			stack = append(stack, level{array: c == '['})
			expectKey = c == '{'
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		}
	}
	return nil
}
