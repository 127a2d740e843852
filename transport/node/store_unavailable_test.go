package node_test

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// flakyStore makes the node's store reads fail while it is set: a shared store
// restarting, a dropped connection.
type flakyStore struct{ failing atomic.Bool }

func (f *flakyStore) fault() error {
	if f.failing.Load() {
		return errors.New("injected: the store is restarting")
	}
	return nil
}

func (f *flakyStore) option(c *node.Config) { c.ReadFault = f.fault }

// A store that does not answer is "try again" (503 with Retry-After), never 401 for
// a valid key or session, never 404 for a page that exists, never a signed-out
// person; once it answers again, the same requests succeed with the same key,
// session and page.
func TestStoreReadFailureIsTryAgainNotUnauthorizedOrNotFound(t *testing.T) {
	flaky := &flakyStore{}
	e := nodetest.New(t, flaky.option)
	key, _ := e.Register("flaky")
	id := e.Publish(key, map[string]any{"visibility": "public"})
	session, _ := e.SignIn("reviewer@example.com")
	// A node that has nothing in memory yet (just restarted): every credential and
	// the page are read from the store.
	e = e.Reopen(flaky.option)

	cookie := func(method, path string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, e.Srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(&http.Cookie{Name: "folio_session", Value: session})
		res, err := e.Srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	tryAgain := func(what string, status int, h http.Header, code string) {
		t.Helper()
		if status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
			t.Errorf("%s while the store fails = %d (Retry-After %q), want 503 with Retry-After", what, status, h.Get("Retry-After"))
		}
		if code != "" && code != "SERVICE_UNAVAILABLE" {
			t.Errorf("%s while the store fails: code %s, want SERVICE_UNAVAILABLE", what, code)
		}
	}
	check := func(want int) {
		t.Helper()
		r := e.Do("GET", "/v1/tenant", key, nil)
		if want == 503 {
			tryAgain("an API key's request", r.Status, r.Header, r.ErrCode(t))
		} else if r.Status != want {
			t.Errorf("an API key's request = %d, want %d: %s", r.Status, want, r.Body)
		}
		r = e.Do("GET", "/v1/auth/me", session, nil)
		if want == 503 {
			tryAgain("a session token's request", r.Status, r.Header, r.ErrCode(t))
		} else if r.Status != want {
			t.Errorf("a session token's request = %d, want %d: %s", r.Status, want, r.Body)
		}
		res := cookie("GET", "/v1/auth/me")
		if want == 503 {
			tryAgain("a session cookie's request", res.StatusCode, res.Header, "")
		} else if res.StatusCode != want {
			t.Errorf("a session cookie's request = %d, want %d", res.StatusCode, want)
		}
		if len(res.Header.Values("Set-Cookie")) > 0 {
			t.Errorf("a session cookie's request changed the cookie: %q", res.Header.Values("Set-Cookie"))
		}
	}

	flaky.failing.Store(true)
	check(503)
	// The page, with the key known to the node: the page's own read fails.
	flaky.failing.Store(false)
	e.Must(200, "GET", "/v1/tenant", key, nil)
	flaky.failing.Store(true)
	r := e.Do("GET", "/v1/pages/"+id, key, nil)
	tryAgain("reading the page by API", r.Status, r.Header, r.ErrCode(t))
	res := cookie("GET", "/p/"+id)
	tryAgain("opening the page in the browser", res.StatusCode, res.Header, "")

	flaky.failing.Store(false)
	check(200)
	e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	if res := cookie("GET", "/p/"+id); res.StatusCode != 200 {
		t.Errorf("the page in the browser once the store answers = %d, want 200", res.StatusCode)
	}
}
