package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"folio/actors/model/fault"
	"folio/actors/page"
)

// The page's ETag names its content version: `"v<version>"`. GET /v1/pages/:id
// sends it; execute-action takes it back as If-Match (or the number as
// page_version in the body) to bind a decision to the version the caller read
// (actors/page/version.go). It changes with the content only, not with views or
// comments, so it is not a validator of the response's bytes for caching.

// pageETag is the ETag of content version v.
func pageETag(v int) string { return `"v` + strconv.Itoa(v) + `"` }

// versionFromIfMatch reads If-Match into req.PageVersion: absent or `*` names no
// version; one ETag of the page's form names its version; anything else is 400.
// A body's page_version and an If-Match that disagree are 400 too.
func versionFromIfMatch(r *http.Request, req *page.ActionRequest) error {
	raw := strings.TrimSpace(r.Header.Get("If-Match"))
	if raw == "" || raw == "*" {
		return nil
	}
	tag := strings.TrimPrefix(raw, "W/")
	n, err := strconv.Atoi(strings.TrimPrefix(strings.Trim(tag, `"`), "v"))
	if err != nil || !strings.HasPrefix(tag, `"v`) || !strings.HasSuffix(tag, `"`) || n < 1 {
		return fault.New(fault.Invalid, `If-Match must be the page's ETag as GET /v1/pages/{id} sends it, such as "v3"`,
			map[string]any{"field": "If-Match", "constraint": "format"})
	}
	if req.PageVersion != nil && *req.PageVersion != n {
		return fault.New(fault.Invalid, "page_version and If-Match name different versions: send one of them",
			map[string]any{"field": "page_version", "constraint": "matches_if_match", "page_version": *req.PageVersion, "if_match": n})
	}
	req.PageVersion = &n
	return nil
}

// lastAction is the page object's last_action: the most recent executed action,
// its outcome and the content it was decided on; nil before any.
type lastAction struct {
	ActionID    string    `json:"action_id"`
	ActionLabel string    `json:"action_label"`
	Actor       string    `json:"actor"`
	Outcome     string    `json:"outcome"`
	Final       bool      `json:"final"`
	PageVersion int       `json:"page_version"`
	ContentHash string    `json:"content_hash"`
	ExecutedAt  time.Time `json:"executed_at"`
	// Edits: the reviewer's corrections the approval carried (actors/page/edits.go).
	Edits []page.Edit `json:"edits,omitempty"`
}

func lastActionOf(p *page.Page) *lastAction {
	e := p.LastExecution()
	if e == nil {
		return nil
	}
	label := e.ActionLabel
	if label == "" {
		label = e.ActionID
	}
	return &lastAction{ActionID: e.ActionID, ActionLabel: label, Actor: e.Actor, Outcome: e.OutcomeOf(), Final: !e.Step,
		PageVersion: e.PageVersion, ContentHash: e.ContentHash, ExecutedAt: e.ExecutedAt, Edits: e.Edits}
}
