package people_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"folio/actors/people"
	"folio/persistence"
	"folio/persistence/storetest"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func open(t *testing.T) (*people.Directory, *persistence.Store, *clock, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := persistence.OpenURL(storetest.URL(t, dir), dir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clk := &clock{now: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	return people.NewDirectory(st, clk.Now, people.Lifetimes{}), st, clk, dir
}

// TestFirstSignInsAtOnceMakeOneAccount: sixteen first sign-ins of one address at the
// same moment (in any letter case) end in one account.
func TestFirstSignInsAtOnceMakeOneAccount(t *testing.T) {
	d, _, _, _ := open(t)
	var wg sync.WaitGroup
	ids := make([]string, 16)
	var created atomic.Int32
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			email := "Ann@Example.com"
			if i%2 == 0 {
				email = "ann@example.COM"
			}
			u, c, err := d.SignIn(people.Proof{Email: email})
			if err != nil {
				t.Error(err)
			}
			if c {
				created.Add(1)
			}
			ids[i] = u.ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("sign-ins gave accounts %v, want one", ids)
		}
	}
	if created.Load() != 1 {
		t.Fatalf("%d sign-ins said they created the account, want 1", created.Load())
	}
	if u, ok, _ := d.UserByEmail("ANN@example.com"); !ok || u.ID != ids[0] || u.Email != "ann@example.com" {
		t.Fatalf("UserByEmail = %+v %v", u, ok)
	}
}

// TestAccountAddressFollowsTheProvider: a provider subject keeps its account when
// the provider's verified address changes, and the account moves to the new
// address: the old one no longer finds it (a link to it makes another account),
// and every session the account had ends. A new address that is another account's
// is refused, and so is a second subject of a provider presenting an address whose
// account is linked to another subject of that provider. A provider first seen
// with an address joins that address's account.
func TestAccountAddressFollowsTheProvider(t *testing.T) {
	d, _, _, _ := open(t)
	first, _, _ := d.SignIn(people.Proof{Email: "frank@corp.example", Provider: "github", Subject: "42"})
	byLink, _, _ := d.SignIn(people.Proof{Email: "frank@corp.example"})
	byGoogle, _, _ := d.SignIn(people.Proof{Email: "frank@corp.example", Provider: "google", Subject: "g-7"})
	if byLink.ID != first.ID || byGoogle.ID != first.ID || byGoogle.Providers["google"] != "g-7" {
		t.Fatalf("accounts %s %s, want %s with google g-7 (%v)", byLink.ID, byGoogle.ID, first.ID, byGoogle.Providers)
	}
	token, _, err := d.StartSession(first, "oauth")
	if err != nil {
		t.Fatal(err)
	}

	if _, _, err := d.SignIn(people.Proof{Email: "frank@corp.example", Provider: "github", Subject: "43"}); !errors.Is(err, people.ErrOtherSubject) {
		t.Fatalf("a second GitHub subject with the account's address: %v, want ErrOtherSubject", err)
	}

	moved, created, err := d.SignIn(people.Proof{Email: "Frank@Personal.example", Provider: "github", Subject: "42"})
	if err != nil || created || moved.ID != first.ID || moved.Email != "frank@personal.example" {
		t.Fatalf("the subject with a new address: %+v created %v err %v, want account %s at frank@personal.example", moved, created, err, first.ID)
	}
	if _, _, ok, _ := d.Session(token); ok {
		t.Fatal("a session opened under the old address outlived the move")
	}
	if u, ok, _ := d.UserByEmail("frank@corp.example"); ok {
		t.Fatalf("the old address still finds account %s", u.ID)
	}
	if u, ok, _ := d.UserByEmail("frank@personal.example"); !ok || u.ID != first.ID {
		t.Fatalf("the new address finds %v %v", u.ID, ok)
	}
	other, created, _ := d.SignIn(people.Proof{Email: "frank@corp.example"})
	if !created || other.ID == first.ID {
		t.Fatalf("a link to the released address: account %s created %v, want a new one", other.ID, created)
	}

	if _, _, err := d.SignIn(people.Proof{Email: "frank@corp.example", Provider: "github", Subject: "42"}); !errors.Is(err, people.ErrAddressTaken) {
		t.Fatalf("the subject back at an address another account holds: %v, want ErrAddressTaken", err)
	}
	if u, _, _ := d.User(first.ID); u.Email != "frank@personal.example" {
		t.Fatalf("a refused sign-in changed the account's address to %s", u.Email)
	}
}

// TestALinkWorksOnceEvenWhenUsedAtOnce: of eight uses of one link at the same
// moment exactly one gets it; later uses and an expired link are refused.
func TestALinkWorksOnceEvenWhenUsedAtOnce(t *testing.T) {
	d, _, clk, _ := open(t)
	token, err := d.IssueLink(people.Link{Email: "Bo@Example.com", Redirect: "/p/x", Purpose: people.PurposeSignIn})
	if err != nil {
		t.Fatal(err)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := d.UseLink(token)
			switch {
			case err == nil:
				wins.Add(1)
				if l.Email != "bo@example.com" || l.Redirect != "/p/x" {
					t.Errorf("link = %+v", l)
				}
			case !errors.Is(err, people.ErrUnknown):
				t.Errorf("a losing use: %v, want ErrUnknown", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d uses won, want exactly 1", wins.Load())
	}
	late, _ := d.IssueLink(people.Link{Email: "bo@example.com", Purpose: people.PurposeSignIn})
	clk.advance(15*time.Minute + time.Second)
	if _, err := d.UseLink(late); !errors.Is(err, people.ErrExpired) {
		t.Fatalf("a link used after 15 minutes: %v, want ErrExpired", err)
	}
	claim, _ := d.IssueLink(people.Link{Email: "bo@example.com", Purpose: people.PurposeClaim, TenantID: "ten_1"})
	clk.advance(71 * time.Hour)
	if l, err := d.UseLink(claim); err != nil || l.TenantID != "ten_1" {
		t.Fatalf("a claim link after 71 hours: %+v %v, want it to work (72 hours)", l, err)
	}
}

// TestASessionSlidesWhileUsedAndEndsAtOnce: a session used within its lifetime is
// extended (and survives a restart); one unused for 30 days is refused; ending it
// refuses it at once and runs what was waiting for its end.
func TestASessionSlidesWhileUsedAndEndsAtOnce(t *testing.T) {
	d, st, clk, _ := open(t)
	u, _, _ := d.SignIn(people.Proof{Email: "cy@example.com"})
	token, s, err := d.StartSession(u, "magic_link")
	if err != nil {
		t.Fatal(err)
	}
	if s.CSRF == "" || s.ID == "" || !people.IsSessionToken(token) {
		t.Fatalf("session %+v token %q", s, token)
	}
	clk.advance(20 * 24 * time.Hour)
	got, extended, ok, _ := d.Session(token)
	if !ok || !extended || !got.ExpiresAt.Equal(clk.Now().Add(30*24*time.Hour)) {
		t.Fatalf("a use after 20 days: ok %v extended %v expires %v", ok, extended, got.ExpiresAt)
	}
	// Another directory on the same store (a restart) knows the extended session.
	d2 := people.NewDirectory(st, clk.Now, people.Lifetimes{})
	clk.advance(29 * 24 * time.Hour)
	if _, _, ok, _ := d2.Session(token); !ok {
		t.Fatal("the extended session was lost or not extended in storage")
	}
	ended := make(chan struct{})
	d2.OnEnd(s.ID, func() { close(ended) })
	if _, ok := d2.EndSession(token); !ok {
		t.Fatal("EndSession did not find the session")
	}
	select {
	case <-ended:
	default:
		t.Fatal("ending the session did not run its watcher before returning")
	}
	if _, _, ok, _ := d2.Session(token); ok {
		t.Fatal("an ended session still works")
	}
	if _, _, ok, _ := d.Session(token); ok {
		t.Fatal("an ended session still works through another directory's cache")
	}

	idle, _, _ := d.StartSession(u, "oauth")
	clk.advance(30*24*time.Hour + time.Second)
	if _, _, ok, _ := d.Session(idle); ok {
		t.Fatal("a session unused for 30 days still works")
	}
}

// TestSweepForgetsWhatExpired: expired sessions, links and flows are deleted;
// live ones stay.
func TestSweepForgetsWhatExpired(t *testing.T) {
	d, _, clk, _ := open(t)
	u, _, _ := d.SignIn(people.Proof{Email: "di@example.com"})
	old, _, _ := d.StartSession(u, "magic_link")
	oldLink, _ := d.IssueLink(people.Link{Email: "di@example.com", Purpose: people.PurposeSignIn})
	oldFlow, _ := d.StartFlow(people.Flow{Provider: "github", Verifier: "v"})
	clk.advance(31 * 24 * time.Hour)
	live, _, _ := d.StartSession(u, "magic_link")
	liveFlow, _ := d.StartFlow(people.Flow{Provider: "github", Verifier: "w"})
	if err := d.Sweep(); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := d.Session(old); ok {
		t.Error("an expired session survived the sweep")
	}
	if _, err := d.UseLink(oldLink); !errors.Is(err, people.ErrUnknown) {
		t.Errorf("an expired link after the sweep: %v, want ErrUnknown (deleted)", err)
	}
	if _, err := d.TakeFlow(oldFlow); !errors.Is(err, people.ErrUnknown) {
		t.Errorf("an expired flow after the sweep: %v, want ErrUnknown (deleted)", err)
	}
	if _, _, ok, _ := d.Session(live); !ok {
		t.Error("the sweep ended a live session")
	}
	if f, err := d.TakeFlow(liveFlow); err != nil || f.Verifier != "w" {
		t.Errorf("a live flow: %+v %v", f, err)
	}
}
