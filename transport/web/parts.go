package web

import (
	"cmp"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/blocks"
	"folio/actors/page"
	"folio/transport/web/render"
)

// The review page is made of parts that the page script redraws when the page's
// event stream says they changed: state (decision, approval chain), decide (the
// decision form), files, comments, and each top-level block. Every part is served
// alone by the same template that drew it in the page, under the same access rule,
// so what arrives live is exactly what a reload would show.

// parts maps a part's name in /p/:id/parts/:part to its template and model.
var parts = map[string]func(v *reviewView) any{
	"state":    func(v *reviewView) any { return v.State },
	"decide":   func(v *reviewView) any { return v.Decide },
	"files":    func(v *reviewView) any { return v.Files },
	"comments": func(v *reviewView) any { return v.Comments },
	"head":     func(v *reviewView) any { return v },
	"dbar":     func(v *reviewView) any { return v },
	"blocks":   func(v *reviewView) any { return v },
}

// part is GET /p/:id/parts/:part: one part of the review page as HTML.
func (s *Site) part(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	model, ok := parts[ps.ByName("part")]
	if !ok {
		s.notFound(w, r)
		return nil
	}
	o, me, err := s.openFragment(w, r, ps)
	if o == nil {
		return err
	}
	name := ps.ByName("part")
	v := s.reviewOf(o, s.c.Now(), me, name == "blocks", commentsBefore(r), askOf(r))
	buf := getBuf()
	defer putBuf(buf)
	if err := s.execute(buf, "part-"+name, model(&v)); err != nil {
		return err
	}
	s.writeHTML(w, r, http.StatusOK, buf.Bytes())
	return nil
}

// block is GET /p/:id/blocks/:blockId: one top-level block as the page draws it.
func (s *Site) block(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	o, me, err := s.openFragment(w, r, ps)
	if o == nil {
		return err
	}
	now := s.c.Now()
	d := decideOf(o.Page, page.EffectiveStatus(o.Page, now))
	turnOf(&d, o.Page, me)
	opt := s.renderOptions(o.Page, d, now) // as the page draws it, its thread included
	opt.Threads = s.threadsOf(o.Page, o.Comments, page.EffectiveStatus(o.Page, now), me, askOf(r))
	id := ps.ByName("blockId")
	for _, b := range shownBlocks(o.Page) {
		if b.ID == id {
			buf := getBuf()
			defer putBuf(buf)
			render.Block(buf, b, opt)
			s.writeHTML(w, r, http.StatusOK, buf.Bytes())
			return nil
		}
	}
	s.notFound(w, r)
	return nil
}

// openFragment opens the page a fragment of the review page is drawn from (a
// part, one block, one block's thread) and reads the viewer. A page that is gone,
// gated or not there for the viewer is answered here (fragmentGone) and comes back
// nil, as does a page that did not answer, with its error for serve to draw.
func (s *Site) openFragment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) (*page.Opened, *meView, error) {
	o, err := s.open(r, ps.ByName("id"))
	if err != nil {
		return nil, nil, err
	}
	if o == nil || o.Gone || o.Gate {
		s.fragmentGone(w, r, o)
		return nil, nil, nil
	}
	me, _ := s.me(w, r)
	return o, me, nil
}

// fragmentGone answers a part of a page the viewer can no longer see: the page
// script then reloads the whole page, which explains why.
func (s *Site) fragmentGone(w http.ResponseWriter, r *http.Request, o *page.Opened) {
	status := http.StatusNotFound
	switch {
	case o != nil && o.Gone:
		status = http.StatusGone
	case o != nil && o.Gate:
		status = http.StatusUnauthorized
	}
	s.writeHTML(w, r, status, nil)
}

// filesView is the files part: the page's files, and whether the viewer may add some.
type filesView struct {
	ID       string
	Files    []fileItem
	CanWrite bool
	Closed   string // why the page takes no more files ("" while it does)
}

type fileItem struct {
	ID         string
	Name       string
	Type       string
	Size       int64
	UploadedBy string
	At         time.Time
	Href       string
}

func filesOf(p *page.Page, files []*page.File, status string) filesView {
	v := filesView{ID: p.ID, CanWrite: status == page.Active}
	for _, f := range files {
		v.Files = append(v.Files, fileItem{ID: f.ID, Name: f.Filename, Type: f.MimeType, Size: f.SizeBytes, UploadedBy: f.UploadedBy,
			At: f.CreatedAt, Href: "/v1/pages/" + p.ID + "/files/" + f.ID + "/download"})
	}
	return v
}

// commentsShown is the most comments the review page draws at once: the latest
// ones, or those just before ?comments_before=<seq> (a "Show older comments" link
// steps back commentsShown at a time; it works without JavaScript).
const commentsShown = 50

// commentsBefore reads the ?comments_before= cursor: the sequence number of the
// first comment not to draw; 0 (absent or not a number) draws the latest.
func commentsBefore(r *http.Request) uint64 {
	n, _ := strconv.ParseUint(r.URL.Query().Get("comments_before"), 10, 64)
	return n
}

// commentsView is the comments part: the thread, and whether the viewer may write.
type commentsView struct {
	ID       string
	Items    []commentItem
	Count    int
	Older    int    // comments before the ones drawn
	OlderURL string // the review page with the commentsShown before them
	NewerURL string // the review page with the latest ones, when later ones are not drawn
	CanWrite bool
	Closed   string            // why the page takes no more comments ("" while it does)
	Blocks   map[string]string // block id -> its title, for "on <block>" anchors
	Me       *meView           // signed in: comments as their verified address
}

type commentItem struct {
	ID        string
	Author    string
	Agent     bool
	Content   string
	At        time.Time
	Edited    bool
	Depth     int
	BlockID   string
	BlockName string
	Lines     string // the line range it is about ("lines 3–5"), "" for none
	ParentID  string
	InThread  bool // drawn in its block's thread (DOM id tc-<id>), not in Comments (c-<id>)
}

// commentsOf draws at most commentsShown comments: the latest before before (0:
// the latest of all), threaded among themselves (a reply whose parent is not drawn
// stands at the top level).
func commentsOf(p *page.Page, list []*page.Comment, status string, before uint64) commentsView {
	v := commentsView{ID: p.ID, Count: len(list), CanWrite: status == page.Active}
	list = slices.SortedStableFunc(slices.Values(list), func(a, b *page.Comment) int { return cmp.Compare(a.Seq, b.Seq) })
	end := len(list)
	if before > 0 {
		end = sort.Search(len(list), func(i int) bool { return list[i].Seq >= before })
		if end < len(list) {
			v.NewerURL = "/p/" + p.ID + "#comments-h"
		}
	}
	start := max(0, end-commentsShown)
	if start > 0 {
		v.Older = start
		v.OlderURL = "/p/" + p.ID + "?comments_before=" + strconv.FormatUint(list[start].Seq, 10) + "#comments-h"
	}
	list = list[start:end]
	titles := blockTitles(p)
	for _, t := range threaded(list) {
		c, name := t.Comment, ""
		if c.BlockID != "" {
			name = cmp.Or(titles[c.BlockID], "a block")
		}
		var lines *threadLines
		if c.LineStart > 0 {
			if i := slices.IndexFunc(p.Blocks, func(b blocks.Block) bool { return b.ID == c.BlockID }); i >= 0 {
				lines = linesOf(p.Blocks[i])
			}
		}
		v.Items = append(v.Items, itemOf(t, name, lines))
	}
	return v
}

// blockTitles names the page's top-level blocks for comment anchors: the block's
// title, else its type.
func blockTitles(p *page.Page) map[string]string {
	out := make(map[string]string, len(p.Blocks))
	for _, b := range p.Blocks {
		t := render.TitleOf(b)
		if t == "" {
			t = humanType(b.Type)
		}
		out[b.ID] = t
	}
	return out
}

func humanType(t string) string {
	b := []byte(t)
	for i := range b {
		if b[i] == '_' {
			b[i] = ' '
		}
	}
	if len(b) > 0 && b[0] >= 'a' && b[0] <= 'z' {
		b[0] -= 'a' - 'A'
	}
	return string(b) + " block"
}

// htmlOf marks HTML the render package built (every agent string in it escaped or
// sanitised) as safe to insert into the page template.
func htmlOf(s string) template.HTML { return template.HTML(s) } // #nosec: built by render
