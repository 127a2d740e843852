package people_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"folio/transport/node/nodetest"
)

// register makes an agent account; ownerEmail may be "".
func register(t *testing.T, e *nodetest.Env, name, ownerEmail string) (key, tenantID, code string) {
	t.Helper()
	body := map[string]any{"name": name}
	if ownerEmail != "" {
		body["owner_email"] = ownerEmail
	}
	m := e.Must(201, "POST", "/v1/auth/agent/register", "", body)
	return m["apiKey"].(string), m["tenantId"].(string), m["claimCode"].(string)
}

// claim is POST /v1/auth/claim (or /v1/auth/claim/key) with a bearer credential.
func claim(t *testing.T, e *nodetest.Env, bearer, path string, body map[string]any) reply {
	t.Helper()
	return call(t, e, nil, req{method: "POST", path: path, bearer: bearer, body: body})
}

// wantClaimed checks the exact answer of a successful claim.
func wantClaimed(t *testing.T, what string, r reply, tenantID string) {
	t.Helper()
	m := r.JSON(t)
	if r.Status != 200 || len(m) != 2 || m["tenantId"] != tenantID || m["claimed"] != true {
		t.Fatalf("%s: %d %s, want 200 {tenantId: %s, claimed: true}", what, r.Status, r.Body, tenantID)
	}
}

// TestOwnerClaimsByTheMailedLink: an agent that names its owner at registration
// gets its owner a claim mail; following its link signs the owner in, makes them
// a member of the agent's tenant, and the agent's key keeps working. The claim code
// is spent: anyone else claiming with it is 409.
func TestOwnerClaimsByTheMailedLink(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	key, tenantID, code := register(t, e, "Build bot", "Owner@Example.com")

	m := in.next(t, "owner@example.com")
	if !strings.Contains(m.Subject, "Build bot") || !strings.Contains(m.Text, code) {
		t.Fatalf("claim mail: subject %q, text:\n%s", m.Subject, m.Text)
	}
	r := follow(t, e, linkIn(t, e, m), "")
	owner, _, ok := r.cookie(sessionCookie)
	if r.Status != 303 || r.Location != "/claim?tenant="+tenantID || !ok {
		t.Fatalf("following the claim link: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
	}
	if who := me(t, e, owner).JSON(t); who["tenantId"] != tenantID || who["email"] != "owner@example.com" {
		t.Fatalf("/v1/auth/me of the owner = %v, want tenantId %s", who, tenantID)
	}
	if got := must(t, e, 200, req{method: "GET", path: "/v1/tenant", bearer: key}).JSON(t)["tenant_id"]; got != tenantID {
		t.Fatalf("the agent's key after the claim: tenant %v", got)
	}

	other := signIn(t, e, in, "other@example.com")
	wantError(t, "claiming a claimed account", claim(t, e, other, "/v1/auth/claim", map[string]any{"claimCode": code}), 409, "CONFLICT", nil)
	if who := me(t, e, other).JSON(t); who["tenantId"] != nil {
		t.Fatalf("a refused claim made %v a member", who)
	}
}

// TestClaimByCodeOrKey: a signed-in person claims an agent's account with its code
// (in any case) or its whole key. A wrong code or key is 404 and names no account;
// an API key is 403 and nothing is 401.
func TestClaimByCodeOrKey(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	person := signIn(t, e, in, "carol@example.com")
	key2, t2, code2 := register(t, e, "Agent two", "")
	_, t3, code3 := register(t, e, "Agent three", "")
	key4, t4, _ := register(t, e, "Agent four", "")

	wantClaimed(t, "claim by code", claim(t, e, person, "/v1/auth/claim", map[string]any{"claimCode": code2}), t2)
	wantClaimed(t, "claim by lower-case code", claim(t, e, person, "/v1/auth/claim", map[string]any{"claimCode": strings.ToLower(code3)}), t3)
	if who := me(t, e, person).JSON(t); who["tenantId"] != t2 {
		t.Fatalf("/v1/auth/me after claiming = %v, want the first workspace %s", who, t2)
	}
	if agent := must(t, e, 200, req{method: "GET", path: "/v1/auth/me", bearer: key2}).JSON(t); len(agent) != 4 ||
		agent["type"] != "agent" || agent["email"] != nil || agent["tenantId"] != t2 || agent["id"] == nil {
		t.Fatalf("/v1/auth/me of the agent's key after the claim = %v", agent)
	}

	r := claim(t, e, person, "/v1/auth/claim", map[string]any{"claimCode": "NOPE-0000"})
	wantError(t, "a wrong claim code", r, 404, "NOT_FOUND", nil)
	for _, id := range []string{t2, t3, t4, "ten_"} {
		if strings.Contains(string(r.Body), id) {
			t.Fatalf("the refusal of a wrong code names an account (%s): %s", id, r.Body)
		}
	}
	wantError(t, "claiming with an API key", claim(t, e, key4, "/v1/auth/claim", map[string]any{"claimCode": code3}), 403, "FORBIDDEN", nil)
	wantError(t, "claiming without a credential", claim(t, e, "", "/v1/auth/claim", map[string]any{"claimCode": code3}), 401, "UNAUTHORIZED", nil)
	wantError(t, "claiming without a code", claim(t, e, person, "/v1/auth/claim", map[string]any{}), 400, "INVALID_REQUEST", map[string]any{"field": "claimCode"})

	wantClaimed(t, "claim by key", claim(t, e, person, "/v1/auth/claim/key", map[string]any{"key": key4}), t4)
	r = claim(t, e, person, "/v1/auth/claim/key", map[string]any{"key": "sk_live_wrongwrongwrongwrongwrongwrong"})
	wantError(t, "a wrong key", r, 404, "NOT_FOUND", nil)
	if strings.Contains(string(r.Body), "sk_live_wrong") {
		t.Fatalf("the refusal echoes the key: %s", r.Body)
	}
}

// TestClaimAttemptsAreRateLimited: the eleventh claim attempt from one client
// within 15 minutes is 429 with Retry-After, whoever is signed in.
func TestClaimAttemptsAreRateLimited(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	people := []string{signIn(t, e, in, "a@example.com"), signIn(t, e, in, "b@example.com")}
	for i := range 10 {
		wantError(t, "a wrong code", claim(t, e, people[i%2], "/v1/auth/claim", map[string]any{"claimCode": "NOPE-0000"}), 404, "NOT_FOUND", nil)
	}
	r := claim(t, e, people[0], "/v1/auth/claim", map[string]any{"claimCode": "NOPE-0000"})
	wantError(t, "the eleventh attempt", r, 429, "RATE_LIMITED", map[string]any{"scope": "address"})
	if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
}

// TestOneOfManySimultaneousClaimsWins: eight people claiming one code at once: one
// is 200, seven are 409, and only the winner is a member.
func TestOneOfManySimultaneousClaimsWins(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	_, tenantID, code := register(t, e, "Contested", "")
	sessions := make([]string, 8)
	for i := range sessions {
		sessions[i] = signIn(t, e, in, fmt.Sprintf("claimant%d@example.com", i))
	}
	replies := make([]reply, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() { replies[i] = claim(t, e, s, "/v1/auth/claim", map[string]any{"claimCode": code}) })
	}
	wg.Wait()
	won := 0
	for i, r := range replies {
		member := me(t, e, sessions[i]).JSON(t)["tenantId"] == tenantID
		switch {
		case r.Status == 200 && member:
			won++
		case r.Status == 409 && r.ErrCode(t) == "CONFLICT" && !member:
		default:
			t.Errorf("claimant %d: %d %s, member %v", i, r.Status, r.Body, member)
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d simultaneous claims won, want exactly 1", won, len(sessions))
	}
}
