// Package render draws content blocks as HTML for the review page. It is pure: block
// data in, HTML out, with no actors, storage or HTTP. Everything an agent wrote is
// untrusted: text goes through html/template's contextual escaping, Markdown through
// markdown (goldmark, then an allow-list sanitiser), and every address through
// safeURL before it reaches an attribute.
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
	"crypto/sha256"
	"embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"io/fs"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"folio/actors/model/blocks"
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
	// Cache, when set, keeps the HTML of top-level blocks by their content and the
	// options above, so a block is drawn once per version rather than once per view.
	Cache Cache
	// MaxBytes is the most bytes of block HTML one render draws (limits.go); 0:
	// DefaultMaxPageBytes.
	MaxBytes int
	// Answers, when set, is the form_data object sent with the page's decision:
	// form fields show these answers (a field not answered shows empty), never
	// their defaults.
	Answers json.RawMessage
	// Stopped, when set, is when the page stopped taking decisions: countdowns show
	// the time that was left then and do not tick.
	Stopped *time.Time
	// Edited, when set, are the top-level blocks (by id) the page's decision edited;
	// they are drawn from the edited data passed in, with the marker (editor.go).
	Edited map[string]EditMark
	// Threads, when set, are the comment threads of top-level blocks (by id), drawn
	// inside the block's box after everything else and never cached: a block's
	// HTML in the cache is the same with or without comments (thread.go).
	Threads map[string]template.HTML
}

func (o *Options) maxBytes() int {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxPageBytes
}

// budget is what one render call has left: blocks to draw (maxBlocks), bytes of
// the page's MaxBytes, and the top-level blocks left out because those ran out.
type budget struct {
	blocks  int
	page    int
	skipped int
	sinks   [MaxDepth + 2]sink // one per depth (sinkAt)
}

// sinkAt is the sink of the block drawn at depth. Blocks nest strictly (a child is
// drawn whole inside its parent's template), so at most one sink per depth is in
// use at a time, and a render allocates none per block.
func (b *budget) sinkAt(depth int, buf *bytes.Buffer, limit int) *sink {
	s := &b.sinks[min(depth, len(b.sinks)-1)]
	*s = sink{buf: buf, limit: limit}
	return s
}

func newBudget(opt *Options) *budget { return &budget{blocks: maxBlocks, page: opt.maxBytes()} }

// Cache keeps drawn blocks. Keys name a block's content and every option it was
// drawn with; a value is the exact HTML to write again. Implementations bound
// their size and are safe for concurrent use.
type Cache interface {
	Fragment(key string) ([]byte, bool)
	Keep(key string, html []byte)
}

// cacheKey names what a top-level block's HTML depends on: its id, type and data,
// the form and actions it was drawn against, and the block's position among its
// siblings (its DOM id). "" for blocks that must be drawn each time: a countdown
// shows the time left now.
func cacheKey(c *Ctx, b blocks.Block) string {
	if bytes.Contains(b.Data, []byte(`"countdown"`)) || b.Type == "countdown" {
		return ""
	}
	h := sha256.New()
	write := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	write("v1")
	write(c.dom)
	write(b.ID)
	write(b.Type)
	write(c.opt.FormID)
	ids := make([]string, 0, len(c.opt.Actions))
	for id, on := range c.opt.Actions {
		if on {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	write(strings.Join(ids, "\x00"))
	write(string(c.opt.Answers))
	write(editCacheKey(c, b))
	h.Write(b.Data)
	return string(h.Sum(nil))
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
	// summary, a link's text), so the box does not repeat it as a heading.
	ownTitle bool
	budget   *budget // what is left to draw in this render (limits.go)
	// room is the most bytes this block's HTML may take, its nested blocks' and its
	// box's included; nested counts what its nested blocks took so far.
	room, nested int
}

// Room is the most bytes of HTML this block may still draw: a view that builds a
// large piece before it is written (an SVG) sizes it by this.
func (c *Ctx) Room() int { return c.room - c.nested }

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

// OwnTitle tells the box that this view shows the block's title itself.
func (c *Ctx) OwnTitle() { c.ownTitle = true }

// Nested renders blocks held inside this block (layout columns, group, tab panels),
// one level deeper. suffix names the list within the block (e.g. "c0" for a column).
// Together they take at most this block's room: each is drawn within what is left
// of it, and those that find too little left are replaced by the truncation note.
func (c *Ctx) Nested(list []blocks.Block, suffix string) template.HTML {
	var buf bytes.Buffer
	for i, b := range list {
		room := c.room - c.nested - buf.Len()
		if room < 2*markerReserve {
			buf.WriteString(blockMarker)
			break
		}
		child := &Ctx{opt: c.opt, depth: c.depth + 1, dom: c.ID(fmt.Sprintf("%s-%d", suffix, i)), budget: c.budget, room: room}
		drawBlock(&buf, child, b)
	}
	c.nested += buf.Len()
	return template.HTML(buf.String()) // #nosec: built from escaped templates
}

// Page renders the top-level blocks of a page in order. Blocks carrying the same
// `tab` label are gathered into one set of tabs where the first of them stands;
// consecutive blocks with the same `group` label are boxed together under it.
// The blocks together draw at most opt.MaxBytes; those past it are left out and
// counted in a note at the end.
func Page(buf *bytes.Buffer, list []blocks.Block, opt Options) {
	budget := newBudget(&opt)
	for _, item := range arrange(list) {
		switch {
		case item.tabs != nil:
			drawTabLabels(buf, item.tabs, &opt, budget)
		case item.group != "":
			drawGroupLabel(buf, item.group, item.blocks, &opt, budget)
		default:
			drawBlock(buf, topCtx(&opt, item.blocks[0], budget), item.blocks[0])
		}
	}
	if budget.skipped > 0 {
		buf.WriteString(pageMarker(budget.skipped))
	}
}

// Block renders one top-level block as it stands on the page (a live fragment),
// within the same room the page gives it.
func Block(buf *bytes.Buffer, b blocks.Block, opt Options) {
	drawBlock(buf, topCtx(&opt, b, newBudget(&opt)), b)
}

// topCtx is the context of a top-level block: its room is blockRoom of its data,
// at most what is left of the page.
func topCtx(opt *Options, b blocks.Block, budget *budget) *Ctx {
	return &Ctx{opt: opt, depth: 1, dom: BlockDOMID(b.ID), budget: budget, room: min(fullRoom(opt, b), budget.page)}
}

// fullRoom is a top-level block's room on a page with room to spare.
func fullRoom(opt *Options, b blocks.Block) int { return min(blockRoom(b), opt.maxBytes()) }

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

// box is a block's outer box: what writeBox draws around its body.
type box struct {
	DOMID    string
	ID       string // the block's id ("" for nested blocks without one)
	Type     string
	Title    string
	Level    int
	Top      bool
	Body     template.HTML
	Fallback bool // drawn generically because its own view failed
	// After is drawn under a top-level block's body: its editor, or the marker of
	// the decision's edit (editor.go).
	After template.HTML
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

// drawBlock renders one block with its box, in at most c.room bytes (budget.go):
// everything is written through a sink limited to that, and a block that runs out
// is cut there with the truncation note. A view or template that fails (or panics
// on data nobody foresaw) costs only that block: what it wrote is taken back and
// the block is drawn generically. The block's template writes straight into buf,
// inside the box. A top-level block uses up its bytes of the page's budget; one
// that finds too little of it left is not drawn (Page counts it in its note).
func drawBlock(buf *bytes.Buffer, c *Ctx, b blocks.Block) {
	start := buf.Len()
	drawBoxed(buf, c, b)
	if c.depth == 1 && c.opt.Threads != nil {
		attachThread(buf, start, c.opt.Threads[b.ID])
	}
}

// drawBoxed is drawBlock without the block's comment thread.
func drawBoxed(buf *bytes.Buffer, c *Ctx, b blocks.Block) {
	if c.budget.blocks <= 0 {
		return
	}
	top := c.depth == 1
	if top && c.room < 2*markerReserve {
		c.budget.skipped++
		return
	}
	start := buf.Len()
	if top {
		defer func() { c.budget.page -= buf.Len() - start }()
	}
	if top && c.opt.Cache != nil {
		key := cacheKey(c, b)
		if key != "" {
			if html, ok := c.opt.Cache.Fragment(key); ok && len(html) <= c.room {
				buf.Write(html)
				return
			}
			if c.room == fullRoom(c.opt, b) { // one drawn in less room than its own is not kept
				defer func() { c.opt.Cache.Keep(key, bytes.Clone(buf.Bytes()[start:])) }()
			}
		}
	}
	c.budget.blocks--
	f := box{DOMID: c.dom, ID: b.ID, Type: b.Type, Title: titleOf(b.Data), Level: c.Level(), Top: top}
	if top {
		f.After = editor(c, b) + edited(c, b)
	}
	out := c.budget.sinkAt(c.depth, buf, start+c.room-markerReserve)
	switch model, ok := viewOf(c, b); {
	case c.depth > MaxDepth:
		f.Body = template.HTML(`<p class="muted">Nested too deeply to show.</p>`)
	case ok && views[b.Type] == nil:
		f.Body = generic(b.Data)
	case ok:
		if c.ownTitle {
			f.Title = ""
		}
		if writeBox(out, &f, func(w io.Writer) error { return templates().ExecuteTemplate(w, b.Type, model) }) == nil {
			return
		}
		if out.full {
			cut(buf, start, blockMarker)
			return
		}
		buf.Truncate(start)
		out.full = false
		f.Title = titleOf(b.Data)
		fallthrough
	default:
		f.Body, f.Fallback = generic(b.Data), true
	}
	if writeBox(out, &f, nil) != nil {
		cut(buf, start, blockMarker)
	}
}

// viewOf runs the block type's view function (nil model, ok for a type without
// one); ok is false when it fails or panics.
func viewOf(c *Ctx, b blocks.Block) (model any, ok bool) {
	fn := views[b.Type]
	if fn == nil || c.depth > MaxDepth {
		return nil, true
	}
	defer func() {
		if recover() != nil {
			model, ok = nil, false
		}
	}()
	model, err := fn(c, b.Data)
	return model, err == nil
}

// writeBox draws a block's outer box around its body: every block of every page
// passes here, so it is written directly rather than through a template (whose
// escaping costs a reflective call per value). Every value is escaped: DOM ids are
// [A-Za-z0-9_-] by construction (BlockDOMID), the id, type and title come from the
// agent and go through escape. Top-level blocks are sections (a landmark when
// titled) with a comment anchor the page script reveals, beside the title or, for
// a block without one, below the body; nested blocks are divs.
func writeBox(buf *sink, f *box, body func(io.Writer) error) (err error) {
	defer func() {
		if err == nil && buf.full {
			err = errFull
		}
	}()
	writeBody := func() error {
		if body != nil {
			if err := body(buf); err != nil {
				return err
			}
		} else {
			buf.str(string(f.Body))
		}
		buf.str(string(f.After))
		return nil
	}
	tag := "div"
	if f.Top {
		tag = "section"
	}
	buf.str("<" + tag + ` class="blk blk-`)
	escape(buf, f.Type)
	if f.Fallback {
		buf.str(" blk-fallback")
	}
	buf.str(`" id="`)
	escape(buf, f.DOMID)
	buf.str(`"`)
	if f.Top && f.ID != "" {
		buf.str(` data-block-id="`)
		escape(buf, f.ID)
		buf.str(`"`)
	}
	buf.str(` data-type="`)
	escape(buf, f.Type)
	buf.str(`"`)
	if f.Top && f.Title != "" {
		buf.str(` aria-labelledby="`)
		escape(buf, f.DOMID)
		buf.str(`-h"`)
	}
	buf.str(">\n")
	switch {
	case f.Top && f.Title != "":
		buf.str(`<div class="blk-head">`)
		buf.str(string(heading(f.Level, f.DOMID+"-h", f.Title)))
		commentOn(buf, f)
		buf.str("</div>\n")
		if err := writeBody(); err != nil {
			return err
		}
	case f.Top:
		if err := writeBody(); err != nil {
			return err
		}
		if f.ID != "" {
			buf.str(`<div class="blk-foot">`)
			commentOn(buf, f)
			buf.str("</div>")
		}
	default:
		if f.Title != "" {
			buf.str(string(heading(f.Level, f.DOMID+"-h", f.Title)))
		}
		if err := writeBody(); err != nil {
			return err
		}
	}
	buf.str("</" + tag + ">\n")
	return nil
}

// commentOn is the one quiet affordance that opens a top-level block's comment
// thread in place: a link (shown on hover or focus of the block, always on touch
// screens) to the page with that block's thread open, ?comment_on=<id>, which works
// without JavaScript; the page script opens the thread without a reload. The href
// is relative, so the cached markup names no page.
func commentOn(buf *sink, f *box) {
	if f.ID == "" {
		return
	}
	// Neither the query-escaped id (unreserved characters and %XX) nor the DOM id
	// ([A-Za-z0-9_-]) holds a character HTML escapes: both are written as they are.
	buf.str(`<a class="blk-comment" href="?comment_on=`)
	buf.str(url.QueryEscape(f.ID))
	buf.str(`#t-`)
	buf.str(f.DOMID)
	buf.str(`">`)
	buf.str(string(Icon("comment")))
	buf.str(`<span>Comment</span><span class="visually-hidden"> on `)
	if f.Title != "" {
		escape(buf, f.Title)
	} else {
		buf.str(`this block`)
	}
	buf.str(`</span></a>`)
}

// escape writes s HTML-escaped (text and attribute values alike).
func escape(buf io.Writer, s string) {
	template.HTMLEscape(buf, []byte(s))
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

func drawGroupLabel(buf *bytes.Buffer, label string, list []blocks.Block, opt *Options, budget *budget) {
	var body bytes.Buffer
	for _, b := range list {
		drawBlock(&body, topCtx(opt, b, budget), b)
	}
	set := labelSet{DOMID: "grp-" + domSafe(label), Label: label, Body: template.HTML(body.String())} // #nosec: escaped templates
	_ = templates().ExecuteTemplate(buf, "labelgroup", set)
}

func drawTabLabels(buf *bytes.Buffer, tabs []tabLabel, opt *Options, budget *budget) {
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
