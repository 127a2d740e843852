package delivery_test

import (
	"strings"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// TestSSRFGuard: without --allow-private-callbacks, special targets draw a warning at
// publish and are refused at dial time; nothing reaches them.
func TestSSRFGuard(t *testing.T) {
	e := nodetest.New(t) // private callbacks not allowed
	key, _ := e.Register("ssrf")
	rv := newReceiver(t, nil)
	host := strings.TrimPrefix(rv.srv.URL, "http://")
	_, port, _ := strings.Cut(host, ":")
	table := []struct {
		url    string
		reason string
	}{
		{rv.URL(), "loopback"},
		{"http://localhost:" + port + "/hook", "loopback"},
		{"http://2130706433:" + port + "/hook", "loopback"},
		{"http://0x7f000001:" + port + "/hook", "loopback"},
		{"http://[::ffff:127.0.0.1]:" + port + "/hook", "loopback"},
		{"http://169.254.169.254/latest/meta-data/", "link-local"},
		{"http://10.0.0.8/hook", "private"},
		{"http://100.64.1.1/hook", "cgnat"},
		{"http://224.0.0.251/hook", "multicast"},
	}
	for _, c := range table {
		pub := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": c.url}})
		w := warnings(pub)
		if len(w) != 1 || !strings.Contains(w[0], "on_action.default_url") || !strings.Contains(w[0], c.reason) {
			t.Errorf("%s: warnings %v, want one naming on_action.default_url and %s", c.url, w, c.reason)
		}
		if !strings.Contains(c.url, port) {
			continue // never dial outside loopback from a test
		}
		id := pub["pageId"].(string)
		e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
		var d map[string]any
		eventually(t, 5*time.Second, "the delivery refused", func() bool {
			d = deliveryFor(t, e, key, id, "action.executed")
			return d["status"] == "failed"
		})
		at := d["attempts"].([]any)[0].(map[string]any)
		if !strings.Contains(at["error"].(string), "refused") || d["attemptCount"] != 1.0 {
			t.Errorf("%s: delivery %v", c.url, d)
		}
	}
	if n := len(rv.all()); n != 0 {
		t.Fatalf("a refused target received %d requests", n)
	}
	for _, bad := range []string{"ftp://example.com/x", "javascript:alert(1)", "http://user:pw@example.com/", "/relative"} {
		r := e.Do("POST", "/v1/publish", key, map[string]any{"title": "t", "on_action": map[string]any{"default_url": bad}})
		if r.Status != 400 || r.ErrDetails(t)["field"] != "on_action.default_url" {
			t.Errorf("%s: %d %s, want 400 naming on_action.default_url", bad, r.Status, r.Body)
		}
	}
	// A public name draws no warning (it is resolved and checked only when dialled).
	if w := warnings(publish(e, key, map[string]any{"on_action": map[string]any{"default_url": "https://hooks.example.com/folio"}})); len(w) != 0 {
		t.Errorf("public target warnings: %v", w)
	}
	w := warnings(publish(e, key, map[string]any{"notify": map[string]any{"channels": []any{
		map[string]any{"type": "slack", "target": "http://192.168.0.10/services/x"}}}}))
	if len(w) != 1 || !strings.Contains(w[0], "notify.channels[0].target") {
		t.Errorf("private slack target warnings: %v", w)
	}
}

func TestOnActionValidation(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("onaction")
	bad := []struct {
		oa    map[string]any
		field string
	}{
		{map[string]any{"default_url": 5}, "on_action.default_url"},
		{map[string]any{"action_urls": map[string]any{"approve": "mailto:x@example.com"}}, "on_action.action_urls.approve"},
		{map[string]any{"default_url": "https://example.com", "headers": map[string]any{"X-Service-Signature": "forged"}}, "on_action.headers.X-Service-Signature"},
		{map[string]any{"default_url": "https://example.com", "headers": map[string]any{"webhook-id": "x"}}, "on_action.headers.webhook-id"},
		{map[string]any{"default_url": "https://example.com", "headers": map[string]any{"X-A": "a\r\nInjected: 1"}}, "on_action.headers.X-A"},
		{map[string]any{"default_url": "https://example.com", "headers": map[string]any{"bad name": "x"}}, "on_action.headers.bad name"},
		{map[string]any{"default_url": "https://example.com", "retry": map[string]any{"max_attempts": 0}}, "on_action.retry.max_attempts"},
		{map[string]any{"default_url": "https://example.com", "retry": map[string]any{"max_attempts": 21}}, "on_action.retry.max_attempts"},
		{map[string]any{"default_url": "https://example.com", "retry": map[string]any{"backoff": "random"}}, "on_action.retry.backoff"},
		{map[string]any{"default_url": "https://example.com", "retry": map[string]any{"initial_delay_seconds": 0}}, "on_action.retry.initial_delay_seconds"},
		{map[string]any{"default_url": "https://example.com", "hmac_secret": strings.Repeat("s", 257)}, "on_action.hmac_secret"},
		{map[string]any{"default_url": "https://example.com", "events": "action.executed"}, "on_action.events"},
	}
	for _, c := range bad {
		r := e.Do("POST", "/v1/publish", key, map[string]any{"title": "t", "on_action": c.oa})
		if r.Status != 400 || r.ErrDetails(t)["field"] != c.field {
			t.Errorf("%v: %d %s, want 400 naming %s", c.oa, r.Status, r.Body, c.field)
		}
	}
	m := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": "https://example.com/h", "hmac_secret": "x",
		"events": []any{"action.executed", "page.exploded"}, "action_urls": map[string]any{"archive": "https://example.com/a"}}})
	if w := warnings(m); len(w) != 2 {
		t.Errorf("warnings for an unknown event and an unknown action: %v", w)
	}
	pg := e.Must(200, "GET", "/v1/pages/"+m["pageId"].(string), key, nil)
	if pg["on_action"].(map[string]any)["hmac_secret"] != "[redacted]" {
		t.Errorf("the secret is echoed: %v", pg["on_action"])
	}

	// Any string is a secret (X-Service-Signature keys HMAC with its bytes): a
	// whsec_ one that is not base64 is accepted, with a warning about the Standard
	// Webhooks signature. Custom header values are write-only like the secret.
	ws := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": "https://example.com/h", "hmac_secret": "whsec_!!!",
		"headers": map[string]any{"Authorization": "Bearer receiver-t0ken", "X-Team": "payments"}}})
	if w := warnings(ws); len(w) != 1 || !strings.Contains(w[0], "whsec_") {
		t.Errorf("warnings for a whsec_ secret that is not base64: %v", w)
	}
	r := e.Do("GET", "/v1/pages/"+ws["pageId"].(string), key, nil)
	if strings.Contains(string(r.Body), "receiver-t0ken") || strings.Contains(string(r.Body), "payments") {
		t.Errorf("a custom header value is echoed: %s", r.Body)
	}
	if h := e.Must(200, "GET", "/v1/pages/"+ws["pageId"].(string), key, nil)["on_action"].(map[string]any)["headers"].(map[string]any); h["Authorization"] != "[redacted]" || h["X-Team"] != "[redacted]" {
		t.Errorf("headers as read back: %v", h)
	}

	// A webhook notification channel's secret is never echoed either, on any read.
	n := publish(e, key, map[string]any{"notify": map[string]any{"channels": []any{
		map[string]any{"type": "webhook", "target": "https://example.com/notify", "secret": "channel-s3cret"}}}})
	nid := n["pageId"].(string)
	for _, path := range []string{"/v1/pages/" + nid, "/v1/pages?limit=50"} {
		r := e.Do("GET", path, key, nil)
		if r.Status != 200 || strings.Contains(string(r.Body), "channel-s3cret") {
			t.Errorf("GET %s: %d, the channel secret is echoed: %s", path, r.Status, r.Body)
		}
	}
	pg = e.Must(200, "GET", "/v1/pages/"+nid, key, nil)
	ch := pg["notify"].(map[string]any)["channels"].([]any)[0].(map[string]any)
	if ch["secret"] != "[redacted]" || ch["target"] != "https://example.com/notify" {
		t.Errorf("notify channel as read back: %v", ch)
	}
}
