package inbox

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"folio/actors/page"
	"folio/persistence"
)

// BenchmarkInboxList100k lists one tenant's inbox holding 100,000 entries (random
// priorities and page types; 30% read, 10% archived): the first page, a filtered
// page, and deep offsets (the middle of the set is the worst case: a listing walks
// from whichever end is nearer). p50-us is the median latency of one listing.
//
//	go test -run '^$' -bench InboxList100k -benchtime 2000x ./actors/inbox/
func BenchmarkInboxList100k(b *testing.B) {
	s, err := persistence.Open(b.TempDir(), persistence.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = 100_000
	rng := rand.New(rand.NewSource(1))
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	o := newOutlet()
	start := time.Now()
	for done := 0; done < n; {
		err := s.Update(func(tx *persistence.Tx) error {
			for i := done; i < min(n, done+2000); i++ {
				c := t0.Add(time.Duration(i) * time.Second)
				p := &page.Page{ID: fmt.Sprintf("pg_%08d", i), TenantID: "ten_bench", Status: page.Active, Title: fmt.Sprint("Deploy ", i),
					Priority: priorities[rng.Intn(4)], PageType: pageTypes[rng.Intn(3)], CreatedAt: c, PublishedAt: &c, Livemode: true}
				if err := o.Stage(tx, p, nil); err != nil {
					return err
				}
				old := loadEntry(tx, EntryID(p.ID))
				next := *old
				switch r := rng.Intn(10); {
				case r < 3:
					next.Status = Read
				case r < 4:
					next.Status = Archived
				default:
					continue
				}
				if err := putEntry(tx, &next); err != nil {
					return err
				}
				if err := reindex(tx, old, &next); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		done += 2000
	}
	b.Logf("filed %d entries in %v", n, time.Since(start).Round(time.Millisecond))
	cases := []struct {
		name string
		f    Filter
	}{
		{"first-page", Filter{Limit: 50}},
		{"filtered-unread-high", Filter{Status: Unread, Priority: "high", Limit: 50}},
		{"filtered-approval-offset-5000", Filter{PageType: "approval", Limit: 50, Offset: 5000}},
		{"offset-45000-middle", Filter{Limit: 50, Offset: 45_000}},
		{"offset-89950-last", Filter{Limit: 50, Offset: 89_950}},
		{"limit-200-offset-20000", Filter{Limit: 200, Offset: 20_000}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			var total, got int
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				es, tot, err := List(s, "ten_bench", c.f)
				lat = append(lat, time.Since(t))
				if err != nil {
					b.Fatal(err)
				}
				total, got = tot, len(es)
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "p50-us")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-us")
			b.ReportMetric(float64(total), "total")
			b.ReportMetric(float64(got), "returned")
		})
	}
}

// benchPage is the i-th page of the staging benchmarks' tenant, created i seconds
// into 2025.
func benchPage(i int) *page.Page {
	c := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	return &page.Page{ID: fmt.Sprintf("pg_%08d", i), TenantID: "ten_bench", Status: page.Active, Title: "Deploy",
		Priority: priorities[i%4], PageType: pageTypes[i%3], CreatedAt: c, PublishedAt: &c, Livemode: true}
}

// stageEach stages pageOf(i) for i in [0, n), batch pages per transaction, and
// returns the time spent inside the transactions.
func stageEach(b *testing.B, s *persistence.Store, o *Outlet, n, batch int, pageOf func(int) *page.Page) time.Duration {
	var inTx time.Duration
	for done := 0; done < n; done += batch {
		if err := s.Update(func(tx *persistence.Tx) error {
			start := time.Now()
			for i := done; i < min(n, done+batch); i++ {
				if err := o.Stage(tx, pageOf(i), nil); err != nil {
					return err
				}
			}
			inTx += time.Since(start)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	return inTx
}

// BenchmarkStageNewPage is the outlet's cost inside the single writer's
// transaction for one new page (entry, 8 index keys and counters, dashboard hour
// and all-time counters, quality window), on a tenant that already has pages.
func BenchmarkStageNewPage(b *testing.B) {
	s, err := persistence.Open(b.TempDir(), persistence.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	inTx := stageEach(b, s, newOutlet(), b.N, 100, benchPage)
	b.ReportMetric(float64(inTx.Microseconds())/float64(b.N), "us-in-tx/page")
}

// BenchmarkStageDecision is the outlet's cost for the commonest change after
// publishing: a decision completes the page (entry, dashboard counters, quality
// window; the reading state and so the index keys stay).
func BenchmarkStageDecision(b *testing.B) {
	s, err := persistence.Open(b.TempDir(), persistence.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	o := newOutlet()
	stageEach(b, s, o, b.N, 1000, benchPage) // published first
	b.ReportAllocs()
	b.ResetTimer()
	inTx := stageEach(b, s, o, b.N, 100, func(i int) *page.Page {
		p := benchPage(i)
		done := p.CreatedAt.Add(time.Minute)
		p.Status, p.CompletedAt = page.Completed, &done
		return p
	})
	b.ReportMetric(float64(inTx.Microseconds())/float64(b.N), "us-in-tx/page")
}
