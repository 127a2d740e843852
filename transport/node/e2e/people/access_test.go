package people_test

import (
	"strings"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// TestAuthenticatedPageAdmitsOnlyWhomItNames: on an authenticated page, nobody is
// 401, a signed-in person it does not name is 403, the owner's key reads. The key
// may act only for an identity the page names (recorded as api_key), and acting
// with a person's session token (actor.auth_token) records that person, verified.
func TestAuthenticatedPageAdmitsOnlyWhomItNames(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	rv := newHook(t)
	e := nodetest.New(t, allowPrivate, mailTo(in.SMTP))
	key, _ := e.Register("owner")
	extra := map[string]any{"access": sharedWith("Alice@Example.com", "corp.test"), "on_action": map[string]any{"default_url": rv.URL()}}
	id := e.Publish(key, extra)
	comments := "/v1/pages/" + id + "/comments"

	wantError(t, "comments without a credential", call(t, e, nil, req{method: "GET", path: comments}), 401, "UNAUTHORIZED", nil)
	mallory := signIn(t, e, in, "mallory@evil.test")
	wantError(t, "comments by a person the page does not name", call(t, e, nil, req{method: "GET", path: comments, bearer: mallory}),
		403, "FORBIDDEN", map[string]any{"reason": "not_allowed"})
	must(t, e, 200, req{method: "GET", path: comments, bearer: key})
	// The review page: asked to sign in (401), or told it is not shared (403); the
	// content shows in neither.
	for _, c := range []struct {
		cookie string
		status int
	}{{"", 401}, {mallory, 403}} {
		r := call(t, e, nil, req{method: "GET", path: "/p/" + id, cookie: c.cookie, accept: "text/html"})
		if r.Status != c.status || strings.Contains(string(r.Body), "Ready to ship.") {
			t.Fatalf("review page with cookie %q: %d, want %d without the content:\n%s", c.cookie, r.Status, c.status, nodetest.Excerpt(r.Body, 1500))
		}
	}
	alice := signIn(t, e, in, "alice@example.com")
	must(t, e, 200, req{method: "GET", path: comments, bearer: alice})
	bob := signIn(t, e, in, "bob@corp.test")
	must(t, e, 200, req{method: "GET", path: comments, bearer: bob})

	approve := "/v1/pages/" + id + "/actions/approve"
	wantError(t, "the key acting for someone the page does not name",
		call(t, e, nil, req{method: "POST", path: approve, bearer: key, body: map[string]any{"actor": map[string]any{"identity": "mallory@evil.test"}}}),
		403, "FORBIDDEN", map[string]any{"reason": "not_allowed"})
	wantError(t, "a person the page does not name acting", call(t, e, nil, req{method: "POST", path: approve, bearer: mallory}),
		403, "FORBIDDEN", map[string]any{"reason": "not_allowed"})
	must(t, e, 200, req{method: "POST", path: approve, bearer: key, body: map[string]any{"actor": map[string]any{"identity": "bob@corp.test"}}})
	wantActor(t, rv.next(t, "action.executed"), "bob@corp.test", "api_key")

	// An agent relaying a person's decision with their session token.
	id2 := e.Publish(key, extra)
	must(t, e, 200, req{method: "POST", path: "/v1/pages/" + id2 + "/actions/approve", bearer: key,
		body: map[string]any{"actor": map[string]any{"auth_token": alice}}})
	wantActor(t, rv.next(t, "action.executed"), "alice@example.com", "magic_link")
	id3 := e.Publish(key, extra)
	wantError(t, "a dead session token as actor.auth_token",
		call(t, e, nil, req{method: "POST", path: "/v1/pages/" + id3 + "/actions/approve", bearer: key,
			body: map[string]any{"actor": map[string]any{"auth_token": "sess_notalivesession"}}}),
		401, "UNAUTHORIZED", map[string]any{"field": "actor.auth_token"})
}

// TestNarrowingAccessEndsTheStreamsOfPeopleItDropped: a page stream opened with a
// session ends (reset access_changed) when the page stops naming its person; the
// stream of a person it still names goes on.
func TestNarrowingAccessEndsTheStreamsOfPeopleItDropped(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	key, _ := e.Register("owner")
	id := e.Publish(key, map[string]any{"access": sharedWith("alice@example.com", "bob@example.com")})
	alice, bob := signIn(t, e, in, "alice@example.com"), signIn(t, e, in, "bob@example.com")
	as := openStream(t, e, "/v1/pages/"+id+"/events", alice)
	as.expect(t, `"type":"connected"`)
	bs := openStream(t, e, "/v1/pages/"+id+"/events", bob)
	bs.expect(t, `"type":"connected"`)

	must(t, e, 200, req{method: "PATCH", path: "/v1/pages/" + id, bearer: key, body: map[string]any{"access": sharedWith("alice@example.com")}})
	bs.endsWith(t, `{"data":{"reason":"access_changed"},"type":"reset"}`, 5*time.Second)
	must(t, e, 201, req{method: "POST", path: "/v1/pages/" + id + "/comments", bearer: key, body: map[string]any{"content": "still here"}})
	as.expect(t, "still here")
	wantError(t, "bob reopening the stream", call(t, e, nil, req{method: "GET", path: "/v1/pages/" + id + "/events", bearer: bob}),
		403, "FORBIDDEN", map[string]any{"reason": "not_allowed"})
}

// TestApprovalStepNeedsAVerifiedAssignee: on a public page, typing an assignee's
// address decides nothing (403 verification_required); the assignee signed in
// decides the step.
func TestApprovalStepNeedsAVerifiedAssignee(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	key, _ := e.Register("owner")
	id := e.Publish(key, map[string]any{"approval_chain": map[string]any{"steps": []any{
		map[string]any{"step_id": "lead", "name": "Team lead", "assignees": []any{"alice@example.com"}}}}})
	approve := "/v1/pages/" + id + "/actions/approve"

	wantError(t, "an anonymous identity deciding a step",
		call(t, e, nil, req{method: "POST", path: approve, body: map[string]any{"actor": map[string]any{"identity": "alice@example.com"}}}),
		403, "FORBIDDEN", map[string]any{"reason": "verification_required"})
	alice := signIn(t, e, in, "alice@example.com")
	r := must(t, e, 200, req{method: "POST", path: approve, bearer: alice, body: map[string]any{"actor": map[string]any{"identity": "someone@else.test"}}})
	if ps := r.JSON(t)["page_state"].(map[string]any); ps["current"] != "completed" {
		t.Fatalf("page_state = %v", ps)
	}
	ap := e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)
	step := ap["steps"].([]any)[0].(map[string]any)
	if ap["chain_status"] != "approved" || step["status"] != "completed" || step["decided_by"] != "alice@example.com" {
		t.Fatalf("approval = %v", ap)
	}
}

// TestTenantMembersReadItsAuthenticatedPages: a person who claimed an agent's
// account reads and decides the agent's authenticated pages without being named on
// them, and is mailed a link for them.
func TestTenantMembersReadItsAuthenticatedPages(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	rv := newHook(t)
	e := nodetest.New(t, allowPrivate, mailTo(in.SMTP))
	a := register(t, e, "Agent", "")
	key, tenantID := a.key, a.tenantID
	owner := signIn(t, e, in, "owner@example.com")
	wantClaimed(t, "claim", claim(t, e, owner, "/v1/auth/claim", a.proof()), tenantID)
	id := e.Publish(key, map[string]any{"access": sharedWith("alice@example.com"), "on_action": map[string]any{"default_url": rv.URL()}})

	must(t, e, 200, req{method: "GET", path: "/v1/pages/" + id + "/comments", bearer: owner})
	wantSent(t, sendLink(t, e, "owner@example.com", id, ""))
	if m := in.next(t, "owner@example.com"); !strings.Contains(m.Text, "Deploy v2 to production?") {
		t.Fatalf("the member's mail does not quote the page's title:\n%s", m.Text)
	}
	must(t, e, 200, req{method: "POST", path: "/v1/pages/" + id + "/actions/approve", bearer: owner})
	wantActor(t, rv.next(t, "action.executed"), "owner@example.com", "magic_link")
}
