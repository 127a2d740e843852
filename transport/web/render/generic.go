package render

import (
	"bytes"
	"encoding/json"
	"html/template"
	"sort"
	"strings"
	"unicode/utf8"
)

// generic shows block data of a type without a view of its own (or one whose view
// failed) as what it is: a definition list of its fields, nested lists for nested
// values, never a JSON dump. It is bounded by genericDepth and genericNodes.
func generic(raw json.RawMessage) template.HTML {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if len(bytes.TrimSpace(raw)) == 0 || d.Decode(&v) != nil {
		return template.HTML(`<p class="muted">No content.</p>`)
	}
	g := &genericWriter{left: genericNodes}
	g.value(v, 0)
	if g.left < 0 {
		g.buf.WriteString(`<p class="muted">More fields are not shown.</p>`)
	}
	return template.HTML(`<div class="generic">` + g.buf.String() + `</div>`) // #nosec: every leaf escaped below
}

type genericWriter struct {
	buf  strings.Builder
	left int
}

func (g *genericWriter) value(v any, depth int) {
	g.left--
	if g.left < 0 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if depth >= genericDepth {
			g.buf.WriteString(`<span class="muted">…</span>`)
			return
		}
		if len(x) == 0 {
			g.buf.WriteString(`<span class="muted">(empty)</span>`)
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		g.buf.WriteString(`<dl>`)
		for _, k := range keys {
			if g.left < 0 {
				break
			}
			g.buf.WriteString(`<dt>`)
			g.buf.WriteString(template.HTMLEscapeString(humanize(k)))
			g.buf.WriteString(`</dt><dd>`)
			g.value(x[k], depth+1)
			g.buf.WriteString(`</dd>`)
		}
		g.buf.WriteString(`</dl>`)
	case []any:
		if depth >= genericDepth {
			g.buf.WriteString(`<span class="muted">…</span>`)
			return
		}
		if len(x) == 0 {
			g.buf.WriteString(`<span class="muted">(none)</span>`)
			return
		}
		g.buf.WriteString(`<ul>`)
		for _, e := range x {
			if g.left < 0 {
				break
			}
			g.buf.WriteString(`<li>`)
			g.value(e, depth+1)
			g.buf.WriteString(`</li>`)
		}
		g.buf.WriteString(`</ul>`)
	case nil:
		g.buf.WriteString(`<span class="muted">—</span>`)
	case string:
		if utf8.RuneCountInString(x) > genericText {
			x = string([]rune(x)[:genericText]) + "…"
		}
		g.buf.WriteString(`<span class="val">`)
		g.buf.WriteString(template.HTMLEscapeString(x))
		g.buf.WriteString(`</span>`)
	case json.Number:
		g.buf.WriteString(`<span class="val num">`)
		g.buf.WriteString(template.HTMLEscapeString(x.String()))
		g.buf.WriteString(`</span>`)
	case bool:
		if x {
			g.buf.WriteString(`<span class="val">yes</span>`)
		} else {
			g.buf.WriteString(`<span class="val">no</span>`)
		}
	}
}

// humanize turns a field name such as "expired_message" into "Expired message".
func humanize(k string) string {
	k = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(k, "_", " "), "-", " "))
	if k == "" {
		return "(unnamed)"
	}
	r, n := utf8.DecodeRuneInString(k)
	return strings.ToUpper(string(r)) + k[n:]
}
