package people_test

import (
	"strings"
	"testing"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestAnonymousCommentsAreBoundedWithoutLockingOutThePagesPeople: comments from
// people who are not a page's own (anonymous, or signed in but not named by its
// access) share the page's anonymous share (--page-anon-comments); past it they get
// 409 naming anonymous_comments and saying how to go on, while the page's key and a
// signed-in person its access names still comment. Comments without a credential
// are also bounded per client address across pages (--anon-comments-per-hour): 429
// naming anonymous_comments with scope address.
func TestAnonymousCommentsAreBoundedWithoutLockingOutThePagesPeople(t *testing.T) {
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), func(c *node.Config) {
		c.EnforceLimits, c.AnonPerMinute, c.PageAnonComments, c.AnonCommentsPerHour = true, 1000, 5, 8
	})
	key, _ := e.Register("reviewed")
	shared := map[string]any{"access": map[string]any{"mode": "public",
		"allowed_identities": []any{map[string]any{"type": "email", "value": "ann@example.com"}}}}
	a, b := e.Publish(key, shared), e.Publish(key, nil)
	comment := func(id, bearer, text string) reply {
		return call(t, e, nil, req{method: "POST", path: "/v1/pages/" + id + "/comments", bearer: bearer, body: map[string]any{"content": text}})
	}
	for i := range 5 {
		if r := comment(a, "", "anonymous"); r.Status != 201 {
			t.Fatalf("anonymous comment %d: %d %s", i, r.Status, r.Body)
		}
	}
	r := comment(a, "", "one too many")
	if r.Status != 409 || r.ErrCode(t) != "CONFLICT" || r.ErrDetails(t)["constraint"] != "anonymous_comments" || r.ErrDetails(t)["limit"] != float64(5) ||
		!strings.Contains(errMessage(t, r), "sign in") {
		t.Fatalf("the anonymous comment past the page's anonymous share: %d %s", r.Status, r.Body)
	}
	if r := comment(a, key, "the agent still comments"); r.Status != 201 {
		t.Fatalf("the page's key after the anonymous share ran out: %d %s", r.Status, r.Body)
	}
	ann := signIn(t, e, in, "ann@example.com")
	if r := comment(a, ann, "a person the page names still comments"); r.Status != 201 {
		t.Fatalf("a signed-in person the page names, after the anonymous share ran out: %d %s", r.Status, r.Body)
	}
	bob := signIn(t, e, in, "bob@example.com")
	if r := comment(a, bob, "anyone may sign in"); r.Status != 409 || r.ErrDetails(t)["constraint"] != "anonymous_comments" {
		t.Fatalf("a signed-in person the page does not name counts as anonymous: %d %s", r.Status, r.Body)
	}

	// The address has spent 6 of its 8 (the refused one included): two more on
	// another page, then 429.
	for i := range 2 {
		if r := comment(b, "", "elsewhere"); r.Status != 201 {
			t.Fatalf("anonymous comment %d on another page: %d %s", i, r.Status, r.Body)
		}
	}
	r = comment(b, "", "past the address's budget")
	if r.Status != 429 || r.ErrCode(t) != "RATE_LIMITED" || r.ErrDetails(t)["limit"] != "anonymous_comments" || r.ErrDetails(t)["scope"] != "address" ||
		r.Header.Get("Retry-After") == "" || !strings.Contains(errMessage(t, r), "sign in") {
		t.Fatalf("the anonymous comment past the address's budget: %d %s %v", r.Status, r.Body, r.Header)
	}
	if r := comment(b, key, "keys are not counted per address"); r.Status != 201 {
		t.Fatalf("the page's key from the same address: %d %s", r.Status, r.Body)
	}
}

// errMessage is the error envelope's message.
func errMessage(t *testing.T, r reply) string {
	t.Helper()
	e, _ := r.JSON(t)["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}
