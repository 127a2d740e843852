package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/model/ratelimit"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/transport/admission"
	"folio/transport/status"
)

// comment is POST /p/:id/comments: a block thread's form sent by a browser
// without JavaScript. It is the page.AddComment the API sends, under the same
// anonymous budget; the line fields are sent only when line_start is filled
// (the diff's side select always sends a value). Success is 303 back to the page
// with the block's thread open at the new comment; a refusal shows the page again
// with the message at the field in that thread and what the person typed.
func (s *Site) comment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	c, ok := s.pageForm(w, r)
	if !ok {
		return nil
	}
	id, f := ps.ByName("id"), r.PostForm
	typed := &threadProblem{Content: f.Get("content"), Name: strings.TrimSpace(f.Get("author_name")), Start: strings.TrimSpace(f.Get("line_start")),
		End: strings.TrimSpace(f.Get("line_end")), Side: f.Get("line_side"), Reply: f.Get("parent_id")}
	req := &page.CommentRequest{Content: &typed.Content}
	if typed.Name != "" {
		req.AuthorName = &typed.Name
	}
	block := f.Get("block_id")
	if block != "" {
		req.BlockID = &block
	}
	if typed.Reply != "" {
		req.ParentID = &typed.Reply
	}
	var ferr error
	if typed.Start != "" {
		req.LineStart, ferr = lineField("line_start", typed.Start)
		if ferr == nil && typed.End != "" {
			req.LineEnd, ferr = lineField("line_end", typed.End)
		}
		if typed.Side != "" {
			req.LineSide = &typed.Side
		}
	}
	v := c.Viewer()
	if ferr == nil {
		var rate ratelimit.Rate
		rate, ferr = s.c.Admit.AnonComment(s.c.ClientAddress(r), admission.CredentialKey(v.KeyID, v.SessionID))
		status.SetRate(w.Header(), rate, ferr)
	}
	var res *page.CommentResult
	if ferr == nil {
		res, ferr = registry.Call[*page.CommentResult](r.Context(), s.c.Pages, id, &page.AddComment{Viewer: v, Req: req})
	}
	if ferr != nil {
		var fe *fault.Error
		if !errors.As(ferr, &fe) {
			return ferr
		}
		o, err := s.open(r, id)
		if err != nil || o == nil {
			s.notFound(w, r)
			return nil
		}
		if block == "" || o.Gone || o.Gate {
			s.notice(w, r, status.Code(fe), "Your comment was not posted", fe.Message)
			return nil
		}
		typed.Field, typed.Message = fieldOf(fe), fe.Message
		return s.showWith(w, r, o, status.Code(fe), nil, threadAsk{Open: block, Problem: typed})
	}
	to := "/p/" + url.PathEscape(id) + "#c-" + res.Comment.ID
	if block != "" {
		to = "/p/" + url.PathEscape(id) + "?comment_on=" + url.QueryEscape(block) + "#tc-" + res.Comment.ID
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// lineField reads a line number typed into the form.
func lineField(name, s string) (*int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil, fault.Field(name, "type", "%s must be a whole number: a line number, from 1", name)
	}
	return &n, nil
}

// fieldOf is the field a refusal names ("" for none).
func fieldOf(fe *fault.Error) string {
	f, _ := fe.Details["field"].(string)
	return f
}
