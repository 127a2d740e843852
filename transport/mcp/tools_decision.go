package foliomcp

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/client"
)

// How long a decision is waited for when the call does not say, and at most.
const (
	defaultDecisionWait = 10 * time.Minute
	maxDecisionWait     = 24 * time.Hour
)

// ApprovalRequest is a page to publish and the wait for its decision.
type ApprovalRequest struct {
	PageInput
	TimeoutSeconds int `json:"timeout_seconds,omitempty" jsonschema:"how long to wait for the decision (default 600, at most 86400); when it passes the answer says timed_out and the page stays open"`
}

// DecisionWait waits for an existing page's decision.
type DecisionWait struct {
	PageID         string `json:"page_id"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"how long to wait (default 600, at most 86400)"`
}

func waitFor(seconds int) time.Duration {
	if seconds <= 0 {
		return defaultDecisionWait
	}
	return min(time.Duration(seconds)*time.Second, maxDecisionWait)
}

// decisionTools: asking a person and waiting for the answer.
func (f *folio) decisionTools(s *mcp.Server) {
	add(f, s, &mcp.Tool{Name: "request_approval", Description: "Ask a person to decide and wait for the answer, in one call. " +
		"Publishes a page (title, context as blocks, Approve and Reject unless you give other actions), returns when someone decides or the timeout passes. " +
		"Give the person the pageUrl from the first progress message, or from the answer if it timed out. The answer says what was decided, by whom, " +
		"how their identity was verified, and their comment and form answers. While waiting you get progress notifications (the page was viewed, a step of an approval chain was decided)."},
		func(ctx context.Context, c *client.Client, req *mcp.CallToolRequest, in ApprovalRequest) (Decision, error) {
			if len(in.Actions) == 0 {
				in.Actions = []Action{{ActionID: "approve", Label: "Approve", Style: "primary"}, {ActionID: "reject", Label: "Reject", Style: "danger"}}
			}
			if in.PageType == "" {
				in.PageType = "approval"
			}
			pr, err := in.request()
			if err != nil {
				return Decision{}, err
			}
			p, err := c.Publish(ctx, pr)
			if err != nil {
				return Decision{}, err
			}
			return await(ctx, c, req, p.PageID, p.PageURL, waitFor(in.TimeoutSeconds), "Published: ask the person to open "+p.PageURL)
		}, func(out *Decision, p *Provisioned) { out.Account = p })

	add(f, s, &mcp.Tool{Name: "wait_for_decision", Description: "Wait for the decision on a page you published (publish_page, or a request_approval that timed out). " +
		"Returns at once if it is already decided; otherwise when someone decides or the timeout passes (timed_out, the page stays open)."},
		func(ctx context.Context, c *client.Client, req *mcp.CallToolRequest, in DecisionWait) (Decision, error) {
			pg, err := c.GetPage(ctx, in.PageID)
			if err != nil {
				return Decision{}, err
			}
			return await(ctx, c, req, in.PageID, pg.PageURL, waitFor(in.TimeoutSeconds), "")
		}, func(out *Decision, p *Provisioned) { out.Account = p })
}

// await waits for the page's decision. When the caller asked for progress, the
// page's events (views, chain steps, comments) are reported as they happen, from
// the agent stream opened before the wait begins; announce, when given, is the
// first progress message, sent once that stream is live, so that nothing the
// person does after reading it (opening the page) can go unreported.
func await(ctx context.Context, c *client.Client, req *mcp.CallToolRequest, pageID, url string, timeout time.Duration, announce string) (Decision, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := 0.0
	if req != nil && req.Params != nil && req.Params.GetProgressToken() != nil {
		st, err := c.Events(ctx, "")
		if announce != "" {
			progress(ctx, req, n, announce)
		}
		if err == nil {
			go func() {
				defer func() { _ = st.Close() }()
				for {
					ev, err := st.Next()
					if err != nil {
						return
					}
					if ev.PageID != pageID {
						continue
					}
					if msg := progressMessage(ev); msg != "" {
						n++
						progress(ctx, req, n, msg)
					}
				}
			}()
		}
	}
	o, err := c.Wait(ctx, pageID, timeout)
	if err != nil {
		if ctx.Err() != nil {
			return Decision{}, fmt.Errorf("the wait was cancelled; the page %s stays open: call wait_for_decision to wait again", pageID)
		}
		return Decision{}, err
	}
	return decisionOf(o, url), nil
}

// progressMessage says what a page event means to the agent waiting ("" for
// events not worth a notification).
func progressMessage(ev *client.Event) string {
	who := ""
	if ev.Actor != nil && ev.Actor.Identity != "" {
		who = " by " + ev.Actor.Identity
	}
	switch ev.Type {
	case "page.viewed":
		return "The page was opened" + who
	case "comment.added":
		return "A comment was added"
	case "approval.step_completed":
		return "A step of the approval chain was decided" + who
	case "action.executed":
		return "An action was taken" + who
	case "file.uploaded":
		return "A file was attached"
	}
	return ""
}

// progress reports to a caller that asked for progress (a progress token).
func progress(ctx context.Context, req *mcp.CallToolRequest, n float64, msg string) {
	if req == nil || req.Session == nil || req.Params == nil {
		return
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return
	}
	_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: n, Message: msg})
}
