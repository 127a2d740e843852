package inbox

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"folio/actors/page"
	"folio/persistence"
	"folio/persistence/storetest"
)

func openStore(t testing.TB) *persistence.Store {
	t.Helper()
	storeDir := t.TempDir()
	s, err := persistence.OpenURL(storetest.URL(t, storeDir), storeDir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func stage(t testing.TB, s *persistence.Store, pages ...*page.Page) {
	t.Helper()
	o := newOutlet()
	if err := s.Update(func(tx *persistence.Tx) error {
		for _, p := range pages {
			if err := o.Stage(tx, p, nil); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func at(t time.Time) *time.Time { return &t }

var (
	priorities = []string{"low", "normal", "high", "urgent"}
	pageTypes  = []string{"approval", "review", ""}
	statuses   = []string{Unread, Read, Archived}
)

// model is the brute-force truth the indexes are checked against.
type model struct {
	pages   map[string]*page.Page
	reading map[string]string // pageId -> reading state
}

func (m *model) expect(tenant string, f Filter) ([]string, int) {
	var ids []*page.Page
	for _, p := range m.pages {
		st := m.reading[p.ID]
		switch {
		case p.TenantID != tenant:
		case f.Status == "" && st == Archived:
		case f.Status != "" && st != f.Status:
		case f.Priority != "" && p.Priority != f.Priority:
		case f.PageType != "" && p.PageType != f.PageType:
		default:
			ids = append(ids, p)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.After(b.CreatedAt)
		}
		return EntryID(a.ID) > EntryID(b.ID)
	})
	out := []string{}
	for i := f.Offset; i < len(ids) && len(out) < f.Limit; i++ {
		out = append(out, EntryID(ids[i].ID))
	}
	return out, len(ids)
}

// TestIndexesAgreeWithBruteForce drives random page changes and reading-state
// changes through the outlet and changeReading, then checks every filter
// combination, at several offsets (deep ones walk from the oldest end), against a
// brute-force listing; and the dashboard and quality score against brute-force sums.
func TestIndexesAgreeWithBruteForce(t *testing.T) {
	s := openStore(t)
	rng := rand.New(rand.NewSource(7))
	t0 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	m := &model{pages: map[string]*page.Page{}, reading: map[string]string{}}
	tenants := []string{"ten_a", "ten_b"}
	var order []string
	for i := 0; i < 400; i++ {
		created := t0.Add(time.Duration(rng.Intn(40*24)) * time.Hour) // some share a creation time
		p := &page.Page{ID: fmt.Sprintf("pg_%04d", i), TenantID: tenants[rng.Intn(2)], Status: page.Draft,
			Title: fmt.Sprint("page ", i), Priority: priorities[rng.Intn(4)], PageType: pageTypes[rng.Intn(3)], CreatedAt: created, Livemode: true}
		if rng.Intn(3) > 0 {
			p.Status, p.PublishedAt = page.Active, at(created)
		}
		m.pages[p.ID], m.reading[p.ID] = p, Unread
		order = append(order, p.ID)
		stage(t, s, p)
	}
	for i := 0; i < 1500; i++ {
		id := order[rng.Intn(len(order))]
		p := m.pages[id]
		switch rng.Intn(6) {
		case 0: // decide
			if p.Status == page.Active {
				c := *p
				if rng.Intn(2) == 0 {
					c.Status, c.CompletedAt = page.Completed, at(p.PublishedAt.Add(time.Duration(1+rng.Intn(48))*time.Hour))
				} else {
					c.Status, c.RevokedAt = page.Revoked, at(p.PublishedAt.Add(time.Hour))
				}
				m.pages[id] = &c
				stage(t, s, &c)
			}
		case 1: // edit what the inbox shows
			c := *p
			c.Title, c.Priority, c.PageType = fmt.Sprint("edited ", i), priorities[rng.Intn(4)], pageTypes[rng.Intn(3)]
			m.pages[id] = &c
			stage(t, s, &c)
		case 2: // a change the inbox does not show (blocks): staged again as is
			stage(t, s, p)
		default: // reading state
			st := statuses[rng.Intn(3)]
			err := changeReading(s, p.TenantID, EntryID(id), func(e *Entry) {
				switch {
				case st == Read && e.Status == Unread, st == Archived:
					e.Status = st
				}
				e.Starred = !e.Starred
			})
			if err != nil {
				t.Fatal(err)
			}
			if cur := m.reading[id]; (st == Read && cur == Unread) || st == Archived {
				m.reading[id] = st
			}
		}
	}
	checked := 0
	for _, ten := range tenants {
		for _, st := range append([]string{""}, statuses...) {
			for _, pr := range append([]string{""}, priorities...) {
				for _, pt := range pageTypes[:2] {
					for _, pt := range []string{"", pt} {
						for _, lo := range [][2]int{{50, 0}, {7, 3}, {5, 60}, {200, 0}, {3, 1000}, {10, 90}} {
							f := Filter{Status: st, Priority: pr, PageType: pt, Limit: lo[0], Offset: lo[1]}
							want, wantTotal := m.expect(ten, f)
							got, total, err := List(s, ten, f)
							if err != nil {
								t.Fatal(err)
							}
							ids := []string{}
							for _, e := range got {
								ids = append(ids, e.ID)
								if e.Status != m.reading[e.PageID] || e.PageStatus != m.pages[e.PageID].Status || e.Title != m.pages[e.PageID].Title {
									t.Fatalf("entry %s: %+v, model page %+v reading %s", e.ID, e, m.pages[e.PageID], m.reading[e.PageID])
								}
							}
							if total != wantTotal || fmt.Sprint(ids) != fmt.Sprint(want) {
								t.Fatalf("%s %+v: total %d ids %v, want %d %v", ten, f, total, ids, wantTotal, want)
							}
							checked++
						}
					}
				}
			}
		}
	}
	now := t0.Add(41 * 24 * time.Hour).Add(30 * time.Minute)
	for _, ten := range tenants {
		for period, d := range Periods {
			var want counters
			for _, p := range m.pages {
				if p.TenantID != ten || (d > 0 && p.CreatedAt.Before(now.Add(-d).Truncate(time.Hour))) {
					continue
				}
				c := contribution(&Entry{PageStatus: p.Status, PublishedAt: p.PublishedAt, CompletedAt: p.CompletedAt}, 1)
				want.add(&c)
			}
			got, err := Dashboard(s, ten, period, now)
			if err != nil {
				t.Fatal(err)
			}
			if got.TotalPages != want.Total || got.ActivePages != want.Active || got.CompletedPages != want.Completed {
				t.Fatalf("%s %s: %+v, want %+v", ten, period, got, want)
			}
		}
		var window []*page.Page
		for _, p := range m.pages {
			if p.TenantID == ten {
				window = append(window, p)
			}
		}
		sort.Slice(window, func(i, j int) bool {
			if !window[i].CreatedAt.Equal(window[j].CreatedAt) {
				return window[i].CreatedAt.After(window[j].CreatedAt)
			}
			return window[i].ID > window[j].ID
		})
		window = window[:min(WindowSize, len(window))]
		var q qualityAgg
		for _, p := range window {
			o, ms := outcomeOf(&Entry{PageStatus: p.Status, PublishedAt: p.PublishedAt, CompletedAt: p.CompletedAt})
			q.apply(o, ms, 1)
		}
		got, err := Quality(s, ten)
		if err != nil {
			t.Fatal(err)
		}
		if got.TotalPages != len(window) || got.TotalDecisions != q.Completed+q.Revoked {
			t.Fatalf("%s quality %+v, want pages %d decisions %d", ten, got, len(window), q.Completed+q.Revoked)
		}
		if q.Completed > 0 {
			if want := round(float64(q.DecisionMs)/float64(q.Completed)/60000, 2); got.AvgDecisionTimeMinutes != want {
				t.Fatalf("%s avg decision %v, want %v", ten, got.AvgDecisionTimeMinutes, want)
			}
		}
	}
	t.Logf("%d listings checked", checked)
}

// TestQualityWindowDropsPagesOlderThanTheLast100: 5 revoked pages, then 100
// completed ones: the revoked pages have left the window, and a later change to one
// of them does not touch the score.
func TestQualityWindowDropsPagesOlderThanTheLast100(t *testing.T) {
	s := openStore(t)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var old []*page.Page
	for i := 0; i < 5; i++ {
		p := &page.Page{ID: fmt.Sprintf("pg_old%d", i), TenantID: "ten", Status: page.Revoked, CreatedAt: t0.Add(time.Duration(i) * time.Second),
			PublishedAt: at(t0), RevokedAt: at(t0.Add(time.Hour))}
		old = append(old, p)
		stage(t, s, p)
	}
	if q, _ := Quality(s, "ten"); q.TotalPages != 5 || q.AcceptanceRate != 0 || q.TotalDecisions != 5 || q.Score != 0 {
		t.Fatalf("after 5 revoked: %+v", q)
	}
	for i := 0; i < 100; i++ {
		c := t0.Add(time.Hour + time.Duration(i)*time.Second)
		stage(t, s, &page.Page{ID: fmt.Sprintf("pg_new%03d", i), TenantID: "ten", Status: page.Completed, CreatedAt: c,
			PublishedAt: at(c), CompletedAt: at(c.Add(6 * time.Hour))})
	}
	want := Score{TenantID: "ten", TotalPages: 100, TotalDecisions: 100, AcceptanceRate: 100, DecisionSpeed: 75,
		AvgDecisionTimeMinutes: 360, Score: 92.5, Period: "last_100_pages"}
	if q, _ := Quality(s, "ten"); q != want {
		t.Fatalf("quality %+v, want %+v", q, want)
	}
	c := *old[0]
	c.Title = "changed after leaving the window"
	stage(t, s, &c)
	if q, _ := Quality(s, "ten"); q != want {
		t.Fatalf("quality after an old page changed: %+v, want %+v", q, want)
	}
}

// TestStageIsIdempotentAcrossRetries: a batch that is retried runs Stage again on a
// fresh transaction; staging the same state twice changes nothing.
func TestStageIsIdempotentAcrossRetries(t *testing.T) {
	s := openStore(t)
	p := &page.Page{ID: "pg_1", TenantID: "ten", Status: page.Active, Priority: "high", PageType: "approval",
		CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), PublishedAt: at(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))}
	stage(t, s, p, p, p)
	_, total, _ := List(s, "ten", Filter{Limit: 10})
	q, _ := Quality(s, "ten")
	d, _ := Dashboard(s, "ten", "all", time.Now())
	if total != 1 || q.TotalPages != 1 || d.TotalPages != 1 || d.ActivePages != 1 {
		t.Fatalf("after staging thrice: total %d quality %+v dashboard %+v", total, q, d)
	}
}

// TestDashboardCarriesOnFromCountersStoredAsJSON: counters written by an earlier
// version (JSON) are read as they are and moved on by the next page change, which
// stores them in the current form.
func TestDashboardCarriesOnFromCountersStoredAsJSON(t *testing.T) {
	s := openStore(t)
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	if err := s.Update(func(tx *persistence.Tx) error {
		old := []byte(`{"v":1,"total":3,"draft":0,"active":2,"completed":1,"revoked":0,"expired":0,"decision_ms":7200000}`)
		if err := tx.Put(bucketAll, []byte("ten"), old); err != nil {
			return err
		}
		return tx.Put(bucketHours, hourKey("ten", t0), old)
	}); err != nil {
		t.Fatal(err)
	}
	p := &page.Page{ID: "pg_1", TenantID: "ten", Status: page.Active, CreatedAt: t0, PublishedAt: at(t0)}
	stage(t, s, p)
	done := *p
	done.Status, done.CompletedAt = page.Completed, at(t0.Add(time.Hour))
	stage(t, s, &done)
	for _, period := range []string{"all", "7d"} {
		d, err := Dashboard(s, "ten", period, t0.Add(2*time.Hour))
		want := Metrics{TotalPages: 4, ActivePages: 2, CompletedPages: 2, AvgResolutionTimeHours: 1.5, ApprovalRate: 1}
		if err != nil || d != want {
			t.Fatalf("%s: %+v (%v), want %+v", period, d, err, want)
		}
	}
	_ = s.View(func(tx *persistence.Tx) error {
		if b := tx.Get(bucketAll, []byte("ten")); len(b) == 0 || b[0] != countersV4 {
			t.Fatalf("all-time counters not rewritten: %q", b)
		}
		return nil
	})
}
