package node_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"folio/transport/credential"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestACredentialIsResolvedOncePerRequest: the review page, a form posted from it
// and an API read each resolve who is asking once (the session and the person's
// workspaces, read from the store), however many guards and handlers of either
// face ask, and keep it on the request's context. Counted as store reads made on
// behalf of the person's workspaces, and as resolutions on the request's context
// (before transport/credential: 2 for the review page, 2 for the refused post).
func TestACredentialIsResolvedOncePerRequest(t *testing.T) {
	var lookups atomic.Int64
	e := nodetest.New(t, func(c *node.Config) {
		c.ReadFault = func() error {
			buf := make([]byte, 8<<10)
			if strings.Contains(string(buf[:runtime.Stack(buf, false)]), "tenant.TenantsOf(") {
				lookups.Add(1)
			}
			return nil
		}
	})
	key, _ := e.Register("once")
	id := e.Publish(key, map[string]any{"visibility": "public"})
	session, _ := e.SignIn("reviewer@example.com")
	once := func(what, method, path string, form url.Values) {
		t.Helper()
		req, err := http.NewRequest(method, e.Srv.URL+path, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(&http.Cookie{Name: "folio_session", Value: session})
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", e.Srv.URL)
		}
		before := lookups.Load()
		res, err := e.Srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if n := lookups.Load() - before; n != 1 {
			t.Errorf("%s (%d) resolved the person %d times, want once", what, res.StatusCode, n)
		}
		// The same request served in process, its context kept to be read after.
		req, err = http.NewRequest(method, e.Srv.URL+path, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = res.Request.Header.Clone()
		req = credential.WithMemo(req)
		rec := httptest.NewRecorder()
		e.Node.Handler().ServeHTTP(rec, req)
		if n := credential.Resolutions(req.Context()); n != 1 {
			t.Errorf("%s (%d) resolved the credential %d times on its context, want once", what, rec.Code, n)
		}
	}
	once("the review page", "GET", "/p/"+id, nil)
	once("a decision refused for its CSRF token", "POST", "/p/"+id+"/act", url.Values{"action": {"approve"}, "csrf": {"wrong"}})
	once("the API's who-am-I", "GET", "/v1/auth/me", nil)
}
