package client_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"folio/transport/client"
)

// callbackHit is one request a receiver got: what ParseCallback made of it, and
// the raw body and headers for checking signatures again.
type callbackHit struct {
	ev     *client.CallbackEvent
	err    error
	body   []byte
	header http.Header
}

// receiver is a callback endpoint whose handler uses ParseCallback, as an agent's
// would: 200 for a verified callback, 401 otherwise.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []callbackHit
}

func newReceiver(t *testing.T, secret string) *receiver {
	rv := &receiver{}
	rv.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var raw bytes.Buffer
		r.Body = io.NopCloser(io.TeeReader(r.Body, &raw))
		ev, err := client.ParseCallback(r, secret)
		rv.mu.Lock()
		rv.hits = append(rv.hits, callbackHit{ev: ev, err: err, body: raw.Bytes(), header: r.Header.Clone()})
		rv.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
		}
	}))
	t.Cleanup(rv.srv.Close)
	return rv
}

// wait returns the n-th (1-based) hit of event once it has arrived.
func (rv *receiver) wait(t *testing.T, event string, n int) callbackHit {
	t.Helper()
	var hit callbackHit
	eventually(t, 5*time.Second, strconv.Itoa(n)+" × "+event, func() bool {
		rv.mu.Lock()
		defer rv.mu.Unlock()
		seen := 0
		for _, h := range rv.hits {
			if h.ev != nil && h.ev.Event == event {
				if seen++; seen == n {
					hit = h
					return true
				}
			}
		}
		return false
	})
	return hit
}

func (rv *receiver) failures() []error {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	var out []error
	for _, h := range rv.hits {
		if h.err != nil {
			out = append(out, h.err)
		}
	}
	return out
}

// strict decodes b into v refusing unknown fields: the client's type covers every
// field the server sends.
func strict(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Errorf("decoding %T strictly: %v\n%s", v, err, b)
	}
}

// TestApprovalChainCallbacksAndDeliveries: a two-step chain is decided through the
// client; a local receiver gets each step's callback, the action's and the chain's,
// every one verified by ParseCallback and decoded into the client's types without
// an unknown field; the delivery log lists them and a manual retry sends the same
// event again.
func TestApprovalChainCallbacksAndDeliveries(t *testing.T) {
	_, c := agent(t, "chain", allowPrivate)
	cx := ctx(t)
	const secret = "chain-secret"
	rv := newReceiver(t, secret)
	req := approvalPage("Open port 443?")
	req.OnAction = &client.OnAction{DefaultURL: rv.srv.URL + "/hook", HMACSecret: secret}
	req.ApprovalChain = &client.ApprovalChainRequest{Mode: "sequential", Steps: []client.ApprovalStepRequest{
		{StepID: "lead", Name: "Team lead", Assignees: []string{"alice@example.com"}},
		{Name: "Security", Assignees: []string{"bob@example.com"}},
	}}
	pub := must(c.Publish(cx, req))(t)
	if len(pub.Warnings) != 0 {
		t.Fatalf("warnings: %v", pub.Warnings)
	}
	id := pub.PageID

	ap := must(c.GetApproval(cx, id))(t)
	if ap.PageID != id || ap.ChainStatus != "in_progress" || ap.CurrentStep != "lead" || len(ap.Steps) != 2 ||
		ap.Steps[1].StepID != "step_2" || ap.Steps[1].Status != "pending" || ap.Steps[1].MinApprovals != 1 {
		t.Fatalf("GetApproval = %+v", ap)
	}
	if p := must(c.GetPage(cx, id))(t); p.ApprovalChain == nil || p.ApprovalChain.CurrentStep != "lead" || p.OnAction == nil || p.OnAction.HMACSecret != "[redacted]" {
		t.Errorf("page read back: chain %+v, on_action %+v", p.ApprovalChain, p.OnAction)
	}

	as := func(who string) client.ActionRequest {
		return client.ActionRequest{Actor: &client.ActionActor{Identity: who}}
	}
	if _, err := c.ExecuteAction(cx, id, "approve", as("bob@example.com")); !client.IsForbidden(err) {
		t.Fatalf("bob deciding the lead's step: %v", err)
	}
	ex := must(c.ExecuteAction(cx, id, "approve", as("alice@example.com")))(t)
	if ex.PageState != (client.PageState{Previous: "active", Current: "active"}) {
		t.Errorf("after step 1: %+v", ex.PageState)
	}
	step := rv.wait(t, client.EventApprovalStepCompleted, 1)
	var ev client.CallbackEvent
	strict(t, step.body, &ev)
	var sd client.StepCompletedData
	strict(t, step.ev.Data, &sd)
	if step.ev.PageID != id || step.ev.EventID == "" || step.ev.Timestamp.IsZero() ||
		sd != (client.StepCompletedData{StepID: "lead", StepName: "Team lead", Decision: "approved", DecidedBy: "alice@example.com", NextStep: "step_2"}) {
		t.Errorf("step_completed = %+v, data %+v", step.ev, sd)
	}
	act := rv.wait(t, client.EventActionExecuted, 1)
	var ad client.ActionExecutedData
	strict(t, act.ev.Data, &ad)
	if ad.ActionID != "approve" || ad.ActionLabel != "Approve" || ad.Decision != "approved" ||
		act.ev.Actor == nil || act.ev.Actor.Identity != "alice@example.com" || act.ev.Actor.AuthMethod != "api_key" ||
		act.ev.Actor.Key == nil || act.ev.Actor.Key.Name != "chain" || // the key that named alice says so

		act.ev.PageState == nil || act.ev.PageState.Current != "active" {
		t.Errorf("action.executed = %+v, data %+v", act.ev, ad)
	}

	must(c.ExecuteAction(cx, id, "approve", as("bob@example.com")))(t)
	done := rv.wait(t, client.EventApprovalChainCompleted, 1)
	var cd client.ChainCompletedData
	strict(t, done.ev.Data, &cd)
	if cd.FinalDecision != "approved" || len(cd.StepsSummary) != 2 || cd.StepsSummary[1] != (client.StepSummary{StepID: "step_2", Decision: "approved"}) {
		t.Errorf("chain_completed data = %+v", cd)
	}
	if ap := must(c.GetApproval(cx, id))(t); ap.ChainStatus != "approved" || ap.CurrentStep != "" || ap.Steps[1].DecidedBy != "bob@example.com" ||
		len(ap.Steps[0].Decisions) != 1 || ap.Steps[0].Decisions[0].Identity != "alice@example.com" || ap.CompletedAt.IsZero() {
		t.Errorf("GetApproval after the chain: %+v", ap)
	}
	if errs := rv.failures(); len(errs) != 0 {
		t.Fatalf("ParseCallback refused a callback of the server: %v", errs)
	}

	var chain client.Delivery
	eventually(t, 5*time.Second, "every delivery succeeded", func() bool {
		dl := must(c.ListDeliveries(cx, id, client.ListOptions{Limit: 50}))(t)
		ok := dl.Total >= 4
		for _, d := range dl.Deliveries {
			ok = ok && d.Status == "succeeded" && d.Channel == "callback" && d.Attempts[0].HTTPStatus == 200
			if d.Event == client.EventApprovalChainCompleted {
				chain = d
			}
		}
		return ok && chain.ID != ""
	})
	q := must(c.RetryDelivery(cx, chain.ID))(t)
	if q.Status != "queued" || q.ID != chain.ID || q.EventID != done.ev.EventID {
		t.Errorf("RetryDelivery = %+v", q)
	}
	again := rv.wait(t, client.EventApprovalChainCompleted, 2)
	if again.ev.EventID != done.ev.EventID || !bytes.Equal(again.body, done.body) {
		t.Errorf("the redelivery differs: %s vs %s", again.body, done.body)
	}
	eventually(t, 5*time.Second, "the manual attempt recorded", func() bool {
		d := must(c.GetDelivery(cx, chain.ID))(t)
		return len(d.Attempts) == 2 && d.Attempts[1].Manual && d.AttemptCount == 2
	})
}

// TestSignaturesVerifyUnderBothSchemes: a real callback verifies by
// X-Service-Signature alone, by the Standard Webhooks headers alone and by both,
// with the secret as given or in its whsec_ form; a tampered body, another secret,
// a stale timestamp or no signature at all fails, each with its own error.
func TestSignaturesVerifyUnderBothSchemes(t *testing.T) {
	_, c := agent(t, "signer", allowPrivate)
	cx := ctx(t)
	const secret = "s3cret-for-tests"
	rv := newReceiver(t, secret)
	req := approvalPage("Signed?")
	req.OnAction = &client.OnAction{DefaultURL: rv.srv.URL, HMACSecret: secret}
	id := must(c.Publish(cx, req))(t).PageID
	must(c.ExecuteAction(cx, id, "approve", client.ActionRequest{Comment: "signed"}))(t)
	hit := rv.wait(t, client.EventActionExecuted, 1)
	if hit.err != nil {
		t.Fatalf("ParseCallback: %v", hit.err)
	}

	only := func(drop ...string) http.Header {
		h := hit.header.Clone()
		for _, k := range drop {
			h.Del(k)
		}
		return h
	}
	service := only("webhook-signature") // X-Service-Signature alone
	standard := only("X-Service-Signature")
	whsec := "whsec_" + base64.StdEncoding.EncodeToString([]byte(secret))
	for name, h := range map[string]http.Header{"both": hit.header, "X-Service-Signature": service, "Standard Webhooks": standard} {
		for _, s := range []string{secret, whsec} {
			if err := client.VerifySignature(hit.body, h, s, client.DefaultTolerance); err != nil {
				t.Errorf("%s with secret %q: %v", name, s, err)
			}
		}
		tampered := bytes.Replace(hit.body, []byte(`"signed"`), []byte(`"forged"`), 1)
		if bytes.Equal(tampered, hit.body) {
			t.Fatalf("the body has no comment to tamper with: %s", hit.body)
		}
		if err := client.VerifySignature(tampered, h, secret, client.DefaultTolerance); !errors.Is(err, client.ErrSignature) {
			t.Errorf("%s, tampered body: %v", name, err)
		}
		if err := client.VerifySignature(hit.body, h, "another-secret", client.DefaultTolerance); !errors.Is(err, client.ErrSignature) {
			t.Errorf("%s, another secret: %v", name, err)
		}
	}

	// An hour-old attempt, genuinely signed: stale, not forged.
	old := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	staleStd := standard.Clone()
	staleStd.Set("webhook-timestamp", old)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(staleStd.Get("webhook-id") + "." + old + "."))
	m.Write(hit.body)
	staleStd.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	staleSvc := service.Clone()
	staleSvc.Set("X-Service-Timestamp", old)
	for name, h := range map[string]http.Header{"Standard Webhooks": staleStd, "X-Service-Signature": staleSvc} {
		if err := client.VerifySignature(hit.body, h, secret, 5*time.Minute); !errors.Is(err, client.ErrTimestamp) {
			t.Errorf("%s an hour old: %v", name, err)
		}
		if err := client.VerifySignature(hit.body, h, secret, 2*time.Hour); err != nil {
			t.Errorf("%s an hour old, tolerance 2h: %v", name, err)
		}
	}
	// The timestamp is signed under Standard Webhooks: changing it alone is a forgery.
	moved := standard.Clone()
	moved.Set("webhook-timestamp", old)
	if err := client.VerifySignature(hit.body, moved, secret, 0); !errors.Is(err, client.ErrSignature) {
		t.Errorf("a changed webhook-timestamp: %v", err)
	}
	if err := client.VerifySignature(hit.body, only("webhook-signature", "X-Service-Signature"), secret, 0); !errors.Is(err, client.ErrUnsigned) {
		t.Errorf("no signature: %v", err)
	}
}
