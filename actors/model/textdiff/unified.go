// Package textdiff writes unified diffs of two texts. It is pure and bounded: the
// line matching costs at most maxCells comparisons (beyond that the differing
// middle is shown as removed then added, still a correct diff), and the output
// stops at the caller's byte bound.
package textdiff

import (
	"fmt"
	"strings"
)

// context is the unchanged lines shown around each change.
const context = 3

// maxCells bounds the longest-common-subsequence table (lines × lines) after the
// common head and tail are set aside.
const maxCells = 1 << 20

// Unified is the unified diff turning a into b, with the file names from and to;
// "" when they are equal. It holds at most maxBytes bytes (cut at a line end);
// truncated says it was cut.
func Unified(a, b, from, to string, maxBytes int) (diff string, truncated bool) {
	if a == b {
		return "", false
	}
	x, y := lines(a), lines(b)
	ops := script(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	for _, h := range hunks(ops) {
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", span(h.a0, h.an), span(h.b0, h.bn))
		for _, o := range ops[h.from:h.to] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			out.WriteByte('\n')
		}
	}
	s := out.String()
	if len(s) <= maxBytes {
		return s, false
	}
	cut := strings.LastIndexByte(s[:maxBytes], '\n')
	return s[:cut+1], true
}

// lines splits s into lines without their newline; a final newline ends the last
// line rather than starting an empty one.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

type op struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int // line numbers (0-based) in a and b before this op
}

// script is the edit script from x to y: equal lines kept, the rest removed then
// added.
func script(x, y []string) []op {
	head := 0
	for head < len(x) && head < len(y) && x[head] == y[head] {
		head++
	}
	tail := 0
	for tail < len(x)-head && tail < len(y)-head && x[len(x)-1-tail] == y[len(y)-1-tail] {
		tail++
	}
	var ops []op
	ai, bi := 0, 0
	keep := func(s string) { ops = append(ops, op{' ', s, ai, bi}); ai++; bi++ }
	del := func(s string) { ops = append(ops, op{'-', s, ai, bi}); ai++ }
	add := func(s string) { ops = append(ops, op{'+', s, ai, bi}); bi++ }
	for _, s := range x[:head] {
		keep(s)
	}
	mx, my := x[head:len(x)-tail], y[head:len(y)-tail]
	if len(mx)*len(my) <= maxCells {
		// lcs[i][j]: the longest common subsequence of mx[i:] and my[j:].
		w := len(my) + 1
		lcs := make([]int32, (len(mx)+1)*w)
		for i := len(mx) - 1; i >= 0; i-- {
			for j := len(my) - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(mx) || j < len(my) {
			switch {
			case i < len(mx) && j < len(my) && mx[i] == my[j]:
				keep(mx[i])
				i, j = i+1, j+1
			case i < len(mx) && (j == len(my) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
				del(mx[i]) // removals before additions, as diff(1) writes them
				i++
			default:
				add(my[j])
				j++
			}
		}
	} else {
		for _, s := range mx {
			del(s)
		}
		for _, s := range my {
			add(s)
		}
	}
	for _, s := range x[len(x)-tail:] {
		keep(s)
	}
	return ops
}

type hunk struct {
	from, to int // ops[from:to]
	a0, an   int // first line (0-based) and count in a
	b0, bn   int
}

// hunks groups the changes with up to context unchanged lines around each; changes
// closer than 2×context lines share a hunk.
func hunks(ops []op) []hunk {
	var out []hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		from := max(0, i-context)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		h := hunk{from: from, to: end, a0: ops[from].a, b0: ops[from].b}
		for _, o := range ops[from:end] {
			if o.kind != '+' {
				h.an++
			}
			if o.kind != '-' {
				h.bn++
			}
		}
		out = append(out, h)
		i = end
	}
	return out
}

// span is a hunk header's range: "start,count", with start 1-based (or the line
// before an empty range).
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
