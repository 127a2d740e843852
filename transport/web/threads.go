package web

import (
	"cmp"
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/blocks"
	"folio/actors/page"
	"folio/transport/web/render"
)

// Threads in place. Every top-level block that has comments carries its thread
// inside its box (render.Options.Threads): a disclosure whose summary is the
// count, holding the latest threadShown of them and a form to add one, anchored
// to the block and, for a code or diff block, to a line range. A page without
// comments draws none, so its render is what it was. The same template serves
// GET /p/:id/threads/:blockId, which the page script swaps in when a comment
// arrives, and the form posts without JavaScript (POST /p/:id/comments).

// threadShown is the most comments a block's thread draws in place: the latest;
// the page's Comments section lists them all.
const threadShown = 20

// threadView is one block's thread.
type threadView struct {
	PageID   string
	BlockID  string
	DOM      string // the thread's DOM id: "t-" + the block's
	Title    string // the block's title, else its type
	Count    int    // the block's comments, replies included
	Earlier  int    // those not drawn here
	Items    []commentItem
	Marks    string // the line ranges commented on: "side:start-end …" (side new, old or code)
	Lines    *threadLines
	Open     bool
	CanWrite bool
	Closed   string
	Me       *meView
	Problem  *threadProblem
}

// threadLines is the line range part of a code or diff block's form.
type threadLines struct {
	Diff               bool
	OldLabel, NewLabel string
}

// threadProblem is a comment refused after a post without JavaScript: the
// message at its field, and what the person typed.
type threadProblem struct {
	Field, Message          string
	Content, Name           string
	Start, End, Side, Reply string
}

// threadAsk is what the request asks of the threads: Open, a block whose thread
// is drawn open even without comments (?comment_on=<id>, the affordance's link),
// and Problem, the refusal to show in it.
type threadAsk struct {
	Open    string
	Problem *threadProblem
}

func askOf(r *http.Request) threadAsk {
	if r.URL.RawQuery == "" { // most views: no query to parse
		return threadAsk{}
	}
	return threadAsk{Open: r.URL.Query().Get("comment_on")}
}

// anchors maps each comment to the top-level block it is about: its own block_id,
// else its parent's (a reply sent without one), "" for none.
func anchors(list []*page.Comment) map[string]string {
	byID := make(map[string]*page.Comment, len(list))
	for _, c := range list {
		byID[c.ID] = c
	}
	out := make(map[string]string, len(list))
	for _, c := range list {
		at := c
		for i := 0; at != nil && at.BlockID == "" && at.ParentID != "" && i < 64; i++ {
			at = byID[at.ParentID]
		}
		if at != nil {
			out[c.ID] = at.BlockID
		}
	}
	return out
}

// threadsOf draws the threads of p's top-level blocks; nil when there are none
// to draw (no comment is about a block and none is asked open).
func (s *Site) threadsOf(p *page.Page, list []*page.Comment, status string, me *meView, ask threadAsk) map[string]template.HTML {
	var by map[string][]*page.Comment
	if len(list) > 0 {
		at := anchors(list)
		for _, c := range list {
			if id := at[c.ID]; id != "" {
				if by == nil {
					by = map[string][]*page.Comment{}
				}
				by[id] = append(by[id], c)
			}
		}
	}
	if by == nil && ask.Open == "" {
		return nil
	}
	out := map[string]template.HTML{}
	for _, b := range p.Blocks {
		if len(by[b.ID]) == 0 && b.ID != ask.Open {
			continue
		}
		if h := s.threadHTML(p, b, by[b.ID], status, me, ask); h != "" {
			out[b.ID] = h
		}
	}
	return out
}

// threadHTML draws one block's thread ("" when the template fails: the block is
// then drawn without it, and the Comments section still lists its comments).
func (s *Site) threadHTML(p *page.Page, b blocks.Block, list []*page.Comment, status string, me *meView, ask threadAsk) template.HTML {
	v := threadOf(p, b, list, status, me, ask)
	buf := getBuf()
	defer putBuf(buf)
	if s.execute(buf, "cm-thread", v) != nil {
		return ""
	}
	return template.HTML(buf.String()) // #nosec: an html/template execution
}

func threadOf(p *page.Page, b blocks.Block, list []*page.Comment, status string, me *meView, ask threadAsk) threadView {
	v := threadView{PageID: p.ID, BlockID: b.ID, DOM: "t-" + render.BlockDOMID(b.ID), Title: render.TitleOf(b), Count: len(list),
		Open: b.ID == ask.Open, CanWrite: status == page.Active, Closed: closedWhy(status, "comments"), Me: me}
	if v.Title == "" {
		v.Title = humanType(b.Type)
	}
	if ask.Problem != nil && v.Open {
		v.Problem = ask.Problem
	}
	v.Lines = linesOf(b)
	list = slices.SortedStableFunc(slices.Values(list), func(a, b *page.Comment) int { return cmp.Compare(a.Seq, b.Seq) })
	var marks []string
	for _, c := range list {
		if c.LineStart > 0 {
			marks = append(marks, cmp.Or(c.LineSide, "code")+":"+strconv.Itoa(c.LineStart)+"-"+strconv.Itoa(c.LineEnd))
		}
	}
	v.Marks = strings.Join(marks, " ")
	if len(list) > threadShown {
		v.Earlier = len(list) - threadShown
		list = list[v.Earlier:]
	}
	for _, t := range threaded(list) {
		item := itemOf(t, "", v.Lines)
		item.InThread = true
		v.Items = append(v.Items, item)
	}
	return v
}

// itemOf is one comment as a thread draws it; block names the block it is about
// (the page's Comments section names it; a block's own thread does not).
func itemOf(t threadItem, block string, lines *threadLines) commentItem {
	c := t.Comment
	item := commentItem{ID: c.ID, Author: c.AuthorName, Agent: c.AuthorType == "agent", Content: c.Content, At: c.CreatedAt,
		Edited: c.UpdatedAt != nil, Depth: t.Depth, BlockID: c.BlockID, BlockName: block, ParentID: c.ParentID}
	item.Lines = lineLabel(c, lines)
	return item
}

// lineLabel names a comment's line range ("line 3", "lines 3–5"), with the
// diff's side by its label when the block is a diff ("lines 3–5 of After").
func lineLabel(c *page.Comment, lines *threadLines) string {
	if c.LineStart <= 0 {
		return ""
	}
	s := "line " + strconv.Itoa(c.LineStart)
	if c.LineEnd > c.LineStart {
		s = "lines " + strconv.Itoa(c.LineStart) + "–" + strconv.Itoa(c.LineEnd)
	}
	if lines != nil && lines.Diff {
		label := lines.NewLabel
		if c.LineSide == "old" {
			label = lines.OldLabel
		}
		s += " of " + label
	} else if c.LineSide == "old" {
		s += " (old)"
	}
	return s
}

// thread is GET /p/:id/threads/:blockId: one block's thread as the page draws it
// (empty when the block has no comments, unless ?open=1 asks for its form).
func (s *Site) thread(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	o, me, err := s.openFragment(w, r, ps)
	if o == nil {
		return err
	}
	id := ps.ByName("blockId")
	ask := threadAsk{}
	if r.URL.Query().Get("open") == "1" {
		ask.Open = id
	}
	status := page.EffectiveStatus(o.Page, s.c.Now())
	for _, b := range o.Page.Blocks {
		if b.ID != id {
			continue
		}
		var list []*page.Comment
		at := anchors(o.Comments)
		for _, c := range o.Comments {
			if at[c.ID] == id {
				list = append(list, c)
			}
		}
		var h template.HTML
		if len(list) > 0 || ask.Open != "" {
			h = s.threadHTML(o.Page, b, list, status, me, ask)
		}
		s.writeHTML(w, r, http.StatusOK, []byte(h))
		return nil
	}
	s.notFound(w, r)
	return nil
}

// decodeLabels reads a diff block's side labels into d; false when its data does
// not read as an object.
func decodeLabels(b blocks.Block, d any) bool { return json.Unmarshal(b.Data, d) == nil }

// linesOf is the line range part of block b's thread form, nil when b has no lines.
func linesOf(b blocks.Block) *threadLines {
	if b.Type == "code" {
		if _, ok := blocks.Lines(b, ""); ok {
			return &threadLines{}
		}
		return nil
	}
	if _, ok := blocks.Lines(b, "new"); !ok || b.Type != "diff" {
		return nil
	}
	l := &threadLines{Diff: true, OldLabel: "Before", NewLabel: "After"}
	var d struct {
		Old string `json:"old_label"`
		New string `json:"new_label"`
	}
	if decodeLabels(b, &d) {
		l.OldLabel, l.NewLabel = cmp.Or(strings.TrimSpace(d.Old), "Before"), cmp.Or(strings.TrimSpace(d.New), "After")
	}
	return l
}
