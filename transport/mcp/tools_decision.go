package foliomcp

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/client"
)

// Waiting for a person outlives any client's request timeout by never holding a
// call longer than a bound below the common default (the official TypeScript
// SDK's 60 s, which progress does not reset unless the client asks): a call that
// reaches the bound answers `status: "pending"` with the page's id and address, and
// the agent calls wait_for_decision again. The decision lives in the page, not in
// the call, so one taken while no call waits is what the next call returns at once.
const (
	// DefaultDecisionWait is how long one request_approval or wait_for_decision
	// call waits before it answers pending (Options.DecisionWait).
	DefaultDecisionWait = 45 * time.Second
	// DefaultHeartbeat is how often a waiting call reports progress to a client
	// that asked for it (Options.Heartbeat).
	DefaultHeartbeat = 5 * time.Second
)

// ApprovalRequest is a page to publish and the wait for its decision.
type ApprovalRequest struct {
	PageInput
	TimeoutSeconds int `json:"timeout_seconds,omitempty" minimum:"1" jsonschema:"how long this call waits for the decision before it answers pending, in seconds (default and at most the server's bound, 45 unless configured)"`
}

// DecisionWait waits for an existing page's decision.
type DecisionWait struct {
	PageID         string `json:"page_id" jsonschema:"the page's id: pageId from request_approval, publish_page or publish_draft"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" minimum:"1" jsonschema:"how long this call waits before it answers pending, in seconds (default and at most the server's bound, 45 unless configured)"`
}

// waitFor is how long one call waits: the call's timeout_seconds, at most the
// bound; not given, the bound. (0 and negative values are refused by the schema.)
func (f *folio) waitFor(seconds int) time.Duration {
	if seconds <= 0 {
		return f.o.DecisionWait
	}
	return min(time.Duration(seconds)*time.Second, f.o.DecisionWait)
}

// decisionTools: asking a person and waiting for the answer.
func (f *folio) decisionTools(s *mcp.Server) {
	bound := int(f.o.DecisionWait.Seconds())
	add(f, s, &mcp.Tool{Name: "request_approval", Annotations: annotations(false, false, false, true),
		Description: fmt.Sprintf("Publish a page that asks a person to decide, and wait up to %d s for the decision. "+
			"Without actions the page gets Approve (action_id approve) and Reject (action_id reject). "+
			"The answer always comes within %d s: either the decision (status completed, with decision approved or rejected, the action pressed, "+
			"who decided, how their identity was verified, their comment and form answers), or status pending with pageId and pageUrl. "+
			"People take minutes or hours: on pending, give the person pageUrl, then call wait_for_decision with page_id = pageId, "+
			"again each time it answers pending. Do not call request_approval again to keep waiting: each call publishes a new page. "+
			"While it waits, a client that sent a progressToken gets progress every few seconds and when the page is opened or commented on.", bound, bound)},
		func(ctx context.Context, c *client.Client, req *mcp.CallToolRequest, in ApprovalRequest) (Decision, error) {
			in.PageInput = in.withDefaults()
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
			return f.await(ctx, c, req, p.PageID, p.PageURL, f.waitFor(in.TimeoutSeconds), "Published: ask the person to open "+p.PageURL)
		}, func(out *Decision, p *Provisioned) { out.Account = p })

	add(f, s, &mcp.Tool{Name: "wait_for_decision", Annotations: annotations(true, false, true, false),
		Description: fmt.Sprintf("Wait for the decision on a page you published (request_approval that answered pending, publish_page, publish_draft, publish_template…). "+
			"Answers at once when the page is already decided (a decision taken while nothing was waiting is never lost), otherwise within %d s: "+
			"the decision, or status pending again; then call wait_for_decision again with the same page_id, as often as needed (it changes nothing on the page). "+
			"status expired or revoked: the page will not be decided; draft: publish it with publish_draft first. "+
			"While it waits, a client that sent a progressToken gets progress every few seconds.", bound)},
		func(ctx context.Context, c *client.Client, req *mcp.CallToolRequest, in DecisionWait) (Decision, error) {
			pg, err := c.GetPage(ctx, in.PageID)
			if err != nil {
				return Decision{}, err
			}
			return f.await(ctx, c, req, in.PageID, pg.PageURL, f.waitFor(in.TimeoutSeconds), "")
		}, func(out *Decision, p *Provisioned) { out.Account = p })
}

// await waits up to timeout for the page's decision and answers it, or pending.
// When the caller asked for progress (a progress token), it reports a heartbeat
// every Options.Heartbeat and the page's events (views, chain steps, comments) as
// they happen, from the agent stream opened before the wait begins; announce, when
// given, is the first progress message, sent once that stream is live, so that
// nothing the person does after reading it (opening the page) goes unreported.
// No progress is sent after the answer.
func (f *folio) await(ctx context.Context, c *client.Client, req *mcp.CallToolRequest, pageID, url string, timeout time.Duration, announce string) (Decision, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if rep := newReporter(req, timeout); rep != nil {
		defer func() { cancel(); rep.stop() }()
		st, err := c.Events(ctx, "")
		if announce != "" {
			rep.send(ctx, announce)
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
						rep.send(ctx, msg)
					}
				}
			}()
		}
		go func() {
			t := time.NewTicker(f.o.Heartbeat)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					rep.send(ctx, fmt.Sprintf("Waiting for a person to decide at %s (%d s of this call's %d s)",
						url, int(rep.elapsed().Seconds()), int(timeout.Seconds())))
				}
			}
		}()
	}
	o, err := c.Wait(ctx, pageID, timeout)
	if err != nil {
		if ctx.Err() != nil {
			return Decision{}, fmt.Errorf("the wait was cancelled; the page %s stays open: call wait_for_decision to wait again", pageID)
		}
		return Decision{}, err
	}
	return decisionOf(o, url, f.o.DecisionWait), nil
}

// reporter sends one call's progress notifications: progress is the seconds the
// call has waited (strictly increasing, as MCP requires) out of total, the call's
// wait. Sends are serialised, and none follows stop.
type reporter struct {
	req   *mcp.CallToolRequest
	tok   any
	start time.Time
	total float64

	mu      sync.Mutex
	last    float64
	stopped bool
}

// newReporter is nil when the caller did not ask for progress.
func newReporter(req *mcp.CallToolRequest, total time.Duration) *reporter {
	if req == nil || req.Session == nil || req.Params == nil || req.Params.GetProgressToken() == nil {
		return nil
	}
	return &reporter{req: req, tok: req.Params.GetProgressToken(), start: time.Now(), total: total.Seconds(), last: -1}
}

func (r *reporter) elapsed() time.Duration { return time.Since(r.start) }

func (r *reporter) send(ctx context.Context, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	p := math.Round(min(r.elapsed().Seconds(), r.total)*1000) / 1000
	if p <= r.last {
		p = r.last + 0.001
	}
	r.last = p
	_ = r.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: r.tok, Progress: p, Total: r.total, Message: msg})
}

// stop ends the reporting: it returns once no send is under way, and none follows.
func (r *reporter) stop() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
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
