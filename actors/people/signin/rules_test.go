package signin

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/model/fault"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/persistence/storetest"
)

// clock is a test's time, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fixture is a store, the people directory, the tenants' actors and the rules
// over them, with the limits given.
type fixture struct {
	ru      *Rules
	clock   *clock
	metrics *prometheus.Registry
	people  *people.Directory
	tenants *registry.Registry
}

func newFixture(t *testing.T, lim Limits) *fixture {
	t.Helper()
	store := storetest.Open(t, t.TempDir())
	t.Cleanup(func() { _ = store.Close() })
	sys := actor.NewActorSystem()
	t.Cleanup(sys.Shutdown) // before the store closes
	c := &clock{t: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)}
	keys := tenant.NewKeyring(store, time.Now)
	tenants := registry.Start(sys, "tenants", tenant.NewProducer(&tenant.Deps{Store: store, Keyring: keys, Now: time.Now}), registry.Options{Timeout: 10 * time.Second})
	dir := people.NewDirectory(store, time.Now, people.Lifetimes{})
	metrics := prometheus.NewRegistry()
	ru := New(Deps{Registry: metrics, People: dir, Store: store, Keys: keys, Tenants: tenants, AppURL: "http://127.0.0.1:1",
		Origins: []string{"http://127.0.0.1:1"}, Limits: lim, Now: c.now})
	return &fixture{ru: ru, clock: c, metrics: metrics, people: dir, tenants: tenants}
}

// person signs in (makes) the person of email.
func (f *fixture) person(t *testing.T, email string) tenant.Member {
	t.Helper()
	u, _, err := f.people.SignIn(people.Proof{Email: email})
	if err != nil {
		t.Fatal(err)
	}
	return tenant.Member{UserID: u.ID, Email: u.Email}
}

// agent registers an unclaimed agent account: its id, claim code and token.
func (f *fixture) agent(t *testing.T, id string) *tenant.Registered {
	t.Helper()
	reg, err := registry.Call[*tenant.Registered](context.Background(), f.tenants, id, &tenant.Register{Name: "Bot " + id})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// isFault tells whether err is a fault of code.
func isFault(err error, code string) bool {
	var fe *fault.Error
	return errors.As(err, &fe) && fe.Code == code
}

// count is the sum of the metric name's samples (counters).
func (f *fixture) count(t *testing.T, name string) float64 {
	t.Helper()
	mfs, err := f.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// refusal is err's RATE_LIMITED fault's scope and limit, or fails t.
func refusal(t *testing.T, what string, err error) (scope, limit string) {
	t.Helper()
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.RateLimited {
		t.Fatalf("%s: %v, want RATE_LIMITED", what, err)
	}
	scope, _ = fe.Details["scope"].(string)
	limit, _ = fe.Details["limit"].(string)
	return scope, limit
}

// TestSignInLinksAreLimitedPerEmailAndPerAddress: an address gets at most
// LinksPerEmail links per window, and one client address asks for at most
// LinksPerClient, whatever addresses it names; each refusal names its scope and
// comes with the Rate to write (refused, with the seconds to wait); a request of
// the wrong shape is refused for its field and counts nothing; the window's end
// lifts the limits.
func TestSignInLinksAreLimitedPerEmailAndPerAddress(t *testing.T) {
	f := newFixture(t, Limits{LinksPerEmail: 2, LinksPerClient: 3, Window: 15 * time.Minute})
	for i := range 2 {
		rate, err := f.ru.RequestLink("192.0.2.1", "Ann@Example.com", "", "/")
		if err != nil || rate.Policy != "sign_in_links" || !rate.Decision.Allowed || rate.Decision.Limit != 3 {
			t.Fatalf("link %d: %+v %v", i+1, rate, err)
		}
	}
	// The address is the same whatever its case: the third for it is refused.
	rate, err := f.ru.RequestLink("192.0.2.2", "ann@example.COM", "", "/")
	if scope, limit := refusal(t, "a third link for one address", err); scope != "email" || limit != "sign_in_links" {
		t.Fatalf("a third link for one address: scope %q limit %q", scope, limit)
	}
	if rate.Decision.Allowed || rate.Decision.Limit != 2 || rate.Decision.RetryAfter <= 0 {
		t.Fatalf("the refusal's rate %+v, want refused, of 2, with a wait", rate)
	}
	// A bad address is its field's error, counting nothing against the client.
	rate, err = f.ru.RequestLink("192.0.2.1", "not an address", "", "/")
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.Invalid || fe.Details["field"] != "email" || rate.Policy != "" {
		t.Fatalf("a bad address: %+v %v, want INVALID naming email and no rate", rate, err)
	}
	// 192.0.2.1 asked twice: one more, then its own limit, whatever address it names.
	if _, err := f.ru.RequestLink("192.0.2.1", "bob@example.com", "", "/"); err != nil {
		t.Fatalf("the client's third: %v", err)
	}
	_, err = f.ru.RequestLink("192.0.2.1", "cy@example.com", "", "/")
	if scope, _ := refusal(t, "the client's fourth", err); scope != "address" {
		t.Fatalf("the client's fourth: scope %q, want address", scope)
	}
	if got := len(f.ru.mails); got != 3 {
		t.Fatalf("%d mails queued, want the 3 admitted", got)
	}
	f.clock.add(15 * time.Minute)
	if _, err := f.ru.RequestLink("192.0.2.1", "ann@example.com", "", "/"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

// TestClaimsAreLimitedPerAddressAndPerPerson: a client address makes at most
// ClaimsPerClient claim attempts per window and a person ClaimsPerPerson, right
// or wrong; a proof of the wrong shape is refused before anything is counted.
func TestClaimsAreLimitedPerAddressAndPerPerson(t *testing.T) {
	f := newFixture(t, Limits{ClaimsPerClient: 3, ClaimsPerPerson: 2, Window: 15 * time.Minute, ClaimFailureBudget: -1})
	ctx := context.Background()
	ann, bob := f.person(t, "ann@example.com"), f.person(t, "bob@example.com")
	wrong := tenant.ClaimProof{Code: "ABC-1234", Token: "ct_wrong"}
	if _, rate, err := f.ru.Claim(ctx, "192.0.2.1", ann, tenant.ClaimProof{Code: "ABC-1234"}); !isFault(err, fault.Invalid) || rate.Policy != "" {
		t.Fatalf("a code without its token: %+v %v, want INVALID and no rate", rate, err)
	}
	for i := range 2 {
		if _, rate, err := f.ru.Claim(ctx, "192.0.2.1", ann, wrong); !isFault(err, fault.NotFound) || rate.Policy != "claims" || !rate.Decision.Allowed {
			t.Fatalf("ann's attempt %d: %+v %v, want NOT_FOUND counted", i+1, rate, err)
		}
	}
	_, rate, err := f.ru.Claim(ctx, "192.0.2.9", ann, wrong)
	if scope, limit := refusal(t, "ann's third", err); scope != "person" || limit != "claims" || rate.Decision.Allowed {
		t.Fatalf("ann's third: scope %q limit %q rate %+v", scope, limit, rate)
	}
	// 192.0.2.1 made two attempts: bob's first from it is its third, his second refused.
	if _, _, err := f.ru.Claim(ctx, "192.0.2.1", bob, wrong); !isFault(err, fault.NotFound) {
		t.Fatalf("the address's third: %v", err)
	}
	_, _, err = f.ru.Claim(ctx, "192.0.2.1", bob, wrong)
	if scope, _ := refusal(t, "the address's fourth", err); scope != "address" {
		t.Fatalf("the address's fourth: scope %q, want address", scope)
	}
}

// TestAGuessedCodeNeverClaimsAndTheGlobalBudgetStopsGuessers: a code with a
// guessed token claims nothing (NOT_FOUND), and guesses from any address and any
// person spend one global budget; once spent, every claim, even a right one, is
// refused (scope global) with the seconds to wait, and counted in the metrics;
// when the budget has refilled, the right proof claims the account.
func TestAGuessedCodeNeverClaimsAndTheGlobalBudgetStopsGuessers(t *testing.T) {
	f := newFixture(t, Limits{ClaimFailureBudget: 2, Window: 10 * time.Minute})
	ctx := context.Background()
	reg := f.agent(t, "ten_guessed")
	owner := f.person(t, "owner@example.com")
	for i, who := range []string{"one@example.com", "two@example.com"} {
		_, _, err := f.ru.Claim(ctx, "198.51.100."+string(rune('1'+i)), f.person(t, who), tenant.ClaimProof{Code: reg.Tenant.ClaimCode, Token: "ct_guess" + who})
		if !isFault(err, fault.NotFound) {
			t.Fatalf("guess %d: %v, want NOT_FOUND", i+1, err)
		}
	}
	right := tenant.ClaimProof{Code: reg.Tenant.ClaimCode, Token: reg.ClaimToken}
	_, rate, err := f.ru.Claim(ctx, "203.0.113.7", owner, right)
	if scope, limit := refusal(t, "a claim while the budget is spent", err); scope != "global" || limit != "claim_failures" {
		t.Fatalf("while spent: scope %q limit %q", scope, limit)
	}
	var fe *fault.Error
	errors.As(err, &fe) // refusal above checked it is one
	wait, _ := fe.Details["retry_after"].(int)
	if wait <= 0 || rate.Policy != "claims" || !rate.Decision.Allowed {
		t.Fatalf("while spent the rate is %+v and the wait %d s, want the person's limit and a wait", rate, wait)
	}
	if got := f.count(t, "folio_claim_failures_total"); got != 2 {
		t.Fatalf("folio_claim_failures_total = %v, want 2", got)
	}
	if got := f.count(t, "folio_claim_budget_exhausted_total"); got != 1 {
		t.Fatalf("folio_claim_budget_exhausted_total = %v, want 1", got)
	}
	f.clock.add(time.Duration(wait) * time.Second)
	got, _, err := f.ru.Claim(ctx, "203.0.113.7", owner, right)
	if err != nil || got.ID != "ten_guessed" || !got.Claimed {
		t.Fatalf("the right proof once the budget refilled: %+v %v", got, err)
	}
}

// TestTheWelcomeKeyIsShownExactlyOnce: a first sign-in gets a workspace and its
// key is handed over once, to that session only; a second sign-in of the same
// person makes no other workspace; an unclaimed key is gone after welcomeTTL.
func TestTheWelcomeKeyIsShownExactlyOnce(t *testing.T) {
	f := newFixture(t, Limits{})
	ctx := context.Background()
	u, _, err := f.people.SignIn(people.Proof{Email: "new@example.com", Name: "New Person"})
	if err != nil {
		t.Fatal(err)
	}
	welcome, err := f.ru.FirstWorkspace(ctx, u, "sess_1")
	if err != nil || !welcome {
		t.Fatalf("a first sign-in: welcome %v, %v", welcome, err)
	}
	if _, _, ok := f.ru.TakeWelcome("sess_other"); ok {
		t.Fatal("another session took the welcome key")
	}
	key, tenantID, ok := f.ru.TakeWelcome("sess_1")
	if !ok || !tenant.IsAPIKey(key) || tenantID == "" {
		t.Fatalf("the welcome key: %q %q %v", key, tenantID, ok)
	}
	if _, _, ok := f.ru.TakeWelcome("sess_1"); ok {
		t.Fatal("the welcome key was handed over twice")
	}
	if welcome, err := f.ru.FirstWorkspace(ctx, u, "sess_2"); err != nil || welcome {
		t.Fatalf("a second sign-in: welcome %v, %v, want none", welcome, err)
	}
	v, _, err := f.people.SignIn(people.Proof{Email: "late@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if welcome, err := f.ru.FirstWorkspace(ctx, v, "sess_3"); err != nil || !welcome {
		t.Fatalf("late's first sign-in: %v %v", welcome, err)
	}
	f.clock.add(welcomeTTL + time.Second)
	if _, _, ok := f.ru.TakeWelcome("sess_3"); ok {
		t.Fatal("the welcome key was handed over after welcomeTTL")
	}
}

// TestClaimMailsAtRegistrationAreLimited: registering agents that name an owner
// mail them at most RegisterMailsPerRecipient claim mails, and one client asks for
// at most RegisterMailsPerClient, per window; an agent naming nobody mails nobody.
func TestClaimMailsAtRegistrationAreLimited(t *testing.T) {
	f := newFixture(t, Limits{RegisterMailsPerRecipient: 2, RegisterMailsPerClient: 3})
	mail := func(addr, to string) bool {
		return f.ru.ClaimMail(addr, tenant.Tenant{ID: "ten_x", Name: "Bot", OwnerEmail: to, ClaimCode: "ABC-1234"}, "http://127.0.0.1:1/claim#ct_x")
	}
	if mail("192.0.2.1", "") {
		t.Fatal("a registration naming no owner queued a mail")
	}
	if !mail("192.0.2.1", "Owner@example.com") || !mail("192.0.2.2", "owner@example.com") {
		t.Fatal("the first two claim mails to an owner were not queued")
	}
	if mail("192.0.2.3", "owner@example.com") {
		t.Fatal("a third claim mail to one owner was queued")
	}
	// 192.0.2.1 asked for one: two more, whoever they are for, then none.
	if !mail("192.0.2.1", "a@example.com") || !mail("192.0.2.1", "b@example.com") || mail("192.0.2.1", "c@example.com") {
		t.Fatal("one client's registration mails are not limited to 3")
	}
	if got := len(f.ru.mails); got != 4 {
		t.Fatalf("%d mails queued, want 4", got)
	}
	for len(f.ru.mails) > 0 {
		if j := <-f.ru.mails; j.kind != people.PurposeClaim || !strings.Contains(j.claimURL, "#ct_x") {
			t.Fatalf("queued %+v", j)
		}
	}
}
