package httpapi

import (
	"encoding/json"
	"time"

	"folio/actors/model/blocks"
	"folio/actors/page"
	"folio/transport/apitypes"
)

// pageView is the page object of specification §2.5, with the extra fields a
// reader needs (version, expiry, short address).
type pageView struct {
	PageID string `json:"pageId"`
	apitypes.Link
	ShortURL      string          `json:"shortUrl"`
	Status        string          `json:"status"`
	PageType      string          `json:"page_type"`
	Title         string          `json:"title"`
	Summary       string          `json:"summary"`
	Priority      string          `json:"priority"`
	Tags          []string        `json:"tags"`
	CreatedBy     string          `json:"created_by"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	PublishedAt   *time.Time      `json:"published_at"`
	ExpiresAt     *time.Time      `json:"expires_at"`
	RevokedAt     *time.Time      `json:"revoked_at,omitempty"`
	CompletedAt   *time.Time      `json:"completed_at,omitempty"`
	Decision      *string         `json:"decision"` // approved or rejected once completed, else null
	Version       int             `json:"version"`
	Livemode      bool            `json:"livemode"`
	Blocks        []blocks.Block  `json:"blocks"`
	Actions       []page.Action   `json:"actions"`
	Access        page.Access     `json:"access"`
	Notify        json.RawMessage `json:"notify"`
	OnAction      json.RawMessage `json:"on_action"`
	ApprovalChain json.RawMessage `json:"approval_chain"`
	// RequireVerified: the chain's steps take only signed-in assignees.
	RequireVerified bool       `json:"require_verified"`
	Stats           page.Stats `json:"stats"`
	// LastAction is the most recent executed action and its outcome (pageversion.go).
	LastAction *lastAction `json:"last_action"`
	// ContentHash is sent by GET /v1/pages/:id only (it hashes the whole content).
	ContentHash string `json:"content_hash,omitempty"`
	// Deadline is the page's own deadline (null: none); DueAt the nearest running
	// due time, its own or an open step's; Overdue whether DueAt has passed.
	Deadline *page.Deadline `json:"deadline"`
	DueAt    *time.Time     `json:"due_at"`
	Overdue  bool           `json:"overdue"`
}

// updatedPage is the answer of PATCH /v1/pages/:id: the page as a GET reads it
// (without content_hash) and the advisory warnings about it, never null.
type updatedPage struct {
	pageView
	Warnings []string `json:"warnings"`
}

func (s *Server) pageURL(id string) string     { return s.urls.PageBase + "/p/" + id }
func (s *Server) link(id string) apitypes.Link { return apitypes.Link{PageURL: s.pageURL(id)} }
func (s *Server) shortURL(code string) string  { return s.urls.ShortBase + "/s/" + code }

func (s *Server) view(p *page.Page) pageView {
	v := pageView{
		PageID: p.ID, Link: s.link(p.ID), ShortURL: s.shortURL(p.ShortCode),
		Status: page.EffectiveStatus(p, s.now()), PageType: p.PageType, Title: p.Title, Summary: p.Summary,
		Priority: p.Priority, Tags: p.Tags, CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		PublishedAt: p.PublishedAt, ExpiresAt: p.ExpiresAt, RevokedAt: p.RevokedAt, CompletedAt: p.CompletedAt, Decision: optString(p.Decision),
		Version: p.Version, Livemode: p.Livemode, Blocks: p.Blocks, Actions: p.Actions, Access: p.Access,
		Notify: redactChannelSecrets(p.Notify), OnAction: redactSecret(p.OnAction), ApprovalChain: nullRaw(p.ApprovalChain), RequireVerified: p.RequireVerified, Stats: p.Stats,
		LastAction: lastActionOf(p),
		Deadline:   p.Deadline, DueAt: p.DueAt(), Overdue: p.Overdue(s.now()),
	}
	if v.Tags == nil {
		v.Tags = []string{}
	}
	if v.Blocks == nil {
		v.Blocks = []blocks.Block{}
	}
	if v.Actions == nil {
		v.Actions = []page.Action{}
	}
	return v
}

func nullRaw(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// Secrets are write-only: a read of the page shows that a callback signing secret,
// a custom header or a channel secret is set, never its value (a receiver's
// `Authorization: Bearer …` must not leak to whoever reads the page through the API).
const redacted = "[redacted]"

// redactSecret shows on_action with its signing secret and header values redacted.
func redactSecret(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	var m map[string]any
	if json.Unmarshal(r, &m) != nil {
		return json.RawMessage("null")
	}
	redactFields(m)
	b, _ := json.Marshal(m)
	return b
}

// redactChannelSecrets shows notify with every channel's secret and header values
// redacted; the rest is returned as stored.
func redactChannelSecrets(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	var m map[string]any
	if json.Unmarshal(r, &m) != nil {
		return json.RawMessage("null")
	}
	chans, _ := m["channels"].([]any)
	for _, c := range chans {
		if ch, ok := c.(map[string]any); ok {
			redactFields(ch)
		}
	}
	b, _ := json.Marshal(m)
	return b
}

// redactFields replaces the values of secret members of one settings object.
func redactFields(m map[string]any) {
	for _, k := range []string{"secret", "hmac_secret"} {
		if _, ok := m[k]; ok {
			m[k] = redacted
		}
	}
	if h, ok := m["headers"].(map[string]any); ok {
		for name := range h {
			h[name] = redacted
		}
	}
}

func warningsOrEmpty(w []string) []string {
	if w == nil {
		return []string{}
	}
	return w
}

// editsOf is the reviewer's corrections as the API sends them (nil: none).
func editsOf(edits []page.Edit) []apitypes.Edit {
	if len(edits) == 0 {
		return nil
	}
	out := make([]apitypes.Edit, len(edits))
	for i, e := range edits {
		out[i] = apitypes.Edit(e)
	}
	return out
}
