package templates

import "strings"

// markdownSpecial are the ASCII punctuation characters that CommonMark or GitHub
// Flavored Markdown give a meaning somewhere (emphasis, code, links, images, HTML,
// entities, headings, lists, block quotes, tables, strikethrough, setext rules).
// CommonMark lets any ASCII punctuation be backslash-escaped, and an escaped one
// always shows as itself.
const markdownSpecial = "\\`*_{}[]()<>#+-.!|~&="

// md makes s safe to place in a Markdown field: every special character is
// backslash-escaped, so a variable shows exactly as sent and never opens a link,
// emphasis, heading, list, code span or HTML tag. Line breaks are kept as hard
// breaks so multi-line text keeps its lines.
func md(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	lines := strings.Split(strings.ReplaceAll(s, "\r", ""), "\n")
	for i, line := range lines {
		if i > 0 {
			if strings.TrimSpace(lines[i-1]) == "" || strings.TrimSpace(line) == "" {
				b.WriteString("\n")
			} else {
				b.WriteString("\\\n") // a hard line break (CommonMark: backslash before the newline)
			}
		}
		// Leading spaces would make an indented code block; the text shows the same
		// without them.
		line = strings.TrimLeft(line, " \t")
		for _, r := range line {
			if r < 128 && strings.ContainsRune(markdownSpecial, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
