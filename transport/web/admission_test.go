package web_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/httpapi"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestTheCommentFormAndTheAPIShareOneAnonymousBudget: the review page's comment
// form without JavaScript and POST /v1/pages/:id/comments spend one anonymous
// budget per address (transport/admission, one value the node hands both faces):
// two comments by the API and two by the form are an address's four; the form's
// next is refused with the 429, RateLimit-Policy, RateLimit and Retry-After the
// API answers, and the page says that signing in lifts it; the API then refuses
// too, and the agent's key is not counted.
func TestTheCommentFormAndTheAPIShareOneAnonymousBudget(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) {
		c.EnforceLimits, c.AnonPerMinute, c.AnonCommentsPerHour, c.PageAnonComments = true, 1000, 4, 100
	})
	key, _ := e.Register("shared-budget")
	id := e.Publish(key, nil)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := func(text string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", e.Srv.URL+"/p/"+id+"/comments", strings.NewReader(url.Values{"content": {text}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", e.Srv.URL)
		res, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return res, string(raw)
	}
	const policy = `"anonymous_comments";q=4;w=3600`
	for i := range 2 {
		if r := e.Do("POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "by the API"}); r.Status != 201 || r.Header.Get("RateLimit-Policy") != policy {
			t.Fatalf("the API's comment %d: %d, RateLimit-Policy %q", i+1, r.Status, r.Header.Get("RateLimit-Policy"))
		}
	}
	for i := range 2 {
		if res, _ := form("by the form"); res.StatusCode != http.StatusSeeOther || res.Header.Get("RateLimit-Policy") != policy {
			t.Fatalf("the form's comment %d: %d, RateLimit-Policy %q", i+1, res.StatusCode, res.Header.Get("RateLimit-Policy"))
		}
	}
	res, body := form("one too many")
	retry := res.Header.Get("Retry-After")
	if res.StatusCode != 429 || res.Header.Get("RateLimit-Policy") != policy || !strings.HasPrefix(res.Header.Get("RateLimit"), `"anonymous_comments";r=0;`) ||
		retry == "" || retry == "0" {
		t.Fatalf("the fifth comment, by the form: %d %v", res.StatusCode, res.Header)
	}
	if !strings.Contains(body, "without signing in") || !strings.Contains(body, "sign in to comment") {
		t.Fatalf("the form's refusal does not say what to do:\n%s", nodetest.Excerpt([]byte(body), 2000))
	}
	r := e.Do("POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "by the API again"})
	if r.Status != 429 || r.ErrDetails(t)["limit"] != "anonymous_comments" || r.ErrDetails(t)["scope"] != "address" ||
		r.Header.Get("RateLimit-Policy") != policy || r.Header.Get("RateLimit") != res.Header.Get("RateLimit") || r.Header.Get("Retry-After") != retry {
		t.Fatalf("the API after the form spent the budget: %d %v (the form's: %v)", r.Status, r.Header, res.Header)
	}
	e.Must(201, "POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": "the agent's key is not counted"})
}

// openStream opens an event stream with the session cookie: its response (the
// body read through its first n events when it is a stream, else whole) and its
// close.
func openStream(t *testing.T, e *nodetest.Env, path, session, lastID string, n int) (res *http.Response, first string, closeIt func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.Srv.URL+path, nil)
	if session != "" {
		req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: session})
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := e.Srv.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	closeIt = func() { cancel(); _ = res.Body.Close() }
	t.Cleanup(closeIt)
	if res.StatusCode != 200 {
		raw, _ := io.ReadAll(res.Body)
		return res, string(raw), closeIt
	}
	sc := bufio.NewScanner(res.Body)
	var ev []string
	for n > 0 && sc.Scan() {
		if sc.Text() == "" {
			n--
		}
		ev = append(ev, sc.Text())
	}
	return res, strings.Join(ev, "\n"), closeIt
}

// TestAMembersStreamsOnBothFacesCountAsOne: a signed-in member's streams hold
// places of one session whichever face serves them (transport/admission): with
// --streams-per-credential 2, the dashboard's workspace stream (GET /events) and
// an API page stream with the same cookie are the session's two; the person's own
// stream (GET /decide/stream) is then refused with 429 and Retry-After 10, saying
// what to do, and so is the API's next; closing the dashboard's stream gives its
// place back, and the workspace stream reopened after Last-Event-ID 0 replays the
// workspace's events.
func TestAMembersStreamsOnBothFacesCountAsOne(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.EnforceLimits, c.AnonPerMinute, c.StreamsPerCredential = true, 1000, 2 })
	key, ten := e.Register("two-streams")
	session, u := e.SignIn("member@example.com")
	if _, err := registry.Call[*tenant.Claimed](context.Background(), e.Node.Tenants, ten, &tenant.Claim{Person: tenant.Member{UserID: u.ID, Email: u.Email}}); err != nil {
		t.Fatal(err)
	}
	id := e.Publish(key, nil)

	res, first, closeDash := openStream(t, e, "/events?w="+url.QueryEscape(ten), session, "", 1)
	if res.StatusCode != 200 || !strings.Contains(first, `"tenantId":"`+ten+`"`) {
		t.Fatalf("the dashboard's stream: %d %q", res.StatusCode, first)
	}
	if res, first, _ := openStream(t, e, "/v1/pages/"+id+"/events", session, "", 1); res.StatusCode != 200 {
		t.Fatalf("the API's page stream with the cookie: %d %s", res.StatusCode, first)
	}
	res, body, _ := openStream(t, e, "/decide/stream", session, "", 1)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "10" || !strings.Contains(body, "event streams open with this credential") ||
		!strings.Contains(body, "close one") {
		t.Fatalf("the person's stream past the session's two: %d %v\n%s", res.StatusCode, res.Header, nodetest.Excerpt([]byte(body), 2000))
	}
	if res, first, _ := openStream(t, e, "/v1/pages/"+id+"/events", "", "", 1); res.StatusCode != 200 { // no credential: not the session's
		t.Fatalf("an anonymous page stream: %d %s", res.StatusCode, first)
	}
	res, body, _ = openStream(t, e, "/v1/pages/"+id+"/events", session, "", 1)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "10" || !strings.Contains(body, `"scope":"credential"`) {
		t.Fatalf("the API's third stream of the session: %d %v %s", res.StatusCode, res.Header, body)
	}
	closeDash()
	deadline := time.Now().Add(5 * time.Second)
	for {
		res, first, _ := openStream(t, e, "/events?w="+url.QueryEscape(ten), session, "0", 2)
		if res.StatusCode == 200 {
			if !strings.Contains(first, "id: 1") {
				t.Fatalf("the workspace stream after Last-Event-ID 0 begins %q, want the first event replayed", first)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the closed stream's place was not given back: %d %s", res.StatusCode, first)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTheNodesStreamCapAnswersThePagesAsTheAPI: with the node holding all the
// streams it may (--max-open 1), the person's own stream on the pages is 503 with
// the refusal's Retry-After (10 s), as the API's streams are.
func TestTheNodesStreamCapAnswersThePagesAsTheAPI(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.MaxOpen = 1 })
	key, _ := e.Register("full-node")
	id := e.Publish(key, nil)
	session, _ := e.SignIn("reader@example.com")
	if res, first, _ := openStream(t, e, "/v1/pages/"+id+"/events", "", "", 1); res.StatusCode != 200 {
		t.Fatalf("the one stream: %d %s", res.StatusCode, first)
	}
	res, body, _ := openStream(t, e, "/decide/stream", session, "", 1)
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "10" || !strings.Contains(body, "Folio is busy") {
		t.Fatalf("the person's stream on a full node: %d %v\n%s", res.StatusCode, res.Header, nodetest.Excerpt([]byte(body), 2000))
	}
	r := e.Do("GET", "/v1/agent/events", key, nil)
	if r.Status != 503 || r.Header.Get("Retry-After") != "10" {
		t.Fatalf("the agent stream on a full node: %d %v", r.Status, r.Header)
	}
}
