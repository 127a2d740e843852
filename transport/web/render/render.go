// Package render draws content blocks as HTML for the review page. It is pure: block
// data in, HTML out, with no actors, storage or HTTP. Everything an agent wrote is
// untrusted: text goes through html/template's contextual escaping, Markdown through
// Markdown (goldmark, then an allow-list sanitiser), and every address through
// SafeURL before it reaches an attribute.
//
// Each block type has a view function (Go: data -> view model, registered with
// register) and a template of the same name in templates/. The view function decodes
// the block's data leniently (decode), so a block that drew warnings at publish still
// shows what is usable; a block that cannot be drawn at all falls back to the generic
// view of its fields. Nothing here grows faster than its input: nesting, lists and
// generic values are bounded (limits.go).
package render

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html/template"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"folio/actors/blocks"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// Options say where and how the blocks are shown.
type Options struct {
	// PageID is the page the blocks belong to.
	PageID string
	// FormID is the id of the page's <form> element: form fields and action buttons
	// rendered inside blocks belong to it through their form attribute (HTML forms
	// cannot nest, and blocks nest freely). Empty when the page takes no input now
	// (completed, expired, a preview): fields and buttons are then shown disabled.
	FormID string
	// Actions are the action ids the page accepts now; a buttons item naming another
	// id is shown disabled.
	Actions map[string]bool
	// Now is the moment the page is rendered (countdowns show their state at it).
	Now time.Time
}

// viewFunc builds the view model of one block type from its data. It returns an
// error only when the data cannot be drawn as that type at all; the block is then
// shown by its fields (generic).
type viewFunc func(c *Ctx, data json.RawMessage) (any, error)

var views = map[string]viewFunc{}

// register adds the view function of a block type; its template is templates/<type>.tmpl
// defining "<type>". Called from init in the file of each block type.
func register(typ string, fn viewFunc) {
	if _, dup := views[typ]; dup {
		panic("render: block type registered twice: " + typ)
	}
	views[typ] = fn
}

// funcs are the template functions every block template may use (funcs.go); a block
// file adds its own with addFuncs from init.
var funcs = template.FuncMap{}

func addFuncs(m template.FuncMap) {
	for k, v := range m {
		if _, dup := funcs[k]; dup {
			panic("render: template function defined twice: " + k)
		}
		funcs[k] = v
	}
}

var templates = sync.OnceValue(func() *template.Template {
	t := template.New("blocks").Funcs(funcs)
	return template.Must(t.ParseFS(templateFS, "templates/*.tmpl"))
})

// Types lists the block types with a view of their own, sorted.
func Types() []string {
	out := make([]string, 0, len(views))
	for k := range views {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Ctx is what a view function knows of where its block stands. A Ctx is used by one
// render call on one goroutine.
type Ctx struct {
	opt   *Options
	depth int    // 1 for a top-level block
	dom   string // the block's DOM id ("blk-…"); nested blocks extend their parent's
	// ownTitle is set by a view that shows the block's title itself (a collapsible
	// summary, a link's text), so the frame does not repeat it as a heading.
	ownTitle bool
	budget   *int // blocks left to draw in this render (limits.go)
}

// Options are the render's options.
func (c *Ctx) Options() *Options { return c.opt }

// Interactive reports whether the page takes input now (fields and buttons enabled).
func (c *Ctx) Interactive() bool { return c.opt.FormID != "" }

// FormID is the id of the page's form element, "" when the page takes no input.
func (c *Ctx) FormID() string { return c.opt.FormID }

// DOMID is the block's unique DOM id; ID(suffix) derives ids for its parts.
func (c *Ctx) DOMID() string { return c.dom }

// ID is a DOM id for a part of this block (a field, a tab panel), unique on the page.
func (c *Ctx) ID(suffix string) string { return c.dom + "-" + domSafe(suffix) }

// Level is the heading level (2..6) for a title at this block's depth.
func (c *Ctx) Level() int { return min(c.depth+1, 6) }

// OwnTitle tells the frame that this view shows the block's title itself.
func (c *Ctx) OwnTitle() { c.ownTitle = true }

// Nested renders blocks held inside this block (layout columns, group, tab panels),
// one level deeper. suffix names the list within the block (e.g. "c0" for a column).
func (c *Ctx) Nested(list []blocks.Block, suffix string) template.HTML {
	var buf bytes.Buffer
	for i, b := range list {
		child := &Ctx{opt: c.opt, depth: c.depth + 1, dom: c.ID(fmt.Sprintf("%s-%d", suffix, i)), budget: c.budget}
		drawBlock(&buf, child, b)
	}
	return template.HTML(buf.String()) // #nosec: built from escaped templates
}

// Page renders the top-level blocks of a page in order. Blocks carrying the same
// `tab` label are gathered into one set of tabs where the first of them stands;
// consecutive blocks with the same `group` label are framed together under it.
func Page(buf *bytes.Buffer, list []blocks.Block, opt Options) {
	budget := MaxBlocks
	for _, item := range arrange(list) {
		switch {
		case item.tabs != nil:
			drawTabLabels(buf, item.tabs, &opt, &budget)
		case item.group != "":
			drawGroupLabel(buf, item.group, item.blocks, &opt, &budget)
		default:
			drawBlock(buf, topCtx(&opt, item.blocks[0], &budget), item.blocks[0])
		}
	}
}

// Block renders one top-level block as it stands on the page (a live fragment).
func Block(buf *bytes.Buffer, b blocks.Block, opt Options) {
	budget := MaxBlocks
	drawBlock(buf, topCtx(&opt, b, &budget), b)
}

func topCtx(opt *Options, b blocks.Block, budget *int) *Ctx {
	return &Ctx{opt: opt, depth: 1, dom: BlockDOMID(b.ID), budget: budget}
}

// BlockDOMID is the DOM id of a top-level block: "blk-" + its id when the id is made
// of [A-Za-z0-9_-] (always so for ids the service assigns), else "blk-x" + a hash,
// so an id an agent chose can never break out of the attribute or collide with ours.
func BlockDOMID(id string) string {
	if id == "" {
		return "blk-anon"
	}
	return "blk-" + domSafe(id)
}

func domSafe(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			h := fnv.New64a()
			h.Write([]byte(s))
			return fmt.Sprintf("x%016x", h.Sum64())
		}
	}
	if len(s) > 64 {
		h := fnv.New64a()
		h.Write([]byte(s))
		return fmt.Sprintf("x%016x", h.Sum64())
	}
	return s
}

// frame is what the block frame template ("frame") gets.
type frame struct {
	DOMID    string
	ID       string // the block's id ("" for nested blocks without one)
	Type     string
	Title    string
	Level    int
	Top      bool
	Body     template.HTML
	Fallback bool // drawn generically because its own view failed
}

// TitleOf is a block's title (data.title), "" when it has none.
func TitleOf(b blocks.Block) string { return titleOf(b.Data) }

// titleOf reads data.title, the member common to every block type.
func titleOf(data json.RawMessage) string {
	var t struct {
		Title Scalar `json:"title"`
	}
	_ = decode(data, &t)
	return strings.TrimSpace(t.Title.String())
}

// drawBlock renders one block with its frame. A view or template that fails (or
// panics on data nobody foresaw) costs only that block: it is drawn generically.
func drawBlock(buf *bytes.Buffer, c *Ctx, b blocks.Block) {
	if *c.budget <= 0 {
		return
	}
	*c.budget--
	f := frame{DOMID: c.dom, ID: b.ID, Type: b.Type, Title: titleOf(b.Data), Level: c.Level(), Top: c.depth == 1}
	if c.depth > MaxDepth {
		f.Body = template.HTML(`<p class="muted">Nested too deeply to show.</p>`)
	} else if body, ok := drawBody(c, b); ok {
		f.Body = body
	} else {
		f.Body, f.Fallback = generic(b.Data), true
	}
	if c.ownTitle {
		f.Title = ""
	}
	if err := templates().ExecuteTemplate(buf, "frame", f); err != nil {
		buf.WriteString(`<p class="muted">This block could not be shown.</p>`)
	}
}

func drawBody(c *Ctx, b blocks.Block) (body template.HTML, ok bool) {
	fn := views[b.Type]
	if fn == nil {
		return generic(b.Data), true
	}
	defer func() {
		if recover() != nil {
			body, ok = "", false
		}
	}()
	model, err := fn(c, b.Data)
	if err != nil {
		return "", false
	}
	var out bytes.Buffer
	if err := templates().ExecuteTemplate(&out, b.Type, model); err != nil {
		return "", false
	}
	return template.HTML(out.String()), true // #nosec: executed html/template
}

// arranged is one slot of the top-level layout: a plain block, a run of blocks under
// one group label, or the page's tab set.
type arranged struct {
	blocks []blocks.Block
	group  string
	tabs   []tabLabel
}

type tabLabel struct {
	Label  string
	Blocks []blocks.Block
}

func arrange(list []blocks.Block) []arranged {
	var out []arranged
	tabAt := -1
	for _, b := range list {
		switch {
		case b.Tab != "":
			if tabAt < 0 {
				tabAt = len(out)
				out = append(out, arranged{tabs: []tabLabel{}})
			}
			t := out[tabAt].tabs
			found := false
			for i := range t {
				if t[i].Label == b.Tab {
					t[i].Blocks = append(t[i].Blocks, b)
					found = true
				}
			}
			if !found {
				t = append(t, tabLabel{Label: b.Tab, Blocks: []blocks.Block{b}})
			}
			out[tabAt].tabs = t
		case b.Group != "" && len(out) > 0 && out[len(out)-1].group == b.Group:
			out[len(out)-1].blocks = append(out[len(out)-1].blocks, b)
		default:
			out = append(out, arranged{blocks: []blocks.Block{b}, group: b.Group})
		}
	}
	return out
}

// labelSet is what the "labelgroup" and "labeltabs" templates get.
type labelSet struct {
	DOMID string
	Label string
	Body  template.HTML
	Tabs  []labelTab
}

type labelTab struct {
	ID    string
	Label string
	Body  template.HTML
}

func drawGroupLabel(buf *bytes.Buffer, label string, list []blocks.Block, opt *Options, budget *int) {
	var body bytes.Buffer
	for _, b := range list {
		drawBlock(&body, topCtx(opt, b, budget), b)
	}
	set := labelSet{DOMID: "grp-" + domSafe(label), Label: label, Body: template.HTML(body.String())} // #nosec: escaped templates
	_ = templates().ExecuteTemplate(buf, "labelgroup", set)
}

func drawTabLabels(buf *bytes.Buffer, tabs []tabLabel, opt *Options, budget *int) {
	set := labelSet{DOMID: "tabs-page"}
	for i, t := range tabs {
		var body bytes.Buffer
		for _, item := range arrange(stripTab(t.Blocks)) {
			if item.group != "" {
				drawGroupLabel(&body, item.group, item.blocks, opt, budget)
				continue
			}
			drawBlock(&body, topCtx(opt, item.blocks[0], budget), item.blocks[0])
		}
		set.Tabs = append(set.Tabs, labelTab{ID: fmt.Sprintf("tabs-page-%d", i), Label: t.Label,
			Body: template.HTML(body.String())}) // #nosec: escaped templates
	}
	_ = templates().ExecuteTemplate(buf, "labeltabs", set)
}

func stripTab(list []blocks.Block) []blocks.Block {
	out := make([]blocks.Block, len(list))
	for i, b := range list {
		b.Tab = ""
		out[i] = b
	}
	return out
}

// Stylesheet and Script are the blocks' CSS and JS (css/*.css and js/*.js, in name
// order), for the page to serve as static assets.
var (
	//go:embed css/*.css
	cssFS embed.FS
	//go:embed js/*.js
	jsFS embed.FS

	Stylesheet = sync.OnceValue(func() []byte { return concat(cssFS, "css") })
	Script     = sync.OnceValue(func() []byte { return concat(jsFS, "js") })
)

func concat(fsys embed.FS, dir string) []byte {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	for _, e := range entries {
		b, err := fs.ReadFile(fsys, dir+"/"+e.Name())
		if err != nil {
			panic(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
