package web

import (
	"bytes"
	"embed"
	"html/template"
	"strconv"
	"strings"
	"time"

	"folio/transport/web/render"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// pageTemplates are the pages and parts of this package (templates/*.tmpl).
var pageTemplates = template.Must(template.New("web").Funcs(template.FuncMap{
	"when":     when,
	"iso":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"size":     humanSize,
	"icon":     render.Icon,
	"initials": initials,
	"plural":   plural,
	"upper":    strings.ToUpper,
	"add":      func(a, b int) int { return a + b },
	"blockdom": render.BlockDOMID,
}).ParseFS(templateFS, "templates/*.tmpl"))

func (s *Site) execute(buf *bytes.Buffer, name string, model any) error {
	return pageTemplates.ExecuteTemplate(buf, name, model)
}

// when shows a moment the way people read it, in UTC (the page script shows it in
// the reader's own time zone and as "3 minutes ago").
func when(t time.Time) string {
	return t.UTC().Format("2 Jan 2006, 15:04 UTC")
}

func humanSize(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KB"
	case n < 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	}
	return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GB"
}

// initials are the avatar letters of a name or address.
func initials(name string) string {
	name = strings.TrimPrefix(strings.TrimSpace(name), "agent:")
	if at := strings.IndexByte(name, '@'); at > 0 {
		name = name[:at]
	}
	fields := strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '.' || r == '_' || r == '-' })
	out := []rune{}
	for _, f := range fields {
		r := []rune(f)
		out = append(out, r[0])
		if len(out) == 2 {
			break
		}
	}
	if len(out) == 0 {
		return "?"
	}
	return strings.ToUpper(string(out))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
