package callback

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/actors/model/webhook"
	"folio/persistence"
	"folio/persistence/storetest"
)

// row is a delivery as the outbox writes it, created at t0 + n seconds.
func row(tenant, page string, n int, status string) *Delivery {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Second)
	id := fmt.Sprintf("dlv_%s_%04d", tenant, n)
	d := &Delivery{V: schemaV1, ID: id, TenantID: tenant, PageID: page, EventID: "evt_" + id, Event: "action.executed",
		Channel: ChannelCallback, Target: "https://example.com/hook", Lane: "https://example.com", Body: []byte(`{}`),
		WebhookID: "evt_" + id, Status: status, Attempts: []Attempt{}, CreatedAt: at}
	if status == StatusPending {
		d.NextAttemptAt = &at
	}
	return d
}

func writeRows(t *testing.T, store *persistence.Store, rows ...*Delivery) {
	t.Helper()
	if err := store.Update(func(tx *persistence.Tx) error {
		for _, d := range rows {
			if err := put(tx, d, nil, true); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func openStore(t *testing.T) *persistence.Store {
	t.Helper()
	storeDir := t.TempDir()
	store, err := persistence.OpenURL(storetest.URL(t, storeDir), storeDir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

var statusCycle = []string{StatusPending, StatusSucceeded, StatusFailed, StatusSkipped}

func ids(list []*Delivery) []string {
	out := make([]string, len(list))
	for i, d := range list {
		out[i] = d.ID
	}
	return out
}

// TestATenantsDeliveriesListNewestFirstFilteredAndPaged: the tenant's deliveries
// come newest first, by status when asked, a window at a time with the total of
// the filter; a tenant whose id starts with another's sees nothing of it.
func TestATenantsDeliveriesListNewestFirstFilteredAndPaged(t *testing.T) {
	store := openStore(t)
	var mine []*Delivery
	for n := range 40 {
		mine = append(mine, row("ten_1", fmt.Sprintf("pg_%d", n%3), n, statusCycle[n%4]))
	}
	writeRows(t, store, mine...)
	writeRows(t, store, row("ten_10", "pg_x", 100, StatusFailed), row("ten_2", "pg_y", 101, StatusFailed), row("ten_", "pg_z", 102, StatusFailed))

	all, total, err := ListTenant(store, "ten_1", "", 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != 40 || strings.Join(ids(all), ",") != "dlv_ten_1_0039,dlv_ten_1_0038,dlv_ten_1_0037,dlv_ten_1_0036,dlv_ten_1_0035" {
		t.Errorf("all: total %d, %v; want 40, the five newest", total, ids(all))
	}
	failed, total, err := ListTenant(store, "ten_1", StatusFailed, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	// failed are n = 2, 6, 10 … 38: ten of them; newest first, skipping two: 30, 26, 22.
	if total != 10 || strings.Join(ids(failed), ",") != "dlv_ten_1_0030,dlv_ten_1_0026,dlv_ten_1_0022" {
		t.Errorf("failed offset 2: total %d, %v", total, ids(failed))
	}
	for _, d := range failed {
		if d.Status != StatusFailed || d.TenantID != "ten_1" {
			t.Errorf("%s: status %s tenant %s", d.ID, d.Status, d.TenantID)
		}
	}
	past, total, _ := ListTenant(store, "ten_1", StatusFailed, 3, 10)
	if total != 10 || len(past) != 0 {
		t.Errorf("past the end: total %d, %d rows", total, len(past))
	}
	if none, total, _ := ListTenant(store, "ten_none", "", 10, 0); total != 0 || none == nil || len(none) != 0 {
		t.Errorf("an unknown tenant: total %d, %v (want an empty, non-nil list)", total, none)
	}
	if other, total, _ := ListTenant(store, "ten_10", "", 10, 0); total != 1 || other[0].TenantID != "ten_10" {
		t.Errorf("ten_10 lists %d: %v", total, ids(other))
	}

	// One page of the tenant: the same order and filter; another tenant's page is empty.
	page, total, err := ListTenantPage(store, "ten_1", "pg_1", StatusSucceeded, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	// pg_1 is n%3 == 1, succeeded n%4 == 1: n = 1, 13, 25, 37.
	if total != 4 || strings.Join(ids(page), ",") != "dlv_ten_1_0037,dlv_ten_1_0025,dlv_ten_1_0013,dlv_ten_1_0001" {
		t.Errorf("pg_1 succeeded: total %d, %v", total, ids(page))
	}
	if got, total, _ := ListTenantPage(store, "ten_1", "pg_x", "", 10, 0); total != 0 || len(got) != 0 {
		t.Errorf("another tenant's page lists %v", ids(got))
	}
}

// TestAFilteredListingDecodesOnlyTheRowsItReturns: among 2,000 deliveries, every
// row the listing does not return is made unreadable; listing still works, so it
// never read them (a read would fail to decode).
func TestAFilteredListingDecodesOnlyTheRowsItReturns(t *testing.T) {
	store := openStore(t)
	var rows []*Delivery
	for n := range 2000 {
		st := StatusSucceeded
		if n%100 == 7 {
			st = StatusFailed // 20 failed: n = 7, 107, … 1907
		}
		rows = append(rows, row("ten_1", "pg_1", n, st))
	}
	writeRows(t, store, rows...)
	keep := map[string]bool{"dlv_ten_1_1707": true, "dlv_ten_1_1607": true, "dlv_ten_1_1507": true} // failed, offset 2, limit 3
	if err := store.Update(func(tx *persistence.Tx) error {
		for _, d := range rows {
			if !keep[d.ID] {
				if err := tx.Put(bucketDeliveries, []byte(d.ID), []byte("not json")); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for name, list := range map[string]func() ([]*Delivery, int, error){
		"ListTenant":     func() ([]*Delivery, int, error) { return ListTenant(store, "ten_1", StatusFailed, 3, 2) },
		"ListTenantPage": func() ([]*Delivery, int, error) { return ListTenantPage(store, "ten_1", "pg_1", StatusFailed, 3, 2) },
	} {
		got, total, err := list()
		if err != nil {
			t.Fatalf("%s read a row it does not return: %v", name, err)
		}
		if total != 20 || strings.Join(ids(got), ",") != "dlv_ten_1_1707,dlv_ten_1_1607,dlv_ten_1_1507" {
			t.Errorf("%s: total %d, %v", name, total, ids(got))
		}
	}
	// The unfiltered listing reads its window too, and only it.
	if _, _, err := ListTenant(store, "ten_1", "", 3, 292); err != nil { // n = 1707, 1706, 1705: one kept, two unreadable
		if !strings.Contains(err.Error(), "invalid character") {
			t.Fatal(err)
		}
	} else {
		t.Error("the window holds unreadable rows, yet listing it did not read them")
	}
}

// TestTheTenantIndexFollowsAttempts: a delivery is listed as pending when written,
// and under its new status once the dispatcher has recorded its attempt.
func TestTheTenantIndexFollowsAttempts(t *testing.T) {
	var mu sync.Mutex
	code := 500
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.WriteHeader(code)
	}))
	defer srv.Close()
	h := newHarness(t, RealClock(nil), 5*time.Second)
	h.insert("a", srv.URL, time.Now(), nil) // one attempt only
	if got, _, _ := ListTenant(h.store, "ten_1", StatusPending, 10, 0); len(got) != 1 {
		t.Fatalf("a new delivery is not listed as pending: %v", ids(got))
	}
	h.start(RealClock(nil), 5*time.Second)
	h.waitFor("the failed attempt", func() bool { return h.load("a").Status == StatusFailed })
	if got, _, _ := ListTenant(h.store, "ten_1", StatusFailed, 10, 0); len(got) != 1 {
		t.Errorf("the failed delivery is not listed as failed: %v", ids(got))
	}
	if got, total, _ := ListTenant(h.store, "ten_1", StatusPending, 10, 0); total != 0 {
		t.Errorf("it is still listed as pending: %v", ids(got))
	}
	mu.Lock()
	code = 200
	mu.Unlock()
	if _, err := h.d.Retry("ten_1", "a"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the manual attempt", func() bool { return h.load("a").Status == StatusSucceeded })
	if got, _, _ := ListTenant(h.store, "ten_1", StatusSucceeded, 10, 0); len(got) != 1 {
		t.Errorf("the retried delivery is not listed as succeeded: %v", ids(got))
	}
	if _, total, _ := ListTenant(h.store, "ten_1", StatusFailed, 10, 0); total != 0 {
		t.Errorf("it is still listed as failed")
	}
}

// TestShownHeadersAreWhatWasSentWithCustomValuesRedacted: the headers rebuilt from
// a delivery and its attempt's time are the ones the receiver got, byte for byte,
// except the agent's custom headers, whose values are never shown; nor is the
// secret.
func TestShownHeadersAreWhatWasSentWithCustomValuesRedacted(t *testing.T) {
	var mu sync.Mutex
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
	}))
	defer srv.Close()
	h := newHarness(t, RealClock(nil), 5*time.Second)
	now := time.Now()
	d := &Delivery{V: schemaV1, ID: "h", TenantID: "ten_1", PageID: "pg_1", EventID: "evt_h", Event: "action.executed",
		Channel: ChannelCallback, Target: srv.URL, Lane: lane(ChannelCallback, srv.URL), Body: []byte(`{"event":"action.executed"}`),
		Secret: "s3cret-value", WebhookID: "evt_h", Headers: map[string]string{"authorization": "Bearer receiver-token", "X-Tenant": "acme"},
		Status: StatusPending, Attempts: []Attempt{}, NextAttemptAt: &now, CreatedAt: now}
	writeRows(t, h.store, d)
	h.start(RealClock(nil), 5*time.Second)
	h.waitFor("the attempt", func() bool { return h.load("h").Status == StatusSucceeded })
	rec := h.load("h")
	shown := ShownHeaders(rec, rec.Attempts[0].At)
	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{"X-Service-Signature", "X-Service-Event-Id", "X-Service-Timestamp", "Webhook-Id", "Webhook-Timestamp", "Webhook-Signature", "Content-Type", "User-Agent"} {
		if shown.Get(k) == "" || shown.Get(k) != got.Get(k) {
			t.Errorf("%s: shown %q, sent %q", k, shown.Get(k), got.Get(k))
		}
	}
	if shown.Get("X-Service-Signature") != webhook.Signature("s3cret-value", rec.Body) {
		t.Error("the signature shown is not the body's")
	}
	for _, k := range []string{"Authorization", "X-Tenant"} {
		if got.Get(k) == "" || shown.Get(k) != Redacted {
			t.Errorf("custom header %s: sent %q, shown %q (want %q)", k, got.Get(k), shown.Get(k), Redacted)
		}
	}
	for k, vs := range shown {
		for _, v := range vs {
			if strings.Contains(v, "s3cret-value") || strings.Contains(v, "receiver-token") || v == "acme" {
				t.Errorf("header %s shows a secret: %q", k, v)
			}
		}
	}
}

// BenchmarkListTenantFiltered lists the 25 newest failed deliveries of a tenant with
// 20,000, one in a hundred failed: the cost is a scan of the index's keys, and 25
// rows decoded.
func BenchmarkListTenantFiltered(b *testing.B) {
	store, err := persistence.Open(b.TempDir(), persistence.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	for chunk := 0; chunk < 20; chunk++ {
		if err := store.Update(func(tx *persistence.Tx) error {
			for n := chunk * 1000; n < (chunk+1)*1000; n++ {
				st := StatusSucceeded
				if n%100 == 0 {
					st = StatusFailed
				}
				if err := put(tx, row("ten_1", "pg_1", n, st), nil, true); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		out, total, err := ListTenant(store, "ten_1", StatusFailed, 25, 0)
		if err != nil || len(out) != 25 || total != 200 {
			b.Fatalf("%d rows, total %d, %v", len(out), total, err)
		}
	}
}
