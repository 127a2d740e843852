package page

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"folio/actors/model/audit"
	"folio/actors/model/fault"
	"folio/actors/model/ids"
	"folio/persistence"
)

// Comments (specification §4.5) live in their own bucket, keyed pageId|seq so a
// page's comments list in creation order; the page record keeps only counters. Each
// change commits with the page (counters), its audit entry and its event in one
// transaction.

const (
	bucketComments   = "comments"    // pageId 0x00 seq(8) -> Comment (JSON)
	bucketCommentIDs = "comment_ids" // pageId 0x00 commentId -> seq(8)
)

// Comment limits.
const (
	MaxCommentChars = 10000
	MaxAuthorChars  = 200
	MaxComments     = 10000 // per page
	// DefaultOpenComments is how many of a page's MaxComments may come from people
	// who are not the page's own (--page-anon-comments; see openCommenter): the
	// rest stay for its own people however many anonymous comments arrive.
	DefaultOpenComments = 1000
)

// Comment is one stored comment.
type Comment struct {
	V          int    `json:"v"`
	ID         string `json:"id"`
	PageID     string `json:"page_id"`
	Seq        uint64 `json:"seq"`
	Content    string `json:"content"`
	AuthorName string `json:"author_name"`
	AuthorType string `json:"author_type"`
	BlockID    string `json:"block_id,omitempty"`
	// LineStart..LineEnd (inclusive, from 1) is the range of the block's lines the
	// comment is about, 0 when it is about the whole block; LineSide is the side of
	// a diff they are on ("new" or "old"), "" for a code block (lines.go).
	LineStart int        `json:"line_start,omitempty"`
	LineEnd   int        `json:"line_end,omitempty"`
	LineSide  string     `json:"line_side,omitempty"`
	ParentID  string     `json:"parent_id,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
	// Who may change it besides the page's owner: the tenant of the API key that
	// wrote it, the signed-in person who wrote it (their verified address), or
	// whoever holds the edit token handed out once to an anonymous author (only its
	// SHA-256 is kept). A comment with none of them changes only with the owner's key.
	AuthorTenant  string `json:"author_tenant,omitempty"`
	AuthorPerson  string `json:"author_person,omitempty"`
	EditTokenHash string `json:"edit_token_hash,omitempty"`
	// Open marks a comment counted in the page's open share (Page.OpenComments).
	Open bool `json:"open,omitempty"`
}

// CommentRequest is the body of POST /v1/pages/:id/comments.
type CommentRequest struct {
	Content    *string `json:"content"`
	AuthorName *string `json:"author_name"`
	AuthorType *string `json:"author_type"`
	BlockID    *string `json:"block_id"`
	LineStart  *int    `json:"line_start"`
	LineEnd    *int    `json:"line_end"`
	LineSide   *string `json:"line_side"`
	ParentID   *string `json:"parent_id"`
}

// AddComment adds a comment; anyone who can read a public page may (author_type
// "agent" needs the owner's key).
type AddComment struct {
	Viewer
	Req *CommentRequest
}

// ListComments reads the page's comments in creation order.
type ListComments struct {
	Viewer
	Limit, Offset int
}

// EditComment is PATCH /v1/pages/:id/comments/:commentId. EditorIdentity is only a
// label for the audit log; EditToken (from the comment's creation) is the proof.
type EditComment struct {
	Viewer
	CommentID      string
	Content        *string
	EditorIdentity string
	EditToken      string
}

// DeleteComment is DELETE /v1/pages/:id/comments/:commentId.
type DeleteComment struct {
	Viewer
	CommentID       string
	DeleterIdentity string
	EditToken       string
}

// CommentResult answers the comment messages. EditToken is set once, when an
// anonymous viewer adds a comment: it is what later lets them edit or delete it.
type CommentResult struct {
	Comment   *Comment
	Comments  []*Comment
	Total     int
	EditToken string
}

func (m *AddComment) public()    {}
func (m *ListComments) public()  {}
func (m *EditComment) public()   {}
func (m *DeleteComment) public() {}

func (m *AddComment) run(a *Actor) any    { return a.addComment(m) }
func (m *ListComments) run(a *Actor) any  { return a.listComments(m) }
func (m *EditComment) run(a *Actor) any   { return a.editComment(m) }
func (m *DeleteComment) run(a *Actor) any { return a.deleteComment(m) }

func commentKey(pageID string, seq uint64) []byte {
	return persistence.Key([]byte(pageID), persistence.U64(seq))
}

func commentIDKey(pageID, id string) []byte {
	return persistence.Key([]byte(pageID), []byte(id))
}

// writable is the status rule of viewer writes (comments, uploads): the owner's key
// writes to draft and active pages, everyone else only to active ones.
func (a *Actor) writable(v Viewer, op string) error {
	s := a.page.Status
	if s == Active || (s == Draft && a.owns(v)) {
		return nil
	}
	return fault.State(op, s)
}

// actorOf names a viewer in the audit log.
func actorOf(v Viewer, name string) string {
	switch {
	case v.Agent != "":
		return v.Agent
	case v.Person != "":
		return "user:" + v.Person
	case name != "":
		return "user:" + name
	}
	return "anonymous"
}

func checkContent(field string, s *string) (string, error) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return "", fault.Field(field, "required", "%s is required", field)
	}
	if n := utf8.RuneCountInString(*s); n > MaxCommentChars {
		return "", fault.Limit(field, "max_length", MaxCommentChars, "%s has at most %d characters", field, MaxCommentChars)
	}
	return *s, nil
}

func (a *Actor) addComment(m *AddComment) any {
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	if err := a.writable(m.Viewer, "comment on"); err != nil {
		return err
	}
	req := m.Req
	if req == nil {
		req = &CommentRequest{}
	}
	content, err := checkContent("content", req.Content)
	if err != nil {
		return err
	}
	authorType := "user"
	if req.AuthorType != nil {
		authorType = *req.AuthorType
	}
	switch authorType {
	case "user":
	case "agent":
		if !a.owns(m.Viewer) {
			return fault.New(fault.Forbidden, "author_type agent needs an API key of the page's tenant", map[string]any{"field": "author_type"})
		}
	default:
		return fault.Field("author_type", "enum", "author_type must be user or agent")
	}
	author := ""
	if req.AuthorName != nil {
		author = strings.TrimSpace(*req.AuthorName)
	}
	if utf8.RuneCountInString(author) > MaxAuthorChars {
		return fault.Limit("author_name", "max_length", MaxAuthorChars, "author_name has at most %d characters", MaxAuthorChars)
	}
	if reservedAuthor(author) && !a.owns(m.Viewer) {
		return fault.Field("author_name", "reserved", "author_name %q is reserved for the page's agent", author)
	}
	if author == "" {
		author = "anonymous"
		if m.Agent != "" && a.owns(m.Viewer) {
			author = m.Agent
		}
	}
	if m.Person != "" {
		author = m.Person // a signed-in person writes as their verified address
	}
	c := &Comment{V: 1, ID: ids.New("cmt"), PageID: a.id, Content: content, AuthorName: author, AuthorType: authorType,
		AuthorTenant: m.TenantID, AuthorPerson: m.Person}
	token := ""
	if m.TenantID == "" && m.Person == "" {
		token = "cet_" + ids.Random(32)
		c.EditTokenHash = tokenHash(token)
	}
	if req.BlockID != nil && *req.BlockID != "" {
		if a.blockIndex(*req.BlockID) < 0 {
			return fault.Field("block_id", "exists", "block_id must name a block of this page")
		}
		c.BlockID = *req.BlockID
	}
	if c.LineStart, c.LineEnd, c.LineSide, err = a.lineAnchor(req, c.BlockID); err != nil {
		return err
	}
	if req.ParentID != nil && *req.ParentID != "" {
		_, ok, err := a.findComment(*req.ParentID)
		if err != nil {
			return err
		}
		if !ok {
			return fault.Field("parent_id", "exists", "parent_id must name a comment of this page")
		}
		c.ParentID = *req.ParentID
	}
	if a.page.CommentCount >= MaxComments {
		return fault.New(fault.Conflict, "the page has the most comments it can hold", map[string]any{"status": a.page.Status, "constraint": "max_comments", "limit": MaxComments})
	}
	c.Open = a.openCommenter(m.Viewer)
	if open := a.openComments(); c.Open && a.page.OpenComments >= open {
		return fault.New(fault.Conflict, fmt.Sprintf("this page takes no more comments from people who are not signed in as someone it is shared with (%d reached); "+
			"sign in with an address the page names, or ask its owner to share it with you", open),
			map[string]any{"status": a.page.Status, "constraint": "anonymous_comments", "limit": open})
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	next.CommentSeq++
	next.CommentCount++
	if c.Open {
		next.OpenComments++
	}
	c.Seq, c.CreatedAt = next.CommentSeq, now
	entry := audit.New("comment.added", actorOf(m.Viewer, author), a.id, now, map[string]any{"comment_id": c.ID})
	ev := a.event(now, commentAdded{CommentID: c.ID, Content: c.Content, AuthorName: c.AuthorName, AuthorType: c.AuthorType,
		BlockID: c.BlockID, LineStart: c.LineStart, LineEnd: c.LineEnd, LineSide: c.LineSide, ParentID: c.ParentID})
	if err := a.applyWith(next, []audit.Entry{entry}, []Event{ev}, putComment(c)); err != nil {
		return err
	}
	return &CommentResult{Comment: c, EditToken: token}
}

// openCommenter tells whether v writes in the page's open share of comments: all
// but the page's own people, who are its tenant's keys and signed-in members and
// the signed-in people its access names. Anonymous writers, people signed in
// whom the page does not name (anyone can sign in) and other tenants' keys share
// the open share, so however many of them write, the page's own people keep
// MaxComments minus it.
func (a *Actor) openCommenter(v Viewer) bool {
	if a.owns(v) || a.member(v) {
		return false
	}
	return v.Person == "" || !a.page.Access.Allows(v.Person)
}

// openComments is the size of a page's open share.
func (a *Actor) openComments() int {
	if n := a.deps.OpenComments; n > 0 {
		return min(n, MaxComments)
	}
	return DefaultOpenComments
}

// reservedAuthor tells whether a name poses as an agent ("agent:…", "agent"): only
// the page's own key may write under such a name.
func reservedAuthor(name string) bool {
	n := strings.ToLower(name)
	return n == "agent" || strings.HasPrefix(n, "agent:")
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func putComment(c *Comment) func(*persistence.Tx) error {
	return func(tx *persistence.Tx) error {
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if err := tx.Put(bucketComments, commentKey(c.PageID, c.Seq), b); err != nil {
			return err
		}
		return tx.Put(bucketCommentIDs, commentIDKey(c.PageID, c.ID), persistence.U64(c.Seq))
	}
}

// findComment reads one comment of this page by id: ok false when there is none,
// err when the store did not answer.
func (a *Actor) findComment(id string) (*Comment, bool, error) {
	if id == "" || len(id) > 64 {
		return nil, false, nil
	}
	var c *Comment
	err := a.deps.Store.View(func(tx *persistence.Tx) error {
		seq := tx.Get(bucketCommentIDs, commentIDKey(a.id, id))
		if seq == nil {
			return nil
		}
		b := tx.Get(bucketComments, commentKey(a.id, persistence.ReadU64(seq)))
		if b == nil {
			return nil
		}
		c = &Comment{}
		if json.Unmarshal(b, c) != nil {
			c = nil
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("page: comment %s: %w", id, err)
	}
	return c, c != nil, nil
}

func (a *Actor) listComments(m *ListComments) any {
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	out := []*Comment{}
	total := 0
	err := a.deps.Store.View(func(tx *persistence.Tx) error {
		var derr error
		tx.Scan(bucketComments, append([]byte(a.id), 0), false, func(_, v []byte) bool {
			total++
			if total <= m.Offset || len(out) >= m.Limit {
				return true
			}
			c := &Comment{}
			if derr = json.Unmarshal(v, c); derr != nil {
				return false
			}
			out = append(out, c)
			return true
		})
		return derr
	})
	if err != nil {
		return err
	}
	return &CommentResult{Comments: out, Total: total}
}

// mayChange is the rule for editing or deleting a comment, by proof rather than by
// a name anyone could type: the page owner's key; a key of the tenant that wrote
// the comment; the session of the person who wrote it; or the edit token its anonymous author received (compared in
// constant time against the stored hash).
func (a *Actor) mayChange(v Viewer, c *Comment, token string) error {
	if a.owns(v) || (v.TenantID != "" && v.TenantID == c.AuthorTenant) || (v.Person != "" && v.Person == c.AuthorPerson) {
		return nil
	}
	if token != "" && c.EditTokenHash != "" && subtle.ConstantTimeCompare([]byte(tokenHash(token)), []byte(c.EditTokenHash)) == 1 {
		return nil
	}
	return fault.New(fault.Forbidden, "only the comment's author (with its edit token or key) or the page's owner may change it", map[string]any{"field": "edit_token"})
}

func (a *Actor) editComment(m *EditComment) any {
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	c, ok, err := a.findComment(m.CommentID)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Missing("comment", m.CommentID)
	}
	if err := a.writable(m.Viewer, "edit comments of"); err != nil {
		return err
	}
	if err := a.mayChange(m.Viewer, c, m.EditToken); err != nil {
		return err
	}
	content, err := checkContent("content", m.Content)
	if err != nil {
		return err
	}
	now := a.deps.Now().UTC()
	edited := *c
	edited.Content, edited.UpdatedAt = content, &now
	next := a.page.clone()
	entry := audit.New("comment.updated", actorOf(m.Viewer, m.EditorIdentity), a.id, now, map[string]any{"comment_id": c.ID})
	ev := a.event(now, commentUpdated{CommentID: c.ID, Content: content})
	if err := a.applyWith(next, []audit.Entry{entry}, []Event{ev}, putComment(&edited)); err != nil {
		return err
	}
	return &CommentResult{Comment: &edited}
}

func (a *Actor) deleteComment(m *DeleteComment) any {
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	c, ok, err := a.findComment(m.CommentID)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Missing("comment", m.CommentID)
	}
	if !a.owns(m.Viewer) {
		if err := a.writable(m.Viewer, "delete comments of"); err != nil {
			return err
		}
	}
	if err := a.mayChange(m.Viewer, c, m.EditToken); err != nil {
		return err
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	if next.CommentCount > 0 {
		next.CommentCount--
	}
	if c.Open && next.OpenComments > 0 {
		next.OpenComments--
	}
	entry := audit.New("comment.deleted", actorOf(m.Viewer, m.DeleterIdentity), a.id, now, map[string]any{"comment_id": c.ID})
	ev := a.event(now, commentDeleted{CommentID: c.ID})
	del := func(tx *persistence.Tx) error {
		if err := tx.Delete(bucketComments, commentKey(a.id, c.Seq)); err != nil {
			return err
		}
		return tx.Delete(bucketCommentIDs, commentIDKey(a.id, c.ID))
	}
	if err := a.applyWith(next, []audit.Entry{entry}, []Event{ev}, del); err != nil {
		return err
	}
	return &CommentResult{Comment: c}
}
