package callback

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"folio/actors/model/blocks"
	"folio/actors/page"
)

// The body of a notification or reminder mail: the page's summary and its key
// blocks (mailBlocks: the first few text, key_value and table blocks, each cut
// short), then one decision link per action and the page's address. What the agent
// wrote is data: the HTML part escapes it (html/template) and both parts show it
// inside a quotation marked as the page's; the subject is unchanged (title and
// priority, the page owner's own words to the address they chose).

// Bounds of the rendering, so a page of any size makes a mail a person can read.
const (
	mailMaxBlocks    = 4    // blocks shown
	mailMaxText      = 600  // characters of a text block
	mailMaxPairs     = 8    // key_value pairs
	mailMaxRows      = 5    // table rows
	mailMaxCols      = 4    // table columns
	mailMaxCell      = 60   // characters of a value or cell
	mailMaxSummary   = 1200 // characters of the summary
	mailMaxLinkLabel = 60   // characters of an action's label
)

// mailBlock is one block as a mail shows it.
type mailBlock struct {
	Text  string      // a text block's content
	Pairs [][2]string // key_value
	Head  []string    // table
	Rows  [][]string
	More  string // "… 12 more rows" and the like
}

// mailBlocks picks and cuts the blocks a mail shows.
func mailBlocks(bs []blocks.Block) []mailBlock {
	var out []mailBlock
	for _, b := range bs {
		if len(out) == mailMaxBlocks {
			break
		}
		switch b.Type {
		case "text":
			var d struct {
				Content string `json:"content"`
			}
			if json.Unmarshal(b.Data, &d) == nil && strings.TrimSpace(d.Content) != "" {
				out = append(out, mailBlock{Text: clip(strings.TrimSpace(d.Content), mailMaxText)})
			}
		case "key_value":
			var d struct {
				Pairs []struct {
					Key   string `json:"key"`
					Value any    `json:"value"`
				} `json:"pairs"`
			}
			if json.Unmarshal(b.Data, &d) != nil || len(d.Pairs) == 0 {
				continue
			}
			mb := mailBlock{}
			for i, p := range d.Pairs {
				if i == mailMaxPairs {
					mb.More = fmt.Sprintf("… %d more", len(d.Pairs)-i)
					break
				}
				mb.Pairs = append(mb.Pairs, [2]string{clip(oneLine(p.Key), mailMaxCell), clip(oneLine(scalar(p.Value)), mailMaxCell)})
			}
			out = append(out, mb)
		case "table":
			var d struct {
				Columns []struct {
					Key   string `json:"key"`
					Label string `json:"label"`
				} `json:"columns"`
				Rows []map[string]any `json:"rows"`
			}
			if json.Unmarshal(b.Data, &d) != nil || len(d.Columns) == 0 {
				continue
			}
			cols := d.Columns[:min(len(d.Columns), mailMaxCols)]
			mb := mailBlock{}
			for _, c := range cols {
				l := c.Label
				if l == "" {
					l = c.Key
				}
				mb.Head = append(mb.Head, clip(oneLine(l), mailMaxCell))
			}
			for i, r := range d.Rows {
				if i == mailMaxRows {
					mb.More = fmt.Sprintf("… %d more rows", len(d.Rows)-i)
					break
				}
				var row []string
				for _, c := range cols {
					row = append(row, clip(oneLine(scalar(r[c.Key])), mailMaxCell))
				}
				mb.Rows = append(mb.Rows, row)
			}
			out = append(out, mb)
		}
	}
	return out
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64, bool, json.Number:
		return fmt.Sprint(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// mailLink is one decision link of a mail: its label and the placeholder that
// becomes its address when the mail is sent (links.go).
type mailLink struct{ Label, URL string }

// mailView is a notification mail's model.
type mailView struct {
	Title, Notice, Summary, Priority, PageURL string
	Version                                   int
	Blocks                                    []mailBlock
	Links                                     []mailLink
	Expires                                   string
}

var notifyHTML = template.Must(template.New("notify").Parse(`<!doctype html>
<html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a;max-width:640px">
<h1 style="font-size:1.25em;margin:0 0 .5em">{{.Title}}</h1>
{{if .Notice}}<p><strong>{{.Notice}}</strong></p>{{end}}
<p style="color:#555;margin-bottom:.2em">From the page (written by its author):</p>
<blockquote style="margin:0 0 1em;padding:.3em .8em;border-left:3px solid #bbb;color:#333">
{{if .Summary}}<p style="white-space:pre-wrap">{{.Summary}}</p>{{end}}
{{range .Blocks}}{{if .Text}}<p style="white-space:pre-wrap">{{.Text}}</p>{{end}}
{{if .Pairs}}<table style="border-collapse:collapse;margin:.5em 0">{{range .Pairs}}<tr><th scope="row" style="text-align:left;padding:.15em .8em .15em 0;color:#555;font-weight:600">{{index . 0}}</th><td style="padding:.15em 0">{{index . 1}}</td></tr>{{end}}</table>{{end}}
{{if .Head}}<table style="border-collapse:collapse;margin:.5em 0"><tr>{{range .Head}}<th scope="col" style="text-align:left;padding:.2em .6em;border-bottom:1px solid #bbb">{{.}}</th>{{end}}</tr>{{range .Rows}}<tr>{{range .}}<td style="padding:.2em .6em;border-bottom:1px solid #eee">{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}
{{if .More}}<p style="color:#555">{{.More}}</p>{{end}}{{end}}
</blockquote>
<p>Priority: {{.Priority}} · version {{.Version}}</p>
{{if .Links}}<p style="margin-bottom:.3em">Decide from here (each link opens a confirmation first and works once{{if .Expires}}, until {{.Expires}}{{end}}):</p>
<p>{{range .Links}}<a href="{{.URL}}" style="display:inline-block;margin:0 .5em .5em 0;padding:.6em 1.2em;background:#1f5eff;color:#fff;border-radius:6px;text-decoration:none">{{.Label}}</a> {{end}}</p>{{end}}
<p><a href="{{.PageURL}}">Open the page</a></p>
</body></html>
`))

// composeNotify renders a notification mail's text and HTML parts.
func composeNotify(v mailView) (text, html string) {
	var b strings.Builder
	b.WriteString(v.Title + "\n\n")
	if v.Notice != "" {
		b.WriteString(v.Notice + "\n\n")
	}
	b.WriteString("From the page (written by its author):\n")
	quote := func(s string) {
		for _, l := range strings.Split(s, "\n") {
			b.WriteString("  > " + l + "\n")
		}
	}
	if v.Summary != "" {
		quote(v.Summary)
	}
	for _, mb := range v.Blocks {
		b.WriteString("  >\n")
		if mb.Text != "" {
			quote(mb.Text)
		}
		for _, p := range mb.Pairs {
			quote(p[0] + ": " + p[1])
		}
		if mb.Head != nil {
			quote(strings.Join(mb.Head, " | "))
			for _, r := range mb.Rows {
				quote(strings.Join(r, " | "))
			}
		}
		if mb.More != "" {
			quote(mb.More)
		}
	}
	fmt.Fprintf(&b, "\nPriority: %s, version %d\n", v.Priority, v.Version)
	if len(v.Links) > 0 {
		b.WriteString("\nDecide from here (each link opens a confirmation first and works once")
		if v.Expires != "" {
			b.WriteString(", until " + v.Expires)
		}
		b.WriteString("):\n")
		for _, l := range v.Links {
			b.WriteString(l.Label + ": " + l.URL + "\n")
		}
	}
	fmt.Fprintf(&b, "\nOpen the page: %s\n", v.PageURL)
	var h bytes.Buffer
	_ = notifyHTML.Execute(&h, v)
	return b.String(), h.String()
}

// linkLabel is how a mail names an action's link.
func linkLabel(a page.Action) string { return clip(oneLine(a.Label), mailMaxLinkLabel) }
