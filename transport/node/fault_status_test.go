package node_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

// TestAFaultHasOneStatusOnBothFaces: what the API refuses with a status, the page
// for people refuses with the same one, and says what to do next: a store that
// does not answer is 503 with Retry-After on the review page, the page's decision
// form and the API; a body over the limit is 413 on both; an unknown page is 404.
func TestAFaultHasOneStatusOnBothFaces(t *testing.T) {
	flaky := &flakyStore{}
	e := nodetest.New(t, flaky.option)
	key, _ := e.Register("faces")
	id := e.Publish(key, map[string]any{"visibility": "public"})
	e = e.Reopen(flaky.option) // nothing in memory: the page is read from the store

	browser := func(method, path string, form url.Values) (int, http.Header, string) {
		t.Helper()
		var body *strings.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		} else {
			body = strings.NewReader("")
		}
		req, err := http.NewRequest(method, e.Srv.URL+path, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/html")
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", e.Srv.URL)
		}
		res, err := e.Srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		buf := make([]byte, 64<<10)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return res.StatusCode, res.Header, b.String()
	}

	type face struct {
		what   string
		status int
		header http.Header
		body   string
	}
	same := func(fault string, want int, next string, faces ...face) {
		t.Helper()
		for _, f := range faces {
			if f.status != want {
				t.Errorf("%s: %s answers %d, want %d", fault, f.what, f.status, want)
			}
			if want == http.StatusServiceUnavailable && f.header.Get("Retry-After") == "" {
				t.Errorf("%s: %s has no Retry-After", fault, f.what)
			}
			if strings.HasPrefix(f.header.Get("Content-Type"), "text/html") && !strings.Contains(f.body, next) {
				t.Errorf("%s: %s does not say %q: %.300s", fault, f.what, next, f.body)
			}
		}
	}

	flaky.failing.Store(true)
	r := e.Do("GET", "/v1/pages/"+id, key, nil)
	st, h, b := browser("GET", "/p/"+id, nil)
	st2, h2, b2 := browser("POST", "/p/"+id+"/act", url.Values{"action": {"approve"}, "actor_identity": {"reviewer@example.com"}})
	same("the store does not answer", http.StatusServiceUnavailable, "try again in a moment",
		face{"the API", r.Status, r.Header, ""}, face{"the review page", st, h, b}, face{"a decision posted from the page", st2, h2, b2})
	flaky.failing.Store(false)

	huge := strings.Repeat("x", 2<<20)
	r = e.Do("POST", "/v1/pages", key, map[string]any{"title": huge})
	st, h, b = browser("POST", "/p/"+id+"/act", url.Values{"action": {"approve"}, "comment": {huge}})
	same("a body over the limit", http.StatusRequestEntityTooLarge, "Go back",
		face{"the API", r.Status, r.Header, ""}, face{"a decision posted from the page", st, h, b})

	r = e.Do("GET", "/v1/pages/pg_nothere", key, nil)
	st, h, b = browser("GET", "/p/pg_nothere", nil)
	same("an unknown page", http.StatusNotFound, "not found",
		face{"the API", r.Status, r.Header, ""}, face{"the review page", st, h, b})
}
