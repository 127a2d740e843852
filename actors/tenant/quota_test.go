package tenant

import (
	"testing"
	"time"

	"folio/actors/model/fault"
	"folio/persistence"
	"folio/persistence/storetest"
)

type quotaRig struct {
	t     *testing.T
	a     *Actor
	store *persistence.Store
	now   time.Time
}

func newQuotaRig(t *testing.T) *quotaRig {
	storeDir := t.TempDir()
	s, err := persistence.OpenURL(storetest.URL(t, storeDir), storeDir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	r := &quotaRig{t: t, store: s, now: time.Date(2025, 1, 31, 23, 0, 0, 0, time.UTC)}
	r.a = &Actor{id: "ten_q", deps: &Deps{Store: s, Now: func() time.Time { return r.now }}}
	return r
}

// commit does what the page actor does in a live page's creation transaction.
func (r *quotaRig) commit() {
	r.t.Helper()
	if err := r.store.Update(func(tx *persistence.Tx) error {
		k := monthKey("ten_q", r.now)
		return tx.Put(BucketUsage, k, persistence.U64(persistence.ReadU64(tx.Get(BucketUsage, k))+1))
	}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *quotaRig) reserve(limit int) (uint64, bool) {
	r.t.Helper()
	switch v := r.a.reserve(&Reserve{Pages: 1, Limit: limit}).(type) {
	case *Reservation:
		return v.ID, true
	case *fault.Error:
		if v.Code != fault.RateLimited || v.Details["limit"] != "pages_per_month" {
			r.t.Fatalf("refusal %+v", v)
		}
		return 0, false
	default:
		r.t.Fatalf("reply %T %v", v, v)
	}
	return 0, false
}

// TestQuotaLedgerCountsEachCreationOnce: a creation that committed but has not
// settled yet is not counted twice, a failed one gives its room back at once.
func TestQuotaLedgerCountsEachCreationOnce(t *testing.T) {
	r := newQuotaRig(t)
	r.commit() // 1 of 3 used
	a, ok := r.reserve(3)
	if !ok {
		t.Fatal("room for the 2nd refused")
	}
	r.commit() // a's page is committed; a has not settled yet
	b, ok := r.reserve(3)
	if !ok {
		t.Fatal("a committed-but-unsettled creation was counted twice: the 3rd was refused")
	}
	if _, ok := r.reserve(3); ok {
		t.Fatal("a 4th of 3 was allowed")
	}
	r.a.release(&Release{ID: a, Created: 1, Known: true})
	if _, ok := r.reserve(3); ok {
		t.Fatal("a 4th of 3 was allowed after a settled")
	}
	r.a.release(&Release{ID: b, Created: 0, Known: true}) // b failed: room back
	c, ok := r.reserve(3)
	if !ok {
		t.Fatal("a failed creation still holds its room")
	}
	d, ok := r.reserve(4) // (a higher limit, to have two in flight)
	if !ok {
		t.Fatal("4th of 4 refused")
	}
	r.a.release(&Release{ID: c, Known: false}) // unknown, and it never committed: counted as created...
	if _, ok := r.reserve(4); ok {
		t.Fatal("an unknown outcome was not counted while another reservation is in flight")
	}
	r.a.release(&Release{ID: d, Created: 0, Known: true})
	if _, ok := r.reserve(4); !ok { // ...until a quiet moment re-reads the committed count (2)
		t.Fatal("the quiet moment did not put the ledger right")
	}
}

// TestQuotaLedgerRereadsAtQuietMomentsAndMonthTurns.
func TestQuotaLedgerRereadsAtQuietMomentsAndMonthTurns(t *testing.T) {
	r := newQuotaRig(t)
	a, _ := r.reserve(2)
	r.a.release(&Release{ID: a, Known: false}) // counted as created, never committed
	b, ok := r.reserve(2)                      // quiet moment: re-read, 0 committed
	if !ok {
		t.Fatal("the ledger did not re-read the committed count when no reservation was in flight")
	}
	r.commit()
	r.a.release(&Release{ID: b, Created: 1, Known: true})
	if _, ok := r.reserve(1); ok {
		t.Fatal("1 of 1 used, a 2nd allowed")
	}
	// A reservation never settled is dropped as created after a minute.
	r.now = r.now.Add(10 * time.Second)
	c, _ := r.reserve(3)
	_ = c
	r.now = r.now.Add(2 * time.Minute)
	if _, ok := r.reserve(3); !ok { // c dropped as created (2 used), this makes 3
		t.Fatal("stale reservation handling refused the 3rd of 3")
	}
	// The month turns: the count starts again even with reservations in flight.
	r.now = time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	if _, ok := r.reserve(1); !ok {
		t.Fatal("the new month did not reset the count")
	}
	if _, ok := r.reserve(1); ok {
		t.Fatal("2 of 1 in the new month")
	}
}

// TestPlanSpecsCarryStorage: --plan takes an optional storage quota in bytes or
// binary units; without it a built-in plan keeps its own, another is unlimited.
func TestPlanSpecsCarryStorage(t *testing.T) {
	got, err := ParsePlanSpecs("free=60/100/2GiB,pro=600/10000,team=100/500,tiny=1/1/4096")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"free": 2 << 30, "pro": 50 << 30, "team": 0, "tiny": 4096} {
		if got[name].StorageBytes != want {
			t.Errorf("%s: storage %d, want %d", name, got[name].StorageBytes, want)
		}
	}
	for _, bad := range []string{"free=60/100/2GB", "free=60/100/-1", "free=60/100/1/2", "free=60/100/"} {
		if _, err := ParsePlanSpecs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
