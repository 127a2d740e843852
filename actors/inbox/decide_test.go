package inbox

import (
	"strings"
	"sync"
	"testing"
	"time"

	"folio/actors/page"
	"folio/persistence"
)

// chainPage is an active page of tenant with a sequential chain: one step per
// list of assignees.
func chainPage(id, tenant, title string, created time.Time, steps ...[]string) *page.Page {
	p := &page.Page{ID: id, TenantID: tenant, Title: title, Status: page.Active, Priority: "normal",
		CreatedAt: created, PublishedAt: at(created), Actions: []page.Action{{ActionID: "approve"}, {ActionID: "reject"}}}
	c := &page.Chain{Mode: page.ModeSequential, Status: page.ChainInProgress}
	for i, a := range steps {
		c.Steps = append(c.Steps, page.ChainStep{StepID: "s" + string(rune('1'+i)), Name: "Step " + string(rune('1'+i)), Status: page.StepPending, Assignees: a, MinApprovals: 1})
	}
	p.Approval = c
	return p
}

func ids(list []Awaited) string {
	var out []string
	for _, a := range list {
		out = append(out, a.PageID)
	}
	return strings.Join(out, ",")
}

// TestNeedsMyDecisionListsTheCurrentStepsAssigneesOnly: an assignee of the
// current step sees the page; the next step's assignee does not until the first
// step is decided; a page of another workspace never appears, even one naming the
// person; a page without a chain appears to every member of its workspace.
func TestNeedsMyDecisionListsTheCurrentStepsAssigneesOnly(t *testing.T) {
	s := openStore(t)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	p := chainPage("pg_chain", "ten_a", "Expense", t0, []string{"Alice@Example.com"}, []string{"bob@example.com"})
	other := chainPage("pg_other", "ten_b", "Theirs", t0, []string{"alice@example.com"})
	open := &page.Page{ID: "pg_open", TenantID: "ten_a", Title: "Open", Status: page.Active, Priority: "normal", CreatedAt: t0.Add(time.Minute),
		Actions: []page.Action{{ActionID: "ok"}}}
	noActions := &page.Page{ID: "pg_read", TenantID: "ten_a", Title: "Read only", Status: page.Active, Priority: "normal", CreatedAt: t0}
	stage(t, s, p, other, open, noActions)

	list := func(email string) string {
		t.Helper()
		l, n, err := needsDecision(s, []string{"ten_a"}, email, t0, 50)
		if err != nil {
			t.Fatal(err)
		}
		if n != len(l) {
			t.Errorf("%s: total %d, rows %d", email, n, len(l))
		}
		return ids(l)
	}
	if got := list("alice@example.com"); got != "pg_chain,pg_open" {
		t.Errorf("alice sees %q, want the chain's page (her step) and the open page", got)
	}
	if got := list("bob@example.com"); got != "pg_open" {
		t.Errorf("bob sees %q before his turn, want only the open page", got)
	}

	// Alice decides step 1: the page leaves her list and enters Bob's.
	q := chainPage("pg_chain", "ten_a", "Expense", t0, []string{"Alice@Example.com"}, []string{"bob@example.com"})
	q.Approval.Steps[0].Status = page.StepCompleted
	q.Approval.Steps[0].Decisions = []page.StepDecision{{Identity: "alice@example.com", Decision: "approved"}}
	stage(t, s, q)
	if got := list("alice@example.com"); got != "pg_open" {
		t.Errorf("alice sees %q after deciding, want only the open page", got)
	}
	if got := list("bob@example.com"); got != "pg_chain,pg_open" {
		t.Errorf("bob sees %q on his turn", got)
	}

	// Completed: nobody sees it.
	r := *q
	r.Status = page.Completed
	stage(t, s, &r)
	if got := list("bob@example.com"); got != "pg_open" {
		t.Errorf("bob sees %q once the page completed", got)
	}
	// Another workspace's page never appears to someone outside it, even naming them.
	if l, _, _ := needsDecision(s, []string{"ten_a"}, "alice@example.com", t0, 50); strings.Contains(ids(l), "pg_other") {
		t.Error("another workspace's page appeared")
	}
}

// TestNeedsMyDecisionSortsByDeadlineThenPriorityAndMarksOverdue: the nearest
// deadline first (pages without one last), then the most urgent priority, then the
// oldest; a page past its due time is overdue; an expired page is left out; the
// list reads across the person's workspaces and stops at the limit.
func TestNeedsMyDecisionSortsByDeadlineThenPriorityAndMarksOverdue(t *testing.T) {
	s := openStore(t)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	mk := func(id, tenant, prio string, due *time.Time, created time.Time) *page.Page {
		p := chainPage(id, tenant, id, created, []string{"me@example.com"})
		p.Priority = prio
		if due != nil {
			p.Deadline = &page.Deadline{DueAt: due}
		}
		return p
	}
	expired := mk("pg_expired", "ten_a", "urgent", at(t0.Add(time.Minute)), t0)
	expired.ExpiresAt = at(t0.Add(-time.Second))
	stage(t, s,
		mk("pg_late_low", "ten_a", "low", at(t0.Add(-time.Hour)), t0),
		mk("pg_soon_normal", "ten_b", "normal", at(t0.Add(time.Hour)), t0),
		mk("pg_soon_urgent", "ten_a", "urgent", at(t0.Add(time.Hour)), t0.Add(time.Second)),
		mk("pg_none_high", "ten_b", "high", nil, t0),
		mk("pg_none_low_old", "ten_a", "low", nil, t0.Add(-time.Hour)),
		mk("pg_none_low_new", "ten_a", "low", nil, t0),
		expired,
	)
	l, total, err := needsDecision(s, []string{"ten_a", "ten_b"}, "ME@example.com", t0, 50)
	if err != nil {
		t.Fatal(err)
	}
	if want := "pg_late_low,pg_soon_urgent,pg_soon_normal,pg_none_high,pg_none_low_old,pg_none_low_new"; ids(l) != want {
		t.Errorf("order %q\n want %q", ids(l), want)
	}
	if !l[0].Overdue(t0) || l[1].Overdue(t0) {
		t.Errorf("overdue: first %v (want true), second %v (want false)", l[0].Overdue(t0), l[1].Overdue(t0))
	}
	if total != 7 {
		t.Errorf("total %d, want 7 (the expired page counts until the sweep ends it)", total)
	}
	if l, _, _ := needsDecision(s, []string{"ten_a", "ten_b"}, "me@example.com", t0, 2); ids(l) != "pg_late_low,pg_soon_urgent" {
		t.Errorf("limit 2: %q", ids(l))
	}
}

// TestNeedsMyDecisionReadsAreBounded: with many pages waiting on others in the
// workspace, listing one person's reads only their range (a handful of rows), and
// concurrent commits and listings agree under -race.
func TestNeedsMyDecisionReadsAreBounded(t *testing.T) {
	s := openStore(t)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 60; i++ {
				id := "pg_" + string(rune('a'+w)) + strings.Repeat("x", 1) + itoa3(i)
				stage(t, s, chainPage(id, "ten_a", id, t0, []string{"other" + itoa3(i) + "@example.com"}))
				if i%20 == 0 {
					if _, _, err := needsDecision(s, []string{"ten_a"}, "me@example.com", t0, 10); err != nil {
						t.Error(err)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	stage(t, s, chainPage("pg_mine", "ten_a", "Mine", t0, []string{"me@example.com"}))
	var rows int
	if err := s.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketDecide, decidePrefix("ten_a", audienceOf("me@example.com")), false, func(_, _ []byte) bool { rows++; return true })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if rows != 1 {
		t.Errorf("my range holds %d rows, want 1 among 241 pages", rows)
	}
	l, n, err := needsDecision(s, []string{"ten_a"}, "me@example.com", t0, 10)
	if err != nil || ids(l) != "pg_mine" || n != 1 {
		t.Errorf("list %q total %d err %v", ids(l), n, err)
	}
}

func itoa3(i int) string {
	return string([]byte{byte('0' + i/100%10), byte('0' + i/10%10), byte('0' + i%10)})
}

// TestAwaitingReadsOneRangeSkippingExpiredUpToTheLimit: the scan both listings
// share (a workspace's own rows, and another workspace's rows that reach a person)
// leaves out the pages past their expiry time and stops at limit rows kept.
func TestAwaitingReadsOneRangeSkippingExpiredUpToTheLimit(t *testing.T) {
	s := openStore(t)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	var pages []*page.Page
	for i := range 5 {
		p := chainPage("pg_"+itoa3(i), "ten_a", "Page", t0.Add(time.Duration(i)*time.Minute), []string{"me@example.com"})
		if i%2 == 0 { // pg_000, pg_002, pg_004 expire before now
			p.ExpiresAt = at(t0.Add(time.Hour))
		}
		pages = append(pages, p)
	}
	stage(t, s, pages...)
	now := t0.Add(2 * time.Hour)
	read := func(limit int) string {
		t.Helper()
		var got []Awaited
		if err := s.View(func(tx *persistence.Tx) (err error) {
			got, err = awaiting(tx, decidePrefix("ten_a", audienceOf("me@example.com")), now, limit, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ids(got)
	}
	if got := read(10); got != "pg_001,pg_003" {
		t.Errorf("limit 10: %q, want the two unexpired pages", got)
	}
	if got := read(1); got != "pg_001" {
		t.Errorf("limit 1: %q, want the first unexpired page only", got)
	}
}
