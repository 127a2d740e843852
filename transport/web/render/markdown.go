package render

import (
	"bufio"
	"bytes"
	"html/template"
	"regexp"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Markdown from agents is rendered in two independent steps so that neither has to
// be perfect on its own: goldmark (CommonMark + GFM tables, strikethrough, task
// lists, autolinks) with raw HTML switched off, then an allow-list sanitiser that
// keeps only ordinary text markup, http/https/mailto links (rel="noopener
// noreferrer", new tab for absolute links) and http(s) images. Headings are moved
// down so an agent's "# Heading" sits one level under the heading it falls under
// (markdownAt: the block's title, or what holds an untitled block), at most h6.

// maxMarkdown is the longest Markdown field rendered as Markdown (bytes); longer
// text is shown as plain text, so rendering stays linear in the input.
const maxMarkdown = 100_000

// What one Markdown field draws is bounded by its own length n, whatever it holds:
//
//   - links and images: a reference link repeats its definition's address (and
//     title) at every use, so each use is charged len(address)+len(title)+linkCost
//     against len(n)+linkConst; past that, and for an address over maxLinkURL, the
//     link is drawn as its text (an image as its alt text), a title over maxLinkURL
//     is dropped. The sanitiser's additions (rel, target) are per link, so they stay
//     within the same charge.
//   - GFM tables: a row shorter than its header is filled with empty cells, so a
//     wide header over many short lines would build columns × lines cells; a text
//     where that product passes mdCells(n) is read without the table extension.
//   - everything else: the HTML is rendered top-level node by node into mdRoom(n)
//     bytes; the first node that does not fit stops the rendering (its partial
//     output is dropped, the work stops with it) and a "Content truncated" note ends
//     the text.
const (
	maxLinkURL = 2048
	linkCost   = 64
	linkConst  = 16 << 10
	mdFactor   = 8
	mdConst    = 4 << 10
)

func mdRoom(n int) int  { return mdFactor*n + mdConst }
func mdCells(n int) int { return 4*n + 20_000 }

// mdMarker ends Markdown that was cut.
const mdMarker = `<p class="truncated" role="note"><strong>Content truncated.</strong> ` +
	`This text draws larger than the review page shows, so the rest of it is not shown. ` +
	`Ask the agent that published the page for a shorter version.</p>`

var (
	mdExtensions = []goldmark.Extender{extension.Strikethrough, extension.TaskList, extension.Linkify}
	mdParser     = goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(headingShift{}, 100), util.Prioritized(linkBudget{}, 99)))
	md           = goldmark.New(goldmark.WithExtensions(append(mdExtensions, extension.Table)...), mdParser)
	mdNoTables   = goldmark.New(goldmark.WithExtensions(mdExtensions...), mdParser)
	policy       = sync.OnceValue(func() *bluemonday.Policy {
		p := bluemonday.UGCPolicy()
		p.AllowURLSchemes("http", "https", "mailto")
		p.RequireParseableURLs(true)
		p.RequireNoFollowOnLinks(false)
		p.RequireNoReferrerOnLinks(true)
		p.AddTargetBlankToFullyQualifiedLinks(true)
		p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[A-Za-z0-9_+-]{1,32}$`)).OnElements("code")
		p.AllowAttrs("type", "checked", "disabled").OnElements("input")
		return p
	})
)

// markdown renders an agent's Markdown as sanitised HTML, its "# Heading" an h3 (a
// top-level block's title is an h2).
func markdown(src string) template.HTML { return markdownAt(3, src) }

// markdownAt renders an agent's Markdown as sanitised HTML, its "# Heading" at level
// h1 (2..6; "## Heading" one below, and so on, at most h6).
func markdownAt(h1 int, src string) template.HTML {
	if src == "" {
		return ""
	}
	if len(src) > maxMarkdown {
		return template.HTML(`<p class="plain">` + template.HTMLEscapeString(src) + `</p>`)
	}
	conv := md
	if mdTableCells(src) > mdCells(len(src)) {
		conv = mdNoTables
	}
	source := []byte(src)
	pc := parser.NewContext()
	pc.Set(headingTop, min(max(h1, 2), 6))
	doc := conv.Parser().Parse(text.NewReader(source), parser.WithContext(pc))
	var buf bytes.Buffer
	cut, ok := renderCapped(conv.Renderer(), &buf, source, doc, mdRoom(len(src)))
	if !ok {
		return template.HTML(`<p class="plain">` + template.HTMLEscapeString(src) + `</p>`)
	}
	out := policy().SanitizeBytes(buf.Bytes())
	if cut {
		out = append(out, mdMarker...)
	}
	return template.HTML(out) // #nosec: sanitised just above
}

// capped is the writer Markdown renders into: a write past limit panics with
// errFull, which renderNode recovers, so rendering stops there.
type capped struct {
	buf   *bytes.Buffer
	limit int
}

func (w *capped) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.limit {
		panic(errFull)
	}
	return w.buf.Write(p)
}

// renderCapped renders doc's top-level nodes in order into buf, at most room bytes;
// cut reports that a node did not fit (it and all after it are left out). ok is
// false when the renderer failed otherwise.
func renderCapped(r renderer.Renderer, buf *bytes.Buffer, source []byte, doc ast.Node, room int) (cut, ok bool) {
	bw := bufio.NewWriter(&capped{buf: buf, limit: buf.Len() + room}) // Render writes through it as is (same size)
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		mark := buf.Len()
		full, err := renderNode(r, bw, source, n)
		if full {
			buf.Truncate(mark)
			return true, true
		}
		if err != nil {
			return false, false
		}
	}
	return false, true
}

func renderNode(r renderer.Renderer, w *bufio.Writer, source []byte, n ast.Node) (full bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			if p != errFull { // the sentinel itself is what capped panics with
				panic(p)
			}
			full = true
		}
	}()
	return false, r.Render(w, source, n)
}

// mdTableCells is at most the cells GFM tables in src can build: the widest
// delimiter row's columns times the lines.
func mdTableCells(src string) int {
	cols, lines := 0, 1
	for line := range strings.Lines(src) {
		lines++
		t := strings.TrimSpace(line)
		if !strings.Contains(t, "-") || strings.Trim(t, "|-: \t") != "" {
			continue
		}
		cols = max(cols, strings.Count(t, "|")+1)
	}
	return cols * lines
}

// linkBudget draws links and images as their text once their addresses, repeated
// by reference, would pass what the field's length allows (see mdRoom).
type linkBudget struct{}

func (linkBudget) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	left := len(reader.Source()) + linkConst
	var unlink []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest, title *[]byte
		switch l := n.(type) {
		case *ast.Link:
			dest, title = &l.Destination, &l.Title
		case *ast.Image:
			dest, title = &l.Destination, &l.Title
		default:
			return ast.WalkContinue, nil
		}
		if len(*title) > maxLinkURL {
			*title = nil
		}
		cost := len(*dest) + len(*title) + linkCost
		if len(*dest) > maxLinkURL || cost > left {
			unlink = append(unlink, n)
			return ast.WalkContinue, nil
		}
		left -= cost
		return ast.WalkContinue, nil
	})
	for _, n := range unlink {
		parent := n.Parent()
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, n, c)
			c = next
		}
		parent.RemoveChild(parent, n)
	}
}

// headingTop is the parser context's level for a Markdown "# Heading" (markdownAt).
var headingTop = parser.NewContextKey()

// headingShift moves Markdown headings down so that level 1 becomes the context's
// headingTop (3 when unset), keeping their order, at most h6.
type headingShift struct{}

func (headingShift) Transform(doc *ast.Document, _ text.Reader, pc parser.Context) {
	top := 3
	if v, ok := pc.Get(headingTop).(int); ok {
		top = v
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			h.Level = min(h.Level+top-1, 6)
		}
		return ast.WalkContinue, nil
	})
}
