package callback

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"folio/persistence"
)

// BenchmarkDispatch measures deliveries per second to a local receiver: rows are
// written as the outbox writes them, then the dispatcher sends and records them all.
func BenchmarkDispatch(b *testing.B) {
	const perRound = 5000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(204)
	}))
	defer srv.Close()
	store, err := persistence.Open(b.TempDir(), persistence.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	h := &harness{store: store}
	h.sys = newSystem()
	var recorded atomic.Int64
	d, err := Start(h.sys, Config{Store: store, AllowPrivate: true, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Observe: func(*Delivery, Attempt) { recorded.Add(1) }})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Stop()
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		now := time.Now()
		items := make([]Item, perRound)
		_ = store.Update(func(tx *persistence.Tx) error {
			for j := range items {
				id := fmt.Sprintf("b%d_%d", i, j)
				row := &Delivery{V: schemaV1, ID: id, TenantID: "t", PageID: "p", EventID: "evt_" + id, Event: "action.executed",
					Channel: ChannelCallback, Target: srv.URL, Lane: lane(ChannelCallback, srv.URL), Secret: "s",
					Body: []byte(`{"event":"action.executed","event_id":"evt_` + id + `"}`), WebhookID: "evt_" + id,
					DelaysMS: millis(defaultSchedule), Status: StatusPending, Attempts: []Attempt{}, NextAttemptAt: &now, CreatedAt: now}
				if err := put(tx, row, nil, true); err != nil {
					return err
				}
				items[j] = Item{ID: id, Lane: row.Lane, Due: now}
			}
			return nil
		})
		want := recorded.Load() + perRound
		b.StartTimer()
		start := time.Now()
		d.Enqueue(items)
		for recorded.Load() < want {
			time.Sleep(time.Millisecond)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(perRound*b.N)/total.Seconds(), "deliveries/s")
}
