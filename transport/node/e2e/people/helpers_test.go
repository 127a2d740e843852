package people_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/fakeoauth"
)

// sessionCookie is the cookie that holds a browser's session (httpapi.SessionCookie).
const sessionCookie = "folio_session"

// allowPrivate lets the node deliver callbacks to the loopback receivers of these tests.
func allowPrivate(c *node.Config) { c.AllowPrivateCallbacks = true }

// mailTo sends the node's mail to the test's SMTP listener.
func mailTo(s *nodetest.SMTP) nodetest.Option {
	return func(c *node.Config) { c.SMTPAddr, c.SMTPFrom = s.Addr(), "Folio <noreply@folio.test>" }
}

// providers configures both sign-in providers against the fake.
func providers(f *fakeoauth.Server) nodetest.Option {
	return func(c *node.Config) {
		c.GitHub = node.OAuthConfig{ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret,
			AuthURL: f.GitHubAuthURL(), TokenURL: f.GitHubTokenURL(), APIURL: f.GitHubAPIURL()}
		c.Google = node.OAuthConfig{ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret, Issuer: f.GoogleIssuer()}
	}
}

// sharedWith is an `authenticated` access policy: the e-mail addresses and domains
// given ("corp.test" without an @ is a domain).
func sharedWith(ids ...string) map[string]any {
	var list []any
	for _, id := range ids {
		typ := "email"
		if !strings.Contains(id, "@") {
			typ = "domain"
		}
		list = append(list, map[string]any{"type": typ, "value": id})
	}
	return map[string]any{"mode": "authenticated", "allowed_identities": list}
}

// browser is a client that does not follow redirects (every test looks at the 303
// itself); jar, when set, keeps cookies as a browser does.
func browser(e *nodetest.Env, jar bool) *http.Client {
	c := &http.Client{Transport: e.Srv.Client().Transport, Timeout: 15 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if jar {
		c.Jar, _ = cookiejar.New(nil)
	}
	return c
}

// req is one request a test sends.
type req struct {
	method, path string
	bearer       string // Authorization: Bearer …
	cookie       string // the session cookie's value
	cookies      []*http.Cookie
	csrf         string // X-CSRF-Token
	origin       string // Origin
	accept       string
	body         any // sent as JSON
}

// reply is a finished exchange.
type reply struct {
	nodetest.Response
	Location  string
	SetCookie []string // raw Set-Cookie header values
	Took      time.Duration
}

// cookie is the value the reply set for name ("" when it set none).
func (r reply) cookie(name string) (value string, raw string, ok bool) {
	for _, sc := range r.SetCookie {
		if c, err := http.ParseSetCookie(sc); err == nil && c.Name == name {
			return c.Value, sc, true
		}
	}
	return "", "", false
}

// call sends r to the node with client c (nil: a client that does not follow
// redirects and keeps no cookies). A URL path that starts with "http" is sent as is.
// It may run on any goroutine: a request that gets no answer fails the test with
// Errorf and returns a zero reply.
func call(t testing.TB, e *nodetest.Env, c *http.Client, r req) reply {
	t.Helper()
	if c == nil {
		c = browser(e, false)
	}
	var body io.Reader
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	u := r.path
	if !strings.HasPrefix(u, "http") {
		u = e.Srv.URL + u
	}
	hr, err := http.NewRequest(r.method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.bearer != "" {
		hr.Header.Set("Authorization", "Bearer "+r.bearer)
	}
	if r.cookie != "" {
		hr.AddCookie(&http.Cookie{Name: sessionCookie, Value: r.cookie})
	}
	for _, c := range r.cookies {
		hr.AddCookie(c)
	}
	if r.csrf != "" {
		hr.Header.Set("X-CSRF-Token", r.csrf)
	}
	if r.origin != "" {
		hr.Header.Set("Origin", r.origin)
	}
	if r.accept != "" {
		hr.Header.Set("Accept", r.accept)
	}
	start := time.Now()
	res, err := c.Do(hr)
	if err != nil {
		t.Errorf("%s %s: %v", r.method, r.path, err)
		return reply{}
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	took := time.Since(start)
	return reply{Response: nodetest.Response{Status: res.StatusCode, Header: res.Header, Body: raw},
		Location: res.Header.Get("Location"), SetCookie: res.Header.Values("Set-Cookie"), Took: took}
}

// must is call that fails the test unless the status is want.
func must(t testing.TB, e *nodetest.Env, want int, r req) reply {
	t.Helper()
	got := call(t, e, nil, r)
	if got.Status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", r.method, r.path, got.Status, want, got.Body)
	}
	return got
}

// wantError checks an error reply's status, code and (when given) detail values.
func wantError(t testing.TB, what string, r reply, status int, code string, details map[string]any) {
	t.Helper()
	if r.Status != status || r.ErrCode(t) != code {
		t.Fatalf("%s: %d %s, want %d %s", what, r.Status, r.Body, status, code)
	}
	d := r.ErrDetails(t)
	for k, v := range details {
		if d[k] != v {
			t.Fatalf("%s: details.%s = %v, want %v (%s)", what, k, d[k], v, r.Body)
		}
	}
}

// sendLink is POST /v1/auth/magic-link/send.
func sendLink(t testing.TB, e *nodetest.Env, email, pageID, redirect string) reply {
	t.Helper()
	body := map[string]any{"email": email}
	if pageID != "" {
		body["pageId"] = pageID
	}
	if redirect != "" {
		body["redirectUrl"] = redirect
	}
	return call(t, e, nil, req{method: "POST", path: "/v1/auth/magic-link/send", body: body})
}

// wantSent checks the one answer the send route gives whoever the address is.
func wantSent(t testing.TB, r reply) {
	t.Helper()
	if r.Status != 200 || string(r.Body) != `{"sent":true}`+"\n" {
		t.Fatalf("magic-link send: %d %q, want 200 {\"sent\":true}", r.Status, r.Body)
	}
}

// inbox hands out each mail the SMTP listener received once: next is the first
// mail to an address that was not handed out before.
type inbox struct {
	*nodetest.SMTP
	mu    sync.Mutex
	taken map[string]bool // by raw message
}

func newInbox(t testing.TB) *inbox {
	return &inbox{SMTP: nodetest.StartSMTP(t), taken: map[string]bool{}}
}

func (in *inbox) next(t testing.TB, to string) nodetest.Mail {
	t.Helper()
	m := in.Wait(t, 10*time.Second, func(m nodetest.Mail) bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		return len(m.To) == 1 && m.To[0] == to && !in.taken[m.Raw]
	})
	in.mu.Lock()
	in.taken[m.Raw] = true
	in.mu.Unlock()
	return m
}

// to counts the mails received for an address.
func (in *inbox) to(addr string) int {
	n := 0
	for _, m := range in.Messages() {
		for _, r := range m.To {
			if r == addr {
				n++
			}
		}
	}
	return n
}

var linkRE = regexp.MustCompile(`http://[0-9.:]+/login/link#ml_[0-9A-Za-z]+`)

// linkIn is the sign-in link of a mail (in its text part) and checks that it leads
// to the node, with the token only after # (a browser never sends it).
func linkIn(t testing.TB, e *nodetest.Env, m nodetest.Mail) string {
	t.Helper()
	link := linkRE.FindString(m.Text)
	if link == "" || !strings.HasPrefix(link, e.Srv.URL+"/login/link#ml_") {
		t.Fatalf("no sign-in link to %s in the mail:\n%s", e.Srv.URL, m.Text)
	}
	return link
}

// tokenOf is the token of a mailed link: what follows the #.
func tokenOf(link string) string { return link[strings.IndexByte(link, '#')+1:] }

// follow uses a link from a mail as the landing page's script does (it posts the
// token to POST /v1/auth/magic-link/verify) in a browser that holds the session
// cookie `had` ("" for none).
func follow(t testing.TB, e *nodetest.Env, link, had string) reply {
	t.Helper()
	return call(t, e, nil, req{method: "POST", path: "/v1/auth/magic-link/verify", cookie: had, body: map[string]any{"token": tokenOf(link)}})
}

// signIn signs email in by a mailed link (no page) and returns the session token.
func signIn(t testing.TB, e *nodetest.Env, in *inbox, email string) string {
	t.Helper()
	wantSent(t, sendLink(t, e, email, "", ""))
	r := follow(t, e, linkIn(t, e, in.next(t, email)), "")
	token, _, ok := r.cookie(sessionCookie)
	if r.Status != 303 || !ok || !strings.HasPrefix(token, "sess_") {
		t.Fatalf("following %s's link: %d %v", email, r.Status, r.SetCookie)
	}
	return token
}

// me is GET /v1/auth/me with a bearer credential.
func me(t testing.TB, e *nodetest.Env, bearer string) reply {
	t.Helper()
	return call(t, e, nil, req{method: "GET", path: "/v1/auth/me", bearer: bearer})
}

var csrfRE = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`)

// csrfOf is the CSRF token a page for people gives its script.
func csrfOf(t testing.TB, html []byte) string {
	t.Helper()
	m := csrfRE.FindSubmatch(html)
	if m == nil {
		t.Fatalf("no <meta name=\"csrf-token\"> in the page:\n%s", nodetest.Excerpt(html, 2000))
	}
	return string(m[1])
}

// hook is a callback receiver on 127.0.0.1 that hands over each body it gets.
type hook struct {
	srv  *httptest.Server
	hits chan map[string]any
}

func newHook(t testing.TB) *hook {
	t.Helper()
	h := &hook{hits: make(chan map[string]any, 64)}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err == nil {
			select {
			case h.hits <- m:
			default:
			}
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) URL() string { return h.srv.URL + "/hook" }

// next is the next callback of event type event (others are skipped).
func (h *hook) next(t testing.TB, event string) map[string]any {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-h.hits:
			if m["event"] == event {
				return m
			}
		case <-timeout:
			t.Fatalf("no %s callback within 10s", event)
			return nil
		}
	}
}

// wantActor checks the actor of an action.executed callback.
func wantActor(t testing.TB, cb map[string]any, identity, method string) {
	t.Helper()
	a, _ := cb["actor"].(map[string]any)
	if a["identity"] != identity || a["auth_method"] != method {
		t.Fatalf("callback actor = %v, want identity %s, auth_method %s", cb["actor"], identity, method)
	}
}

// stream is an open SSE stream: each data line, then closed when the server ends it.
type stream struct {
	data   chan string
	done   chan struct{}
	cancel context.CancelFunc
}

// openStream opens an SSE stream with a bearer credential (may be "") and fails
// unless it is 200.
func openStream(t testing.TB, e *nodetest.Env, path, bearer string) *stream {
	t.Helper()
	s, status, body := dialStream(t, e, path, bearer)
	if status != 200 {
		t.Fatalf("open %s: %d %s", path, status, body)
	}
	return s
}

// dialStream opens an SSE stream and reads it in the background; a stream that
// does not open (status other than 200) is nil, with the answer's body.
func dialStream(t testing.TB, e *nodetest.Env, path, bearer string) (*stream, int, []byte) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hr, _ := http.NewRequestWithContext(ctx, "GET", e.Srv.URL+path, nil)
	hr.Header.Set("Accept", "text/event-stream")
	if bearer != "" {
		hr.Header.Set("Authorization", "Bearer "+bearer)
	}
	res, err := e.Srv.Client().Transport.RoundTrip(hr)
	if err != nil {
		cancel()
		t.Errorf("open %s: %v", path, err)
		return nil, 0, nil
	}
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		return nil, res.StatusCode, b
	}
	s := &stream{data: make(chan string, 256), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				select {
				case s.data <- d:
				default: // nobody reads this stream's frames
				}
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-s.done })
	return s, 200, nil
}

// expect reads data lines until one contains want and returns it.
func (s *stream) expect(t testing.TB, want string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	var seen []string
	for {
		select {
		case d := <-s.data:
			if strings.Contains(d, want) {
				return d
			}
			seen = append(seen, d)
		case <-s.done:
			t.Fatalf("the stream ended without %s (saw %v)", want, seen)
		case <-timeout:
			t.Fatalf("no %s on the stream within 10s (saw %v)", want, seen)
		}
	}
}

// endsWith checks that the stream's next data line is exactly final and that the
// server then closes the stream, within d.
func (s *stream) endsWith(t testing.TB, final string, d time.Duration) {
	t.Helper()
	timeout := time.After(d)
	select {
	case got := <-s.data:
		if got != final {
			t.Fatalf("final frame %s, want %s", got, final)
		}
	case <-timeout:
		t.Fatalf("no final frame within %s", d)
	}
	select {
	case <-s.done:
	case <-timeout:
		t.Fatalf("the stream stayed open after its final frame")
	}
	select {
	case extra := <-s.data:
		t.Fatalf("a frame after the final one: %s", extra)
	default:
	}
}

// errMessage is an error reply's message.
func (r reply) ErrMessage(t testing.TB) string {
	t.Helper()
	m, _ := r.JSON(t)["error"].(map[string]any)
	s, _ := m["message"].(string)
	return s
}

// metric is the sum of every series of the metric name on the node's /metrics.
func metric(t testing.TB, e *nodetest.Env, name string) float64 {
	t.Helper()
	r := call(t, e, nil, req{method: "GET", path: "/metrics"})
	sum, found := 0.0, false
	for _, line := range strings.Split(string(r.Body), "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		v, err := strconv.ParseFloat(rest[strings.LastIndexByte(rest, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		sum, found = sum+v, true
	}
	if !found {
		t.Fatalf("no %s on /metrics", name)
	}
	return sum
}
