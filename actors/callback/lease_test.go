//go:build linux

package callback

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"folio/persistence"
	"folio/persistence/pgtest"
)

// sharedNode is one node's dispatcher on a database other nodes share.
type sharedNode struct {
	store *persistence.Store
	d     *Dispatcher
}

func startShared(t *testing.T, url string) *sharedNode {
	t.Helper()
	store, err := persistence.OpenURL(url, "", persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sys := newSystem()
	// A lease is twice the timeout: long enough that a loaded machine never lets one
	// run out mid-attempt (that would be a second delivery, at least once as designed).
	d, err := Start(sys, Config{Store: store, AllowPrivate: true, Timeout: 5 * time.Second, Grace: 100 * time.Millisecond,
		Sweep: 50 * time.Millisecond, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Stop(); sys.Shutdown(); _ = store.Close() })
	return &sharedNode{store: store, d: d}
}

// receiver counts the requests per webhook id and keeps their bodies.
type receiver struct {
	mu     sync.Mutex
	got    map[string]int
	bodies map[string][]string
}

// Each answer takes pause, so attempts of two nodes overlap.
func newReceiver(t *testing.T, pause time.Duration) (*receiver, string) {
	r := &receiver{got: map[string]int{}, bodies: map[string][]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		time.Sleep(pause)
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		id := req.Header.Get("webhook-id")
		r.got[id]++
		r.bodies[id] = append(r.bodies[id], string(b))
		r.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return r, srv.URL
}

func (r *receiver) count(id string) int { r.mu.Lock(); defer r.mu.Unlock(); return r.got[id] }

func insertShared(t *testing.T, store *persistence.Store, id, target string, at time.Time) {
	t.Helper()
	d := &Delivery{V: schemaV1, ID: id, TenantID: "ten_1", PageID: "pg_1", EventID: "evt_" + id, Event: "action.executed",
		Channel: ChannelCallback, Target: target, Lane: lane(ChannelCallback, target), Body: []byte(`{"event":"action.executed","id":"` + id + `"}`),
		WebhookID: "evt_" + id, DelaysMS: millis(defaultSchedule), Status: StatusPending, Attempts: []Attempt{}, NextAttemptAt: &at, CreatedAt: at}
	if err := store.Update(func(tx *persistence.Tx) error { return put(tx, d, nil, true) }); err != nil {
		t.Fatal(err)
	}
}

// TestTwoNodesDeliverEachOnce: two nodes on one database both hold every due row
// (one committed them, the other swept them up); the leases make each delivery go
// out once, with the stored bytes.
func TestTwoNodesDeliverEachOnce(t *testing.T) {
	url := pgtest.URL(t)
	rec, target := newReceiver(t, 50*time.Millisecond)
	seed, err := persistence.OpenURL(url, "", persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	now := time.Now()
	for i := 0; i < n; i++ {
		insertShared(t, seed, "d"+strconv.Itoa(i), target, now)
	}
	_ = seed.Close()
	a, b := startShared(t, url), startShared(t, url)
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < n; i++ {
		id := "d" + strconv.Itoa(i)
		for {
			d, err := Load(a.store, id)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status == StatusSucceeded {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s still %s", id, d.Status)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// Both nodes keep sweeping; give a duplicate the time to show.
	time.Sleep(300 * time.Millisecond)
	for i := 0; i < n; i++ {
		id := "evt_d" + strconv.Itoa(i)
		if c := rec.count(id); c != 1 {
			t.Errorf("%s delivered %d times, want 1", id, c)
		}
	}
	_ = b
}

// TestLeaseOfADeadNodeExpires: a node claimed a delivery and died before recording
// the attempt. Another node leaves it alone while the lease runs, then sends it,
// with the same body and event id.
func TestLeaseOfADeadNodeExpires(t *testing.T) {
	url := pgtest.URL(t)
	rec, target := newReceiver(t, 0)
	seed, err := persistence.OpenURL(url, "", persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	insertShared(t, seed, "x", target, now)
	at := func() time.Time { return now }
	leaseEnd := now.Add(1500 * time.Millisecond)
	if held, _, err := claim(seed, "x", "dead-node", false, at, leaseEnd.Sub(now)); err != nil || !held {
		t.Fatalf("the dead node's claim: held %v, %v", held, err)
	}
	_ = seed.Close()
	b := startShared(t, url)
	for time.Now().Before(leaseEnd.Add(-200 * time.Millisecond)) {
		if c := rec.count("evt_x"); c != 0 {
			t.Fatalf("sent while another node's lease ran (%v left)", time.Until(leaseEnd))
		}
		time.Sleep(20 * time.Millisecond)
	}
	deadline := time.Now().Add(10 * time.Second)
	for rec.count("evt_x") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("never sent after the lease ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The attempt is recorded once its answer is in: wait for that.
	for {
		d, _ := Load(b.store, "x")
		if d.Status == StatusSucceeded && d.AttemptCount == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the takeover: %s, %d attempts", d.Status, d.AttemptCount)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if got := rec.bodies["evt_x"][0]; got != `{"event":"action.executed","id":"x"}` {
		t.Fatalf("body sent by the other node: %s", got)
	}
}
