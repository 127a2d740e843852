package web_test

import (
	"io"
	"net/url"
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

// TestTheSignInFormAndTheAPIShareOneLinkBudget: the sign-in page's form and the
// API's POST /v1/auth/magic-link/send apply one rule (actors/people/signin) to one
// budget: three links asked for by the API and two by the form are an address's
// five; the form's next is refused with the same 429, RateLimit-Policy and
// Retry-After the API answers, and the page says what to do; the API then refuses
// too.
func TestTheSignInFormAndTheAPIShareOneLinkBudget(t *testing.T) {
	e := nodetest.New(t) // no SMTP: mails go to the outbox directory
	form := func() (status int, policy, retry, body string) {
		res, err := e.Srv.Client().PostForm(e.Srv.URL+"/login", url.Values{"email": {"bob@example.com"}, "next": {"/"}})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("RateLimit-Policy"), res.Header.Get("Retry-After"), string(raw)
	}
	for range 3 {
		e.Must(200, "POST", "/v1/auth/magic-link/send", "", map[string]any{"email": "Bob@example.com"})
	}
	for i := range 2 {
		if status, policy, _, _ := form(); status != 200 || policy != `"sign_in_links";q=20;w=900` {
			t.Fatalf("the form's link %d: %d, RateLimit-Policy %q", i+1, status, policy)
		}
	}
	status, policy, retry, body := form()
	if status != 429 || policy != `"sign_in_links";q=5;w=900` || retry == "" || retry == "0" {
		t.Fatalf("the sixth link, by the form: %d, RateLimit-Policy %q, Retry-After %q", status, policy, retry)
	}
	if !strings.Contains(body, "too many attempts") || !strings.Contains(body, "retry in") {
		t.Fatalf("the form's refusal does not say when to try again:\n%s", body)
	}
	r := e.Do("POST", "/v1/auth/magic-link/send", "", map[string]any{"email": "bob@example.com"})
	if r.Status != 429 || r.Header.Get("RateLimit-Policy") != policy || r.Header.Get("Retry-After") == "" {
		t.Fatalf("the API after the form spent the budget: %d, RateLimit-Policy %q, Retry-After %q", r.Status, r.Header.Get("RateLimit-Policy"), r.Header.Get("Retry-After"))
	}
}
