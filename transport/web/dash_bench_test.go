package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/node/nodetest"
)

// BenchmarkInboxFirstScreen100k renders the first screen of the inbox of a workspace
// holding 100,000 pages, on the server (the node's handler, no network): what a
// signed-in owner waits for before the browser gets bytes. It reports the HTML's
// size as it travels (gzip). The 100,000 pages are published through the API first
// (about half a minute), so run it alone:
//
//	go test ./transport/web/ -run '^$' -bench InboxFirstScreen100k -benchtime 200x
func BenchmarkInboxFirstScreen100k(b *testing.B) {
	const pages = 100_000
	e := nodetest.New(b)
	reg := e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Busy Bot"})
	key, tenantID := reg["apiKey"].(string), reg["tenantId"].(string)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= pages; i = next.Add(1) {
				e.Must(201, "POST", "/v1/publish", key, map[string]any{"title": fmt.Sprintf("Change %d", i), "page_type": "change",
					"blocks":  []any{map[string]any{"type": "text", "data": map[string]any{"content": "x"}}},
					"actions": []any{map[string]any{"action_id": "approve", "label": "Approve"}}})
			}
		}()
	}
	wg.Wait()
	n := e.Node
	u, _, err := n.People.SignIn(people.Proof{Email: "owner@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := registry.Call[*tenant.Claimed](context.Background(), n.Tenants, tenantID,
		&tenant.Claim{Person: tenant.Member{UserID: u.ID, Email: u.Email}}); err != nil {
		b.Fatal(err)
	}
	token, _, err := n.People.StartSession(u, page.AuthMagicLink)
	if err != nil {
		b.Fatal(err)
	}
	h := n.Handler()
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		req.AddCookie(&http.Cookie{Name: "folio_session", Value: token})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	first := get()
	if first.Code != 200 {
		b.Fatalf("GET / = %d", first.Code)
	}
	for b.Loop() {
		if rec := get(); rec.Code != 200 {
			b.Fatalf("GET / = %d", rec.Code)
		}
	}
	b.ReportMetric(float64(first.Body.Len()), "gzip-bytes")
}
