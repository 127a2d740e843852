package render

import (
	"bytes"
	"html/template"
	"regexp"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Markdown from agents is rendered in two independent steps so that neither has to
// be perfect on its own: goldmark (CommonMark + GFM tables, strikethrough, task
// lists, autolinks) with raw HTML switched off, then an allow-list sanitiser that
// keeps only ordinary text markup, http/https/mailto links (rel="noopener
// noreferrer", new tab for absolute links) and http(s) images. Headings are moved
// down two levels so an agent's "# Heading" sits under the block's own title.

// MaxMarkdown is the longest Markdown field rendered as Markdown (bytes); longer
// text is shown as plain text, so rendering stays linear in the input.
const MaxMarkdown = 100_000

var (
	md = goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extension.Linkify),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(headingShift{}, 100))),
	)
	policy = sync.OnceValue(func() *bluemonday.Policy {
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

// Markdown renders an agent's Markdown as sanitised HTML.
func Markdown(src string) template.HTML {
	if src == "" {
		return ""
	}
	if len(src) > MaxMarkdown {
		return template.HTML(`<p class="plain">` + template.HTMLEscapeString(src) + `</p>`)
	}
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return template.HTML(`<p class="plain">` + template.HTMLEscapeString(src) + `</p>`)
	}
	return template.HTML(policy().SanitizeBytes(buf.Bytes())) // #nosec: sanitised just above
}

// headingShift moves Markdown headings down two levels (h1 -> h3, at most h6).
type headingShift struct{}

func (headingShift) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			h.Level = min(h.Level+2, 6)
		}
		return ast.WalkContinue, nil
	})
}
