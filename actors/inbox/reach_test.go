package inbox

import (
	"sync"
	"testing"
	"time"

	"folio/actors/page"
	"folio/persistence"
)

// TestAReviewerOutsideTheWorkspaceSeesThePagesNamingThemThatLetThemIn: a page of
// another workspace whose open step names the person is listed for them (with the
// pages of their own workspace, in deadline order) when the page lets them in, and
// not when it does not; a later step naming them waits its turn; taken off the
// step, they no longer see it, and the index keeps no trace of them there.
func TestAReviewerOutsideTheWorkspaceSeesThePagesNamingThemThatLetThemIn(t *testing.T) {
	s := openStore(t)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	due := t0.Add(time.Hour)
	mine := chainPage("pg_mine", "ten_me", "Mine", t0, []string{"rev@example.com"})
	shared := chainPage("pg_shared", "ten_b", "Shared", t0, []string{"Rev@Example.com"})
	shared.Deadline = &page.Deadline{DueAt: &due}
	closed := chainPage("pg_closed", "ten_c", "Not shared", t0, []string{"rev@example.com"})
	later := chainPage("pg_later", "ten_b", "Later step", t0, []string{"bob@example.com"}, []string{"rev@example.com"})
	stage(t, s, mine, shared, closed, later)

	var mu sync.Mutex
	asked := map[string]int{}
	q := Asked{Email: "rev@example.com", Members: []string{"ten_me"}, Admit: func(a *Awaited) bool {
		mu.Lock()
		asked[a.PageID]++
		mu.Unlock()
		return a.PageID != "pg_closed"
	}}
	l, n, err := NeedsDecisionOf(s, q, t0, 50)
	if err != nil {
		t.Fatal(err)
	}
	if ids(l) != "pg_shared,pg_mine" || n != 2 {
		t.Errorf("the reviewer sees %q (total %d), want the shared page (deadline first) and their own", ids(l), n)
	}
	if asked["pg_mine"] != 0 || asked["pg_closed"] != 1 || asked["pg_later"] != 0 {
		t.Errorf("access asked of %v, want only the other workspaces' pages that wait on them", asked)
	}
	if l, _, _ := NeedsDecisionOf(s, Asked{Email: "rev@example.com", Members: []string{"ten_me"}}, t0, 50); ids(l) != "pg_mine" {
		t.Errorf("without an access check the reviewer sees %q, want their own workspace's page only", ids(l))
	}

	// Taken off the step: gone, and no workspace is read for them any more.
	shared.Approval.Steps[0].Assignees = []string{"carol@example.com"}
	closed.Status = page.Revoked
	stage(t, s, shared, closed)
	if l, n, _ := NeedsDecisionOf(s, q, t0, 50); ids(l) != "pg_mine" || n != 1 {
		t.Errorf("after being taken off the step the reviewer sees %q (total %d)", ids(l), n)
	}
	var left []string
	if err := s.View(func(tx *persistence.Tx) error { left = reached(tx, "rev@example.com"); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != "ten_me" {
		t.Errorf("the reach index names %v for the reviewer, want only ten_me", left)
	}
}

// TestTheBellRingsThePageWorkspaceAndTheNamedPeople: a commit rings its workspace
// and everyone its chain names, and nobody else.
func TestTheBellRingsThePageWorkspaceAndTheNamedPeople(t *testing.T) {
	b := NewBell()
	o := &Outlet{Bell: b}
	ws, lw := b.Listen([]string{TenantKey("ten_b")})
	rev, lr := b.Listen([]string{PersonKey("REV@example.com")})
	other, lo := b.Listen([]string{TenantKey("ten_c"), PersonKey("x@example.com")})
	defer lw.Stop()
	defer lr.Stop()
	defer lo.Stop()
	o.Committed(chainPage("pg", "ten_b", "T", time.Now(), []string{"rev@example.com"}), nil)
	for name, ch := range map[string]<-chan struct{}{"workspace": ws, "reviewer": rev} {
		select {
		case <-ch:
		default:
			t.Errorf("the %s was not rung", name)
		}
	}
	select {
	case <-other:
		t.Error("a listener of neither was rung")
	default:
	}
}
