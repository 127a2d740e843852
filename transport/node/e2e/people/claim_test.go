package people_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// agent is an agent account as registration answers it.
type agent struct {
	key, tenantID, code, claimURL string
	token                         string // the claim token: the claimUrl's fragment
}

// proof is the body of POST /v1/auth/claim for a: its code with its claim token.
func (a agent) proof() map[string]any {
	return map[string]any{"claimCode": a.code, "claimToken": a.token}
}

// register makes an agent account; ownerEmail may be "".
func register(t *testing.T, e *nodetest.Env, name, ownerEmail string) agent {
	t.Helper()
	body := map[string]any{"name": name}
	if ownerEmail != "" {
		body["owner_email"] = ownerEmail
	}
	m := e.Must(201, "POST", "/v1/auth/agent/register", "", body)
	a := agent{key: m["apiKey"].(string), tenantID: m["tenantId"].(string), code: m["claimCode"].(string), claimURL: m["claimUrl"].(string)}
	if i := strings.IndexByte(a.claimURL, '#'); i >= 0 {
		a.token = a.claimURL[i+1:]
	}
	return a
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
	a := register(t, e, "Build bot", "Owner@Example.com")
	key, tenantID := a.key, a.tenantID

	m := in.next(t, "owner@example.com")
	if m.Subject != "Claim your agent's account on Folio" || !strings.Contains(m.Text, "\u201cBuild bot\u201d") ||
		!strings.Contains(m.Text, a.code) || !strings.Contains(m.Text, a.claimURL) {
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
	r = claim(t, e, other, "/v1/auth/claim", a.proof())
	wantError(t, "claiming a claimed account", r, 409, "CONFLICT", nil)
	if strings.Contains(string(r.Body), tenantID) || strings.Contains(string(r.Body), "tenant") {
		t.Fatalf("the 409 of a claimed account names its workspace: %s", r.Body)
	}
	if who := me(t, e, other).JSON(t); who["tenantId"] != nil {
		t.Fatalf("a refused claim made %v a member", who)
	}
}

// TestClaimByCodeOrKey: a signed-in person claims an agent's account with its code
// (in any case) and the claim token of its claimUrl, or with its whole key. A
// wrong code or key is 404 and names no account; the key's prefix is 400 saying
// the whole key is needed; an API key is 403 and nothing is 401.
func TestClaimByCodeOrKey(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	person := signIn(t, e, in, "carol@example.com")
	a2, a3, a4 := register(t, e, "Agent two", ""), register(t, e, "Agent three", ""), register(t, e, "Agent four", "")
	if !strings.HasPrefix(a2.claimURL, e.Srv.URL+"/claim?code="+a2.code+"#ct_") || len(a2.token) != 46 {
		t.Fatalf("claimUrl %q: want the claim page with the code, and the claim token after #", a2.claimURL)
	}

	wantClaimed(t, "claim by code and token", claim(t, e, person, "/v1/auth/claim", a2.proof()), a2.tenantID)
	lower := a3.proof()
	lower["claimCode"] = strings.ToLower(a3.code)
	wantClaimed(t, "claim by lower-case code", claim(t, e, person, "/v1/auth/claim", lower), a3.tenantID)
	if who := me(t, e, person).JSON(t); who["tenantId"] != a2.tenantID {
		t.Fatalf("/v1/auth/me after claiming = %v, want the first workspace %s", who, a2.tenantID)
	}
	if agent := must(t, e, 200, req{method: "GET", path: "/v1/auth/me", bearer: a2.key}).JSON(t); len(agent) != 4 ||
		agent["type"] != "agent" || agent["email"] != nil || agent["tenantId"] != a2.tenantID || agent["id"] == nil {
		t.Fatalf("/v1/auth/me of the agent's key after the claim = %v", agent)
	}

	r := claim(t, e, person, "/v1/auth/claim", map[string]any{"claimCode": "NOPE-0000", "claimToken": a4.token})
	wantError(t, "a wrong claim code", r, 404, "NOT_FOUND", nil)
	for _, id := range []string{a2.tenantID, a3.tenantID, a4.tenantID, "ten_"} {
		if strings.Contains(string(r.Body), id) {
			t.Fatalf("the refusal of a wrong code names an account (%s): %s", id, r.Body)
		}
	}
	wantError(t, "claiming with an API key", claim(t, e, a4.key, "/v1/auth/claim", a3.proof()), 403, "FORBIDDEN", nil)
	wantError(t, "claiming without a credential", claim(t, e, "", "/v1/auth/claim", a3.proof()), 401, "UNAUTHORIZED", nil)
	wantError(t, "claiming without a code", claim(t, e, person, "/v1/auth/claim", map[string]any{}), 400, "INVALID_REQUEST", map[string]any{"field": "claimCode"})

	wantClaimed(t, "claim by key", claim(t, e, person, "/v1/auth/claim/key", map[string]any{"key": a4.key}), a4.tenantID)
	r = claim(t, e, person, "/v1/auth/claim/key", map[string]any{"key": "sk_live_wrongwrongwrongwrongwrongwrongwrongwrongwron"})
	wantError(t, "a wrong key", r, 404, "NOT_FOUND", nil)
	if strings.Contains(string(r.Body), "sk_live_wrong") {
		t.Fatalf("the refusal echoes the key: %s", r.Body)
	}
	a5 := register(t, e, "Agent five", "")
	r = claim(t, e, person, "/v1/auth/claim/key", map[string]any{"key": a5.key[:12]})
	wantError(t, "the key's prefix", r, 400, "INVALID_REQUEST", map[string]any{"field": "key", "constraint": "whole_key"})
	if !strings.Contains(r.ErrMessage(t), "whole") {
		t.Fatalf("the refusal of a prefix does not say the whole key is needed: %s", r.Body)
	}
}

// TestAGuessedClaimCodeNeverClaims: 600 unclaimed agents share the prefix
// CLAUDE (as MCP-provisioned ones do), so their 4-character codes cover a large
// part of a small space. Guessing codes without the claim token (or with another
// agent's token) claims nothing, even a code that exists; the 409 of a claimed
// account names no workspace; the owner's code with its token claims.
func TestAGuessedClaimCodeNeverClaims(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), func(c *node.Config) {
		c.ClaimsPerClient, c.ClaimsPerPerson, c.ClaimFailureBudget = 10_000, 10_000, 10_000
	})
	agents := make([]agent, 600)
	var wg sync.WaitGroup
	for w := range 8 { // registrations in parallel share commits
		wg.Go(func() {
			for i := w; i < len(agents); i += 8 {
				agents[i] = register(t, e, "Claude", "")
			}
		})
	}
	wg.Wait()
	codes := map[string]agent{}
	for _, a := range agents {
		codes[a.code] = a
	}
	attacker := signIn(t, e, in, "mallory@evil.test")
	own := register(t, e, "Claude", "")
	// Every real code, without a token and with the attacker's own agent's token.
	tried := 0
	for code := range codes {
		if tried == 150 {
			break
		}
		tried++
		for _, body := range []map[string]any{{"claimCode": code}, {"claimCode": code, "claimToken": own.token}} {
			r := claim(t, e, attacker, "/v1/auth/claim", body)
			if r.Status == 200 {
				t.Fatalf("a guessed code %s claimed an account: %s", code, r.Body)
			}
			if strings.Contains(string(r.Body), "ten_") {
				t.Fatalf("a claim refusal names a workspace: %s", r.Body)
			}
		}
	}
	if who := me(t, e, attacker).JSON(t); who["tenantId"] != nil {
		t.Fatalf("the guesser became a member of %v", who["tenantId"])
	}
	// The owner, with the claimUrl's token, claims; a second claim is 409 naming nothing.
	owner := signIn(t, e, in, "owner@example.com")
	wantClaimed(t, "the owner's code and token", claim(t, e, owner, "/v1/auth/claim", agents[7].proof()), agents[7].tenantID)
	r := claim(t, e, attacker, "/v1/auth/claim", agents[7].proof())
	wantError(t, "a claimed account", r, 409, "CONFLICT", nil)
	if strings.Contains(string(r.Body), agents[7].tenantID) || strings.Contains(string(r.Body), "tenant") {
		t.Fatalf("the 409 names the workspace: %s", r.Body)
	}
}

// TestClaimFailureBudgetIsGlobal: wrong claims from many people (each within
// their own limits) spend one budget for the whole service; once it is spent,
// everyone's claim is 429 (scope global) until it refills, and the metrics an
// operator alerts on say so.
func TestClaimFailureBudgetIsGlobal(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	clk := nodetest.NewClock(time.Now())
	e := nodetest.Open(t, t.TempDir(), clk, mailTo(in.SMTP), func(c *node.Config) { c.ClaimFailureBudget, c.ClaimsPerClient, c.ClaimsPerPerson = 6, 100, 100 })
	a := register(t, e, "Agent", "")
	wrong := a.proof()
	wrong["claimCode"] = "AGENT-0000"
	guessers := []string{signIn(t, e, in, "g1@evil.test"), signIn(t, e, in, "g2@evil.test"), signIn(t, e, in, "g3@evil.test")}
	for i := range 6 {
		wantError(t, "a wrong claim", claim(t, e, guessers[i%3], "/v1/auth/claim", wrong), 404, "NOT_FOUND", nil)
	}
	if v := metric(t, e, "folio_claim_failures_total"); v != 6 {
		t.Fatalf("folio_claim_failures_total = %v after 6 wrong claims", v)
	}
	if v := metric(t, e, "folio_claim_budget_exhausted"); v != 1 {
		t.Fatalf("folio_claim_budget_exhausted = %v once the budget is spent, want 1", v)
	}
	owner := signIn(t, e, in, "owner@example.com")
	r := claim(t, e, owner, "/v1/auth/claim", a.proof())
	wantError(t, "a right claim while the budget is spent", r, 429, "RATE_LIMITED", map[string]any{"limit": "claim_failures", "scope": "global"})
	if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	if v := metric(t, e, "folio_claim_budget_exhausted_total"); v != 1 {
		t.Fatalf("folio_claim_budget_exhausted_total = %v after one refused claim", v)
	}
	clk.Advance(3 * time.Minute) // 15 minutes / 6: one failure's worth and more
	if v := metric(t, e, "folio_claim_budget_exhausted"); v != 0 {
		t.Fatalf("folio_claim_budget_exhausted = %v after the budget refilled", v)
	}
	wantClaimed(t, "the owner's claim once it refilled", claim(t, e, owner, "/v1/auth/claim", a.proof()), a.tenantID)
}

// TestClaimAttemptsAreRateLimited: the eleventh claim attempt from one client
// within 15 minutes is 429 with Retry-After, whoever is signed in.
func TestClaimAttemptsAreRateLimited(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	people := []string{signIn(t, e, in, "a@example.com"), signIn(t, e, in, "b@example.com")}
	wrongClaim := map[string]any{"claimCode": "NOPE-0000", "claimToken": "ct_" + strings.Repeat("x", 43)}
	for i := range 10 {
		wantError(t, "a wrong code", claim(t, e, people[i%2], "/v1/auth/claim", wrongClaim), 404, "NOT_FOUND", nil)
	}
	r := claim(t, e, people[0], "/v1/auth/claim", wrongClaim)
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
	a := register(t, e, "Contested", "")
	tenantID := a.tenantID
	sessions := make([]string, 8)
	for i := range sessions {
		sessions[i] = signIn(t, e, in, fmt.Sprintf("claimant%d@example.com", i))
	}
	replies := make([]reply, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() { replies[i] = claim(t, e, s, "/v1/auth/claim", a.proof()) })
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

// TestAClaimLinkForAClaimedAccountNamesNoWorkspace: the owner's claim mail, used
// after someone else claimed the account (with its key), signs the owner in and
// leads to the claim page saying it was claimed, without naming the workspace.
func TestAClaimLinkForAClaimedAccountNamesNoWorkspace(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	a := register(t, e, "Taken bot", "owner@example.com")
	m := in.next(t, "owner@example.com")
	first := signIn(t, e, in, "first@example.com")
	wantClaimed(t, "claim by key", claim(t, e, first, "/v1/auth/claim/key", map[string]any{"key": a.key}), a.tenantID)
	r := follow(t, e, linkIn(t, e, m), "")
	if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || !ok || r.Location != "/claim?problem=claimed" {
		t.Fatalf("the claim link of a claimed account: %d to %q, cookies %v; want signed in, to /claim?problem=claimed", r.Status, r.Location, r.SetCookie)
	}
	page := must(t, e, 200, req{method: "GET", path: r.Location, accept: "text/html"})
	if strings.Contains(string(page.Body), a.tenantID) || !strings.Contains(string(page.Body), "already claimed") {
		t.Fatalf("the claim page after a claimed account's link:\n%s", nodetest.Excerpt(page.Body, 1500))
	}
}
