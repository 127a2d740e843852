package people_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// Decision links in notification mails (actors/maillink, transport/web/decision_link.go).

var decisionLinkRE = regexp.MustCompile(`(Approve|Reject): (http://[0-9.:]+/a/fdl_[A-Z2-7]+)`)

// decisionLinks are the links of a mail's text part, by action label; the HTML
// part must carry the same addresses.
func decisionLinks(t testing.TB, e *nodetest.Env, m nodetest.Mail) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, sm := range decisionLinkRE.FindAllStringSubmatch(m.Text, -1) {
		if !strings.HasPrefix(sm[2], e.Srv.URL+"/a/fdl_") {
			t.Fatalf("link %s does not lead to the node %s", sm[2], e.Srv.URL)
		}
		if !strings.Contains(m.HTML, `href="`+sm[2]+`"`) {
			t.Errorf("the HTML part lacks the link %s:\n%s", sm[2], m.HTML)
		}
		out[sm[1]] = sm[2]
	}
	return out
}

// publishNotifying publishes an approval page that mails each address (and calls
// back hook) and returns its id.
func publishNotifying(t testing.TB, e *nodetest.Env, key string, h *hook, extra map[string]any, to ...string) string {
	t.Helper()
	var channels []any
	for _, a := range to {
		channels = append(channels, map[string]any{"type": "email", "target": a})
	}
	body := map[string]any{
		"title": "Deploy v2 to production?", "summary": "All checks passed. <b>bold</b>", "page_type": "approval",
		"blocks": []any{
			map[string]any{"type": "text", "data": map[string]any{"content": "Ready to ship."}},
			map[string]any{"type": "key_value", "data": map[string]any{"pairs": []any{map[string]any{"key": "Service", "value": "billing-api"}}}},
			map[string]any{"type": "table", "data": map[string]any{"columns": []any{map[string]any{"key": "env", "label": "Env"}},
				"rows": []any{map[string]any{"env": "eu-1"}, map[string]any{"env": "us-2"}}}},
		},
		"actions": []any{
			map[string]any{"action_id": "approve", "label": "Approve", "style": "primary", "decision": "approve"},
			map[string]any{"action_id": "reject", "label": "Reject", "style": "danger", "decision": "reject"},
		},
		"notify":    map[string]any{"channels": channels},
		"on_action": map[string]any{"default_url": h.URL()},
	}
	for k, v := range extra {
		body[k] = v
	}
	return e.Must(201, "POST", "/v1/publish", key, body)["pageId"].(string)
}

var hiddenCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// openLink opens link in browser c (GET, as a person does) and returns the
// confirmation form's csrf.
func openLink(t testing.TB, e *nodetest.Env, c *http.Client, link string) string {
	t.Helper()
	if link == "" {
		t.Fatal("no link in the mail")
	}
	got := call(t, e, c, req{method: "GET", path: link})
	m := hiddenCSRF.FindSubmatch(got.Body)
	if got.Status != 200 || m == nil {
		t.Fatalf("GET %s: %d, no confirmation form:\n%s", link, got.Status, nodetest.Excerpt(got.Body, 1500))
	}
	return string(m[1])
}

// confirmLink opens link in browser c (GET, as a person does) and posts its
// confirmation from there.
func confirmLink(t testing.TB, e *nodetest.Env, c *http.Client, link string) reply {
	t.Helper()
	return postConfirm(t, e, c, link, openLink(t, e, c, link))
}

func postConfirm(t testing.TB, e *nodetest.Env, c *http.Client, link, csrf string) reply {
	t.Helper()
	hr, _ := http.NewRequest("POST", link, strings.NewReader(url.Values{"csrf": {csrf}}.Encode()))
	hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	hr.Header.Set("Origin", e.Srv.URL)
	res, err := c.Do(hr)
	if err != nil {
		t.Fatalf("POST %s: %v", link, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return reply{Response: nodetest.Response{Status: res.StatusCode, Header: res.Header, Body: raw},
		Location: res.Header.Get("Location"), SetCookie: res.Header.Values("Set-Cookie")}
}

func pageStatus(e *nodetest.Env, key, id string) (status string, actions int) {
	p := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	n, _ := p["stats"].(map[string]any)["action_count"].(float64)
	return p["status"].(string), int(n)
}

func auditEntries(e *nodetest.Env, key, id, typ string) []map[string]any {
	var out []map[string]any
	for _, it := range e.Must(200, "GET", "/v1/pages/"+id+"/audit?per_page=200", key, nil)["items"].([]any) {
		if en := it.(map[string]any); en["event_type"] == typ {
			out = append(out, en)
		}
	}
	return out
}

// TestMailCarriesDecisionLinksAndAGetNeverDecides: the notification mail shows the
// summary and key blocks and carries one link per action; GET and HEAD of a link
// show the confirmation and change nothing (the link keeps working); confirming
// decides as the mailed address with auth_method email_link (audit and callback),
// signs the person in, and the link is spent.
func TestMailCarriesDecisionLinksAndAGetNeverDecides(t *testing.T) {
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), allowPrivate)
	key, _ := e.Register("mail-decider")
	h := newHook(t)
	id := publishNotifying(t, e, key, h, nil, "alice@example.com")
	m := in.next(t, "alice@example.com")
	links := decisionLinks(t, e, m)
	if len(links) != 2 || links["Approve"] == "" || links["Reject"] == "" || links["Approve"] == links["Reject"] {
		t.Fatalf("links = %v, want one per action:\n%s", links, m.Text)
	}
	for _, want := range []string{"All checks passed. <b>bold</b>", "Ready to ship.", "Service: billing-api", "eu-1", "us-2"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the text part lacks %q:\n%s", want, m.Text)
		}
	}
	if !strings.Contains(m.HTML, "&lt;b&gt;bold&lt;/b&gt;") || strings.Contains(m.HTML, "<b>bold</b>") || !strings.Contains(m.HTML, "billing-api") {
		t.Errorf("the HTML part does not show the agent's text escaped:\n%s", m.HTML)
	}
	// The delivery log shows the mail without any token.
	for _, d := range e.Must(200, "GET", "/v1/pages/"+id+"/deliveries", key, nil)["deliveries"].([]any) {
		if b := string(mustJSON(d)); strings.Contains(b, "fdl_") {
			t.Errorf("the delivery log holds a link token: %s", b)
		}
	}

	approve := links["Approve"]
	for range 2 {
		for _, method := range []string{"GET", "HEAD"} {
			r := call(t, e, nil, req{method: method, path: approve})
			if r.Status != 200 || r.Header.Get("Referrer-Policy") != "no-referrer" {
				t.Fatalf("%s %s: %d %v", method, approve, r.Status, r.Header)
			}
			if method == "GET" {
				for _, want := range []string{"Deploy v2 to production?", "Confirm: Approve", "alice@example.com", "All checks passed."} {
					if !strings.Contains(string(r.Body), want) {
						t.Errorf("the confirmation lacks %q:\n%s", want, nodetest.Excerpt(r.Body, 3000))
					}
				}
			}
		}
	}
	if st, n := pageStatus(e, key, id); st != "active" || n != 0 {
		t.Fatalf("after GET and HEAD of the link: status %s, %d executions; want active, 0", st, n)
	}

	c := browser(e, true)
	r := confirmLink(t, e, c, approve)
	if r.Status != 303 || r.Location != "/p/"+id+"#state" {
		t.Fatalf("confirming: %d %s\n%s", r.Status, r.Location, nodetest.Excerpt(r.Body, 1500))
	}
	if tok, _, ok := r.cookie(sessionCookie); !ok || !strings.HasPrefix(tok, "sess_") {
		t.Errorf("confirming did not sign in: %v", r.SetCookie)
	}
	cb := h.next(t, "action.executed")
	wantActor(t, cb, "alice@example.com", "email_link")
	ex := auditEntries(e, key, id, "action.executed")
	if len(ex) != 1 || ex[0]["actor"] != "user:alice@example.com" || ex[0]["details"].(map[string]any)["auth_method"] != "email_link" ||
		ex[0]["details"].(map[string]any)["page_version"] != float64(1) {
		t.Errorf("audit = %v", ex)
	}
	if st, n := pageStatus(e, key, id); st != "completed" || n != 1 {
		t.Errorf("after confirming: status %s, %d executions", st, n)
	}
	// The session opens the page.
	if p := call(t, e, c, req{method: "GET", path: "/p/" + id}); p.Status != 200 || !strings.Contains(string(p.Body), "alice@example.com") {
		t.Errorf("the page after confirming: %d", p.Status)
	}

	// The link is spent: a second confirm, and a GET, say so and decide nothing.
	if again := postConfirm(t, e, c, approve, "x"); again.Status != 403 {
		t.Errorf("a confirm with a wrong csrf: %d", again.Status)
	}
	r = call(t, e, c, req{method: "GET", path: approve})
	if r.Status != 410 || !strings.Contains(string(r.Body), "already used") || !strings.Contains(string(r.Body), `href="/p/`+id+`"`) {
		t.Errorf("GET of a used link: %d\n%s", r.Status, nodetest.Excerpt(r.Body, 1500))
	}
	// The other action's link: the page is decided.
	r = call(t, e, c, req{method: "GET", path: links["Reject"]})
	if r.Status != 200 || !strings.Contains(string(r.Body), "already decided") || strings.Contains(string(r.Body), `name="csrf"`) {
		t.Errorf("GET of the other link after the decision: %d\n%s", r.Status, nodetest.Excerpt(r.Body, 1500))
	}
	// A made-up token.
	if r := call(t, e, nil, req{method: "GET", path: "/a/fdl_AAAAAAAAAAAAAAAAAAAAAAAAAA"}); r.Status != 404 || !strings.Contains(string(r.Body), "does not work") {
		t.Errorf("an unknown link: %d", r.Status)
	}
	if st, n := pageStatus(e, key, id); st != "completed" || n != 1 {
		t.Errorf("at the end: status %s, %d executions", st, n)
	}
}

// TestDecisionLinkConfirmedTwiceOrRacingTheReviewPageHasOneWinner: the same link
// confirmed twice at once, and a link confirmed while the review page decides,
// give one decision; the loser is told the page was decided (or the link used).
func TestDecisionLinkConfirmedTwiceOrRacingTheReviewPageHasOneWinner(t *testing.T) {
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), allowPrivate)
	key, _ := e.Register("mail-race")
	h := newHook(t)

	// The same link, twice at once (two browsers that both opened it).
	id := publishNotifying(t, e, key, h, nil, "alice@example.com")
	link := decisionLinks(t, e, in.next(t, "alice@example.com"))["Approve"]
	var mu sync.Mutex
	var codes []int
	var wg sync.WaitGroup
	type opened struct {
		c    *http.Client
		csrf string
	}
	var browsers []opened
	for range 2 {
		c := browser(e, true)
		browsers = append(browsers, opened{c, openLink(t, e, c, link)})
	}
	for _, b := range browsers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := postConfirm(t, e, b.c, link, b.csrf)
			mu.Lock()
			codes = append(codes, r.Status)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if !(codes[0] == 303 && codes[1] == 410 || codes[0] == 410 && codes[1] == 303) {
		t.Errorf("two confirms of one link: %v, want one 303 and one 410", codes)
	}
	if _, n := pageStatus(e, key, id); n != 1 {
		t.Errorf("%d executions, want 1", n)
	}

	// A link against the review page's form (a person deciding there).
	id = publishNotifying(t, e, key, h, nil, "alice@example.com")
	link = decisionLinks(t, e, in.next(t, "alice@example.com"))["Approve"]
	c := browser(e, true)
	csrf := openLink(t, e, c, link)
	var viaLink, viaPage int
	wg.Add(2)
	go func() {
		defer wg.Done()
		viaLink = postConfirm(t, e, c, link, csrf).Status
	}()
	go func() {
		defer wg.Done()
		hr, _ := http.NewRequest("POST", e.Srv.URL+"/p/"+id+"/act", strings.NewReader(url.Values{"action": {"reject"}, "actor_identity": {"Bob"}, "confirm": {"yes"}}.Encode()))
		hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := browser(e, false).Do(hr)
		if err != nil {
			t.Error(err)
			return
		}
		res.Body.Close()
		viaPage = res.StatusCode
	}()
	wg.Wait()
	if !(viaLink == 303 && viaPage == 409 || viaLink == 409 && viaPage == 303) {
		t.Errorf("link %d, review page %d: want one 303 and one 409", viaLink, viaPage)
	}
	if _, n := pageStatus(e, key, id); n != 1 {
		t.Errorf("%d executions, want 1", n)
	}
}

// TestDecisionLinkAfterThePageChangedDecidesNothing: the link is bound to the
// version the mail showed; after the agent changes the page, GET and POST say the
// page changed and link to it, and nothing is decided.
func TestDecisionLinkAfterThePageChangedDecidesNothing(t *testing.T) {
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), allowPrivate)
	key, _ := e.Register("mail-changed")
	h := newHook(t)
	id := publishNotifying(t, e, key, h, nil, "alice@example.com")
	link := decisionLinks(t, e, in.next(t, "alice@example.com"))["Approve"]
	c := browser(e, true)
	csrf := openLink(t, e, c, link)
	e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"summary": "Checks re-run: one failed."})
	for _, r := range []reply{call(t, e, c, req{method: "GET", path: link}), postConfirm(t, e, c, link, csrf)} {
		if r.Status != 409 || !strings.Contains(string(r.Body), "changed since your e-mail") || !strings.Contains(string(r.Body), "version 2") ||
			!strings.Contains(string(r.Body), `href="/p/`+id+`"`) {
			t.Errorf("the link after a change: %d\n%s", r.Status, nodetest.Excerpt(r.Body, 1500))
		}
	}
	if st, n := pageStatus(e, key, id); st != "active" || n != 0 {
		t.Errorf("status %s, %d executions: want active, 0", st, n)
	}
}

// TestReminderLinksExpireWithTheDeadline: a reminder mail carries links too; a link
// works until the page's deadline (here sooner than its expiry); after it, it says
// it expired and decides nothing.
func TestReminderLinksExpireWithTheDeadline(t *testing.T) {
	in := newInbox(t)
	clk := nodetest.NewClock(time.Now().UTC().Truncate(time.Second))
	e := nodetest.Open(t, t.TempDir(), clk, mailTo(in.SMTP), allowPrivate)
	key, _ := e.Register("mail-expiry")
	h := newHook(t)
	id := publishNotifying(t, e, key, h, map[string]any{"due_in": 600, "remind": map[string]any{"every_seconds": 60, "max": 1}}, "alice@example.com")
	first := decisionLinks(t, e, in.next(t, "alice@example.com"))["Approve"]
	// The reminder carries links of its own.
	clk.Advance(61 * time.Second)
	m := in.next(t, "alice@example.com")
	link := decisionLinks(t, e, m)["Approve"]
	if !strings.HasPrefix(m.Subject, "Reminder: ") || link == "" || link == first {
		t.Fatalf("the reminder %q carries links %v (the first mail's: %s)", m.Subject, decisionLinks(t, e, m), first)
	}
	c := browser(e, true)
	csrf := openLink(t, e, c, link)
	clk.Advance(601 * time.Second)
	for _, r := range []reply{call(t, e, c, req{method: "GET", path: link}), postConfirm(t, e, c, link, csrf)} {
		if r.Status != 410 || !strings.Contains(string(r.Body), "expired") {
			t.Errorf("the link after the deadline: %d\n%s", r.Status, nodetest.Excerpt(r.Body, 1500))
		}
	}
	if _, n := pageStatus(e, key, id); n != 0 {
		t.Errorf("%d executions, want 0", n)
	}
}

// TestChainStepDecidedFromAMailLinkOnlyByItsAssignee: the step's assignee approves
// step 1 from the mail (recorded as email_link); a non-assignee's link is refused
// with a page that says why, and changes nothing.
func TestChainStepDecidedFromAMailLinkOnlyByItsAssignee(t *testing.T) {
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), allowPrivate)
	key, _ := e.Register("mail-chain")
	h := newHook(t)
	id := publishNotifying(t, e, key, h, map[string]any{"approval_chain": map[string]any{"mode": "sequential", "steps": []any{
		map[string]any{"step_id": "lead", "assignees": []any{"alice@example.com"}},
		map[string]any{"step_id": "sec", "assignees": []any{"bob@example.com"}},
	}}}, "alice@example.com", "mallory@example.com")

	r := confirmLink(t, e, browser(e, true), decisionLinks(t, e, in.next(t, "mallory@example.com"))["Approve"])
	if r.Status != 403 || !strings.Contains(string(r.Body), "not recorded") || !strings.Contains(string(r.Body), `href="/p/`+id+`"`) {
		t.Errorf("a non-assignee's link: %d\n%s", r.Status, nodetest.Excerpt(r.Body, 1500))
	}
	if _, n := pageStatus(e, key, id); n != 0 {
		t.Fatalf("%d executions after the non-assignee, want 0", n)
	}

	r = confirmLink(t, e, browser(e, true), decisionLinks(t, e, in.next(t, "alice@example.com"))["Approve"])
	if r.Status != 303 {
		t.Fatalf("the assignee's link: %d\n%s", r.Status, nodetest.Excerpt(r.Body, 1500))
	}
	sc := h.next(t, "approval.step_completed")
	if d := sc["data"].(map[string]any); d["step_id"] != "lead" || d["decided_by"] != "alice@example.com" {
		t.Errorf("step_completed = %v", sc)
	}
	ap := e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)
	s0 := ap["steps"].([]any)[0].(map[string]any)
	dec := s0["decisions"].([]any)[0].(map[string]any)
	if ap["current_step"] != "sec" || dec["identity"] != "alice@example.com" || dec["auth_method"] != "email_link" {
		t.Errorf("approval after the link = %v", ap)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
