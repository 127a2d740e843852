package node_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"folio/transport/httpapi"
	"folio/transport/node/nodetest"
)

// TestTheVersionAPersonSawIsKeptForTheirNextVisit: POST /internal/pages/:id/seen
// keeps, for a signed-in person, the newest content version they saw (a later
// report of an older one keeps it); the next review page drawn for them carries
// it. No version, or one the page never had, is 400 naming the field; someone not
// signed in (nobody, an API key) is 401.
func TestTheVersionAPersonSawIsKeptForTheirNextVisit(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("seen")
	id := e.Publish(key, nil)
	session, _ := e.SignIn("reviewer@example.com")
	path := "/internal/pages/" + id + "/seen"
	for _, who := range []string{"", key} {
		if r := e.Do("POST", path, who, map[string]any{"version": 1}); r.Status != 401 || r.ErrCode(t) != "UNAUTHORIZED" {
			t.Errorf("not signed in (key %q): %d %s", who, r.Status, r.Body)
		}
	}
	for _, c := range []struct {
		body       any
		constraint string
	}{{map[string]any{}, "required"}, {map[string]any{"version": 2}, "range"}, {map[string]any{"version": 0}, "range"}} {
		r := e.Do("POST", path, session, c.body)
		if d := r.ErrDetails(t); r.Status != 400 || d["field"] != "version" || d["constraint"] != c.constraint {
			t.Errorf("%v: %d %s", c.body, r.Status, r.Body)
		}
	}
	if got := e.Must(200, "POST", path, session, map[string]any{"version": 1}); got["version"] != 1.0 || got["pageId"] != id {
		t.Fatalf("seen version 1: %v", got)
	}
	blk := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["blocks"].([]any)[0].(map[string]any)["id"].(string)
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/"+blk, key, map[string]any{"data": map[string]any{"content": "Changed."}})
	e.Must(200, "POST", path, session, map[string]any{"version": 2})
	if got := e.Must(200, "POST", path, session, map[string]any{"version": 1}); got["version"] != 2.0 {
		t.Fatalf("an older version lowered the record: %v", got)
	}
	req, _ := http.NewRequest("GET", e.Srv.URL+"/p/"+id, nil)
	req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: session})
	res, err := e.Srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if !strings.Contains(string(html), `data-version="2" data-seen="2"`) {
		t.Errorf("the review page drawn for the person does not carry the version they saw:\n%.600s", html)
	}
}
