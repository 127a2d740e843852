// Package jsonlimit bounds the shape of free-form JSON before anything decodes it.
// Block data, form data, template variables, A2UI/AG-UI payloads and callback replies
// are JSON whose inner structure the service does not fix, so the body size limit
// alone does not bound what decoding, storing and rendering them costs: 60 KB of
// "[[[[…" is 30,000 levels, and every level multiplies what a recursive walker or a
// pretty-printer does. Depth is checked once, in one linear pass over the bytes,
// where JSON enters (the API's body decoder, the callback reply reader).
package jsonlimit

import (
	"strconv"
	"strings"
)

// MaxDepth is the deepest nesting of objects and arrays accepted anywhere in a JSON
// value. A page body with blocks nested the most the API allows (6 levels) reaches
// about 32 (each block level costs ~5: blocks array, block, data, column, blocks);
// a tree block of 16 levels about 36. 64 leaves room for that and refuses the
// pathological.
const MaxDepth = 64

// TooDeep describes where a JSON value first nests deeper than the limit.
type TooDeep struct {
	Path  string // e.g. "blocks[0].data.nodes[0].children[0]…"
	Limit int
}

// Check scans raw once (O(len(raw)), no allocation but the path of a failure) and
// reports the first place deeper than limit, or nil. Bytes that are not valid JSON
// are not its concern: it never fails on them, and the decoder that runs next does.
func Check(raw []byte, limit int) *TooDeep {
	type level struct {
		array bool
		index int
		key   []byte // the current member's name (objects), a slice of raw
	}
	var stack []level
	var lastString []byte // the string just read: a member name when ':' follows
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			start := i + 1
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
			if i <= len(raw) {
				lastString = raw[start:min(i, len(raw))]
			}
		case ':':
			if n := len(stack); n > 0 && !stack[n-1].array {
				stack[n-1].key = lastString
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].array {
				stack[n-1].index++
			}
		case '{', '[':
			if len(stack) >= limit {
				var b strings.Builder
				for j, l := range stack {
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
						break
					}
				}
				return &TooDeep{Path: b.String(), Limit: limit}
			}
			stack = append(stack, level{array: c == '['})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return nil
}
