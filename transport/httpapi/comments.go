package httpapi

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/page"
	"folio/actors/registry"
	"folio/transport/apitypes"
)

// commentView is the comment object (specification §2.5).
type commentView struct {
	ID         string     `json:"id"`
	PageID     string     `json:"pageId"`
	Content    string     `json:"content"`
	AuthorName string     `json:"authorName"`
	AuthorType string     `json:"authorType"`
	BlockID    string     `json:"block_id,omitempty"`
	LineStart  int        `json:"line_start,omitempty"`
	LineEnd    int        `json:"line_end,omitempty"`
	LineSide   string     `json:"line_side,omitempty"`
	ParentID   string     `json:"parent_id,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
	UpdatedAt  *time.Time `json:"updatedAt,omitempty"`
	// EditToken is returned once, to the anonymous author who created the comment:
	// editing or deleting it later needs it (edit_token).
	EditToken string `json:"editToken,omitempty"`
}

func viewComment(c *page.Comment) commentView {
	return commentView{ID: c.ID, PageID: c.PageID, Content: c.Content, AuthorName: c.AuthorName, AuthorType: c.AuthorType,
		BlockID: c.BlockID, LineStart: c.LineStart, LineEnd: c.LineEnd, LineSide: c.LineSide, ParentID: c.ParentID, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// addComment is POST /v1/pages/:id/comments.
func (rt *realtime) addComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var req page.CommentRequest
	v, err := rt.viewerWithBody(w, r, &req, false)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	if err := rt.admitAnonComment(w, r, v); err != nil {
		return err
	}
	res, err := registry.Call[*page.CommentResult](r.Context(), rt.pages, id, &page.AddComment{Viewer: v, Req: &req})
	if err != nil {
		return err
	}
	out := viewComment(res.Comment)
	out.EditToken = res.EditToken
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// listComments is GET /v1/pages/:id/comments (no credential on public pages).
func (rt *realtime) listComments(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	v, err := rt.viewerOf(r)
	if err != nil {
		return err
	}
	limit, offset, err := limitOffset(r, 500, 1000)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.CommentResult](r.Context(), rt.pages, id, &page.ListComments{Viewer: v, Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	out := make([]commentView, len(res.Comments))
	for i, c := range res.Comments {
		out[i] = viewComment(c)
	}
	writeJSON(w, http.StatusOK, apitypes.CommentList[commentView]{Comments: out, Total: res.Total})
	return nil
}

// editComment is PATCH /v1/pages/:id/comments/:commentId.
func (rt *realtime) editComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var req struct {
		Content        *string `json:"content"`
		EditorIdentity string  `json:"editor_identity"`
		EditToken      string  `json:"edit_token"`
	}
	v, err := rt.viewerWithBody(w, r, &req, false)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.CommentResult](r.Context(), rt.pages, id, &page.EditComment{Viewer: v, CommentID: ps.ByName("commentId"),
		Content: req.Content, EditorIdentity: req.EditorIdentity, EditToken: req.EditToken})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewComment(res.Comment))
	return nil
}

// deleteComment is DELETE /v1/pages/:id/comments/:commentId; deleter_identity comes
// in an optional JSON body or the query.
func (rt *realtime) deleteComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var req struct {
		DeleterIdentity string `json:"deleter_identity"`
		EditToken       string `json:"edit_token"`
	}
	v, err := rt.viewerWithBody(w, r, &req, true)
	if err != nil {
		return err
	}
	if req.DeleterIdentity == "" {
		req.DeleterIdentity = r.URL.Query().Get("deleter_identity")
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	if _, err := registry.Call[*page.CommentResult](r.Context(), rt.pages, id, &page.DeleteComment{Viewer: v, CommentID: ps.ByName("commentId"),
		DeleterIdentity: req.DeleterIdentity, EditToken: req.EditToken}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
