package client

import (
	"context"
	"net/url"
	"time"
)

// MaxWait is the longest wait the server holds one request for; Wait makes as many
// requests as a longer timeout needs.
const MaxWait = 5 * time.Minute

// Outcome is a page's decision as a waiting agent reads it (GET
// /v1/pages/:id/wait). TimedOut means nobody decided in time and the page is
// still active: it is an answer, not an error.
type Outcome struct {
	PageID    string    `json:"pageId"`
	Status    string    `json:"status"`
	TimedOut  bool      `json:"timed_out"`
	Decision  string    `json:"decision"` // approved or rejected; empty without one
	DecidedAt time.Time `json:"decided_at"`
	// Data is the executed action that completed the page; nil when none did
	// (timed out, revoked, expired).
	Data          *OutcomeData   `json:"data"`
	Actor         *Actor         `json:"actor"` // who decided and how that was verified
	ApprovalChain *ApprovalChain `json:"approval_chain"`
}

// OutcomeData is the action that decided the page: as the action.executed callback
// carries it.
type OutcomeData struct {
	ActionID    string         `json:"action_id"`
	ActionLabel string         `json:"action_label"`
	Comment     string         `json:"comment"`
	FormData    map[string]any `json:"form_data"`
	Outcome     string         `json:"outcome"`      // approved, rejected or none
	Final       bool           `json:"final"`        // the action ended the page
	PageVersion int            `json:"page_version"` // the content version decided on (0: recorded before versions)
	ContentHash string         `json:"content_hash"` // sha256:… of that version's canonical content
	Edits       []Edit         `json:"edits"`        // the reviewer's corrections the approval carries
	// Receipt: the decision's audit entry with a signed checkpoint that includes
	// it; nil on a server that signs no checkpoints.
	Receipt *Receipt `json:"receipt"`
}

// Wait blocks until the page no longer waits for a decision (completed, expired,
// revoked, or its approval chain finished; at once when it already is) or until
// timeout passes, which answers with TimedOut set. A timeout beyond MaxWait is
// waited in several requests; timeout <= 0 uses the server's default (30 s). The
// server registers the wait in the same step that reads the page's status, so a
// decision made meanwhile is never missed.
func (c *Client) Wait(ctx context.Context, pageID string, timeout time.Duration) (*Outcome, error) {
	if timeout <= 0 {
		return call[Outcome](ctx, c, "GET", "/v1/pages/"+esc(pageID)+"/wait", nil)
	}
	deadline := time.Now().Add(timeout)
	for {
		step := min(time.Until(deadline), MaxWait).Round(time.Millisecond)
		q := url.Values{"timeout": {max(step, time.Millisecond).String()}}
		o, err := call[Outcome](ctx, c, "GET", withQuery("/v1/pages/"+esc(pageID)+"/wait", q), nil)
		if err != nil || !o.TimedOut || !time.Now().Before(deadline) {
			return o, err
		}
	}
}

// RequestApproval publishes req and waits up to timeout for its decision. The
// publish result is returned as soon as the page exists, even when the wait then
// fails, so that the caller can Wait again on its PageID.
func (c *Client) RequestApproval(ctx context.Context, req PageRequest, timeout time.Duration) (*PublishResult, *Outcome, error) {
	pub, err := c.Publish(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	o, err := c.Wait(ctx, pub.PageID, timeout)
	return pub, o, err
}
