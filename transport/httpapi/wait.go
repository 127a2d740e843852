package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/model/frame"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// Waiting for a decision over plain HTTP (GET /v1/pages/:id/wait): for an agent
// without a public callback address or an open stream.
const (
	defaultWait = 30 * time.Second
	maxWait     = 5 * time.Minute
)

// waiter is a page subscriber that only wants to know when the page stops waiting
// for a decision. The page actor holds it like any live subscriber (a pointer in its
// list, no goroutine of its own) and offers it every event; it keeps none of them.
type waiter struct {
	once sync.Once
	done chan struct{}
}

func newWaiter() *waiter { return &waiter{done: make(chan struct{})} }

func (w *waiter) fire() { w.once.Do(func() { close(w.done) }) }

// settled tells which events end a wait: the page left `active` (decided, expired,
// withdrawn) or its approval chain finished.
func settled(typ string) bool {
	switch typ {
	case "page.completed", "page.expired", "page.revoked", "approval.chain_completed":
		return true
	}
	return false
}

// Send is offered every event of the page; it never refuses one.
func (w *waiter) Send(f *frame.Frame) bool {
	if settled(f.Type) {
		w.fire()
	}
	return true
}

// Close and End: the page dropped its subscribers (it passivated, or access ended);
// the wait answers with the page as it now is.
func (w *waiter) Close()             { w.fire() }
func (w *waiter) End(_ *frame.Frame) { w.fire() }

// waitDecision is GET /v1/pages/:id/wait?timeout=60s: it answers once the page is
// no longer waiting for a decision (at once when it already is), or when the
// timeout passes (200 with status "active" and timed_out: true). The waiter is
// registered in the same message that reads the page's status, so a decision made
// in between cannot be missed.
func (s *Server) waitDecision(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	timeout, err := waitTimeout(r.URL.Query().Get("timeout"))
	if err != nil {
		return err
	}
	release, err := s.holdWait(r, who.KeyID)
	if err != nil {
		return err
	}
	if s.canPark(r) {
		parked, err := s.waitParked(w, r, id, who, timeout, release)
		if parked || err != nil {
			return err // parked: release is the parked waiter's to call
		}
	}
	defer release()
	wt := newWaiter()
	v := page.Viewer{TenantID: who.TenantID, Agent: who.Agent(), KeyID: who.KeyID}
	sub, err := registry.Call[*page.Subscribed](r.Context(), s.pages, id, &page.Subscribe{Viewer: v, Sub: wt})
	if err != nil {
		return err
	}
	defer s.pages.Tell(id, &page.Unsubscribe{Sub: wt})
	if sub.TenantID != who.TenantID {
		// Another tenant's page (public pages take anyone's subscription): 404 at
		// once, so a wait tells nothing of when the page is decided.
		return fault.Missing("page", id)
	}
	timedOut := false
	if sub.Status == page.Active {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(timeout + 10*time.Second))
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-wt.done:
		case <-t.C:
			timedOut = true
		case <-r.Context().Done():
			return nil // the client left; nobody to answer
		}
	}
	return s.answerWait(w, r, id, who, timedOut)
}

// answerWait writes the outcome of a wait. The waiters a decision wakes read the
// outcome once between them: one ask of the page, one encoding, however many were
// waiting.
func (s *Server) answerWait(w http.ResponseWriter, r *http.Request, id string, who tenant.Principal, timedOut bool) error {
	body, err := s.outcomes.do(outcomeKey(who, id, timedOut), func() ([]byte, error) {
		return s.outcomeBody(r.Context(), id, who, timedOut)
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
	return nil
}

// outcomeKey names the outcomes one read serves: a page's, for one tenant, timed
// out or not.
func outcomeKey(who tenant.Principal, id string, timedOut bool) string {
	return who.TenantID + "/" + id + "/" + strconv.FormatBool(timedOut)
}

// outcomeBody reads the page as who and encodes its outcome, newline-terminated;
// the bytes are shared by every waiter they answer: written, never changed.
func (s *Server) outcomeBody(ctx context.Context, id string, who tenant.Principal, timedOut bool) ([]byte, error) {
	res, err := registry.Call[*page.Result](ctx, s.pages, id, &page.Get{Caller: callerOf(who)})
	if err != nil {
		return nil, err
	}
	out, err := s.outcome(res.Page, timedOut)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

// flight shares one computation among the callers that ask for the same key while
// it runs (a decision wakes every waiter of a page at once).
type flight struct {
	mu    sync.Mutex
	calls map[string]*flightCall
}

type flightCall struct {
	done chan struct{}
	body []byte
	err  error
}

func (f *flight) do(key string, fn func() ([]byte, error)) ([]byte, error) {
	f.mu.Lock()
	if c, ok := f.calls[key]; ok {
		f.mu.Unlock()
		<-c.done
		return c.body, c.err
	}
	if f.calls == nil {
		f.calls = map[string]*flightCall{}
	}
	c := &flightCall{done: make(chan struct{})}
	f.calls[key] = c
	f.mu.Unlock()
	c.body, c.err = fn()
	f.mu.Lock()
	delete(f.calls, key)
	f.mu.Unlock()
	close(c.done)
	return c.body, c.err
}

// waitTimeout reads ?timeout= (a Go duration such as 60s, or seconds): default
// 30 s, at most 5 minutes.
func waitTimeout(raw string) (time.Duration, error) {
	if raw == "" {
		return defaultWait, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil {
		n, nerr := strconv.Atoi(raw)
		if nerr != nil {
			return 0, fault.Field("timeout", "duration", "timeout is a duration such as 60s, or a number of seconds")
		}
		d = time.Duration(n) * time.Second
	}
	if d <= 0 || d > maxWait {
		return 0, fault.Limit("timeout", "range", int(maxWait.Seconds()), "timeout is between 1s and %s", maxWait)
	}
	return d, nil
}

// waitOutcome is the page's decision as a waiting agent reads it (GET
// /v1/pages/:id/wait); client.Outcome is the one definition of its shape, which
// TestTheServerWritesTheClientsShapes holds this to. Its members are the page's
// own records as the page object writes them (the chain's view, the receipt, the
// edits), so the answer keeps their encodings; they are declared in key order, as
// the map this answer was once built from wrote them.
type waitOutcome struct {
	Actor         *outcomeActor   `json:"actor"`          // null until decided
	ApprovalChain *page.ChainView `json:"approval_chain"` // null without a chain
	Data          *outcomeData    `json:"data"`           // null until decided
	DecidedAt     *time.Time      `json:"decided_at"`
	Decision      *string         `json:"decision"` // approved or rejected once completed, else null
	PageID        string          `json:"pageId"`
	Status        string          `json:"status"`
	TimedOut      bool            `json:"timed_out"` // the wait ran out with the page still active
}

// outcomeData is the action that completed the page, as the action.executed
// callback carries it.
type outcomeData struct {
	ActionID    string          `json:"action_id"`
	ActionLabel string          `json:"action_label"`
	Comment     *string         `json:"comment"` // null without one; may be ""
	ContentHash string          `json:"content_hash"`
	Edits       []page.Edit     `json:"edits,omitempty"` // only when the reviewer corrected blocks
	Final       bool            `json:"final"`
	FormData    json.RawMessage `json:"form_data"` // null without a form
	Outcome     string          `json:"outcome"`
	PageVersion int             `json:"page_version"`
	Receipt     *page.Receipt   `json:"receipt"` // null on a server that signs no checkpoints
}

// outcomeActor is who decided and how that was verified (auth_method null for an
// execution recorded before it was kept), and the key that named them, if one did.
type outcomeActor struct {
	AuthMethod *string      `json:"auth_method"`
	Identity   string       `json:"identity"`
	Key        *page.KeyRef `json:"key,omitempty"`
}

// outcome is the page's decision as a waiting agent reads it: the data of the
// action.executed callback (the action that completed the page), who decided and
// how that was verified, and the page's state. The action's data carries its
// receipt (page/receipt.go) with a signed checkpoint that includes it; null on a
// server that signs no checkpoints or for a decision recorded before receipts.
func (s *Server) outcome(p *page.Page, timedOut bool) (*waitOutcome, error) {
	status := page.EffectiveStatus(p, s.now())
	out := &waitOutcome{PageID: p.ID, Status: status, TimedOut: timedOut && status == page.Active,
		Decision: optString(p.Decision), DecidedAt: p.CompletedAt}
	if c := p.Approval; c != nil {
		v := c.View()
		out.ApprovalChain = &v
	}
	if status != page.Completed || len(p.Executions) == 0 {
		return out, nil
	}
	e := p.Executions[len(p.Executions)-1]
	label := e.ActionID
	for _, a := range p.Actions {
		if a.ActionID == e.ActionID && a.Label != "" {
			label = a.Label
		}
	}
	var receipt *page.Receipt
	if s.audit != nil {
		var err error
		if receipt, err = s.audit.Receipt(p.TenantID, p.ID, e); err != nil {
			return nil, err
		}
	}
	var form json.RawMessage
	if len(e.FormData) > 0 {
		form = e.FormData
	}
	out.Data = &outcomeData{ActionID: e.ActionID, ActionLabel: label, Comment: e.Comment, FormData: form,
		Outcome: e.OutcomeOf(), Final: !e.Step, PageVersion: e.PageVersion, ContentHash: e.ContentHash, Receipt: receipt, Edits: e.Edits}
	// an unknown auth_method (recorded before it was kept) is null
	out.Actor = &outcomeActor{Identity: e.Actor, AuthMethod: optString(e.AuthMethod), Key: e.Key}
	return out, nil
}
