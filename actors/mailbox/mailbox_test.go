package mailbox

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/frame"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
	"folio/persistence/storetest"
)

func openStore(t *testing.T) *persistence.Store {
	t.Helper()
	storeDir := t.TempDir()
	s, err := persistence.OpenURL(storetest.URL(t, storeDir), storeDir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func ev(tenant, pg, typ string, at time.Time) page.Event {
	return page.Event{ID: "evt_" + fmt.Sprint(at.UnixNano()) + typ, Type: typ, PageID: pg, TenantID: tenant, At: at, Data: page.PageUpdated{Fields: []string{"x"}, Version: 1}}
}

// stageAll commits events in one transaction, as a page commit would.
func stageAll(t *testing.T, s *persistence.Store, r Retention, events []page.Event) {
	t.Helper()
	if err := s.Update(func(tx *persistence.Tx) error { return stage(tx, r, events) }); err != nil {
		t.Fatal(err)
	}
}

// TestStageNumbersEachTenantsEventsInOrder: every tenant has its own gap-free
// sequence; the stored payload carries the sequence as its id; a retried
// transaction function assigns the same numbers again.
func TestStageNumbersEachTenantsEventsInOrder(t *testing.T) {
	s := openStore(t)
	now := time.Unix(1700000000, 0)
	evs := []page.Event{ev("ta", "p1", "a", now), ev("tb", "p2", "b", now), ev("ta", "p1", "c", now)}
	// Run the function twice inside one transaction attempt that is rolled back, then for real.
	_ = s.Update(func(tx *persistence.Tx) error {
		if err := stage(tx, DefaultRetention, evs); err != nil {
			return err
		}
		return fmt.Errorf("roll back")
	})
	stageAll(t, s, DefaultRetention, evs)
	if evs[0].Seq != 1 || evs[1].Seq != 1 || evs[2].Seq != 2 {
		t.Fatalf("seqs: %d %d %d", evs[0].Seq, evs[1].Seq, evs[2].Seq)
	}
	got, err := Read(s, "ta", 0, 10, 100)
	if err != nil || len(got) != 2 || got[1].Seq != 2 || got[1].Type != "c" {
		t.Fatalf("read: %v %v", got, err)
	}
	if string(got[1].Payload) != string(page.EncodeEvent(&evs[2])) {
		t.Fatalf("payload %s", got[1].Payload)
	}
	if f := got[0].Frame(); string(f.SSE) != "id: 1\ndata: "+string(got[0].Payload)+"\n\n" {
		t.Fatalf("frame %q", f.SSE)
	}
	if n, _ := Pending(s, "ta"); n != 2 {
		t.Fatalf("pending %d", n)
	}
}

// TestRetentionTrimsByCountAndAge: the log keeps MaxEvents per tenant as events
// arrive, and the sweep removes events older than MaxAge; their inbox rows and
// counts go with them.
func TestRetentionTrimsByCountAndAge(t *testing.T) {
	s := openStore(t)
	r := Retention{MaxEvents: 3, MaxAge: time.Hour}
	t0 := time.Unix(1700000000, 0)
	for i := 0; i < 5; i++ {
		stageAll(t, s, r, []page.Event{ev("ta", "p1", "e", t0.Add(time.Duration(i)*time.Minute))})
	}
	if o, _ := Oldest(s, "ta"); o != 3 {
		t.Fatalf("oldest %d", o)
	}
	if n, _ := Pending(s, "ta"); n != 3 {
		t.Fatalf("pending %d", n)
	}
	if err := ack(s, "ta", "1"); err != ErrNotFound {
		t.Fatalf("ack of a trimmed event: %v", err)
	}
	if err := ack(s, "ta", "3"); err != nil {
		t.Fatal(err)
	}
	if err := ack(s, "ta", "3"); err != nil {
		t.Fatal("second ack:", err)
	}
	if n, _ := Pending(s, "ta"); n != 2 {
		t.Fatalf("pending after ack %d", n)
	}
	list, total, _ := ByPage(s, "ta", "p1", 10, 0)
	if total != 3 || !list[0].Acked || list[1].Acked {
		t.Fatalf("by page: %d %+v", total, list)
	}
	// 1 h after the 4th event (t0+3m): events 3 and 4 are too old, 5 stays.
	removed, err := Sweep(s, r, t0.Add(time.Hour+3*time.Minute+time.Second), 1)
	if err != nil || removed != 2 {
		t.Fatalf("sweep removed %d: %v", removed, err)
	}
	if o, _ := Oldest(s, "ta"); o != 5 {
		t.Fatalf("oldest after sweep %d", o)
	}
	if n, _ := Pending(s, "ta"); n != 1 {
		t.Fatalf("pending after sweep %d", n)
	}
	in, total, _ := Inbox(s, "ta", 10, 0)
	if total != 1 || len(in) != 1 || in[0].Seq != 5 {
		t.Fatalf("inbox %v %d", in, total)
	}
	if string(in[0].WithAck()) == string(in[0].Payload) {
		t.Fatal("WithAck added nothing")
	}
}

// TestOneStageOfManyEventsKeepsEachTenantsCounts: a single commit appending events
// of two tenants, interleaved and trimming past the retention (an acknowledged and
// an unacknowledged event among those trimmed), leaves each tenant's sequence gap-free
// and its unacknowledged count equal to the retained unacknowledged events.
func TestOneStageOfManyEventsKeepsEachTenantsCounts(t *testing.T) {
	s := openStore(t)
	r := Retention{MaxEvents: 3}
	now := time.Unix(1700000000, 0)
	stageAll(t, s, r, []page.Event{ev("ta", "p1", "a1", now), ev("ta", "p1", "a2", now)})
	if err := ack(s, "ta", "1"); err != nil {
		t.Fatal(err)
	}
	evs := []page.Event{ev("ta", "p1", "a3", now), ev("tb", "p2", "b1", now), ev("ta", "p1", "a4", now),
		ev("tb", "p2", "b2", now), ev("ta", "p1", "a5", now)}
	stageAll(t, s, r, evs)
	if evs[0].Seq != 3 || evs[2].Seq != 4 || evs[4].Seq != 5 || evs[1].Seq != 1 || evs[3].Seq != 2 {
		t.Fatalf("seqs %d %d %d / %d %d", evs[0].Seq, evs[2].Seq, evs[4].Seq, evs[1].Seq, evs[3].Seq)
	}
	for _, c := range []struct {
		tenant                string
		last, oldest, pending uint64
	}{{"ta", 5, 3, 3}, {"tb", 2, 1, 2}} {
		last, _ := Last(s, c.tenant)
		oldest, _ := Oldest(s, c.tenant)
		pending, _ := Pending(s, c.tenant)
		if last != c.last || oldest != c.oldest || uint64(pending) != c.pending {
			t.Fatalf("%s: last %d oldest %d pending %d, want %d %d %d", c.tenant, last, oldest, pending, c.last, c.oldest, c.pending)
		}
	}
	// The next single event goes on from there: 6, trimming 3.
	next := []page.Event{ev("ta", "p1", "a6", now)}
	stageAll(t, s, r, next)
	if n, _ := Pending(s, "ta"); next[0].Seq != 6 || n != 3 {
		t.Fatalf("after one more: seq %d pending %d", next[0].Seq, n)
	}
}

// recorder is a subscriber that records frames (and can refuse).
type recorder struct {
	mu     sync.Mutex
	seqs   []uint64
	refuse bool
}

func (r *recorder) Close()           {}
func (r *recorder) End(*frame.Frame) {}

func (r *recorder) Send(f *frame.Frame) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse {
		return false
	}
	r.seqs = append(r.seqs, f.Seq)
	return true
}

func (r *recorder) got() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint64(nil), r.seqs...)
}

// TestMailboxPushesInSequenceOrderExactlyOnce: commit notices from different pages
// arrive out of order (a later one first, a duplicate, a stale one); the mailbox
// pushes every event after its subscriber's snapshot exactly once, in order, reading
// gaps from the log; a subscriber that refuses is dropped.
func TestMailboxPushesInSequenceOrderExactlyOnce(t *testing.T) {
	s := openStore(t)
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	d := &Deps{Store: s, Now: time.Now, Retention: DefaultRetention, Idle: time.Minute}
	reg := registry.Start(sys, "mailboxes-test", NewProducer(d), registry.Options{Timeout: 5 * time.Second})
	now := time.Unix(1700000000, 0)

	stageAll(t, s, DefaultRetention, []page.Event{ev("ta", "p1", "before", now)}) // seq 1, before anyone listens
	rec := &recorder{}
	res, err := reg.Ask(context.Background(), "ta", &Subscribe{Sub: rec})
	if err != nil || res.(*Subscribed).Snapshot != 1 {
		t.Fatalf("subscribe: %v %v", res, err)
	}
	// Three commits: seq 2 (page A), seq 3 (page B), seq 4 (page A).
	a1 := []page.Event{ev("ta", "pA", "a1", now)}
	stageAll(t, s, DefaultRetention, a1)
	b1 := []page.Event{ev("ta", "pB", "b1", now)}
	stageAll(t, s, DefaultRetention, b1)
	a2 := []page.Event{ev("ta", "pA", "a2", now)}
	stageAll(t, s, DefaultRetention, a2)
	reg.Tell("ta", &Committed{Events: b1}) // 3 arrives first: 2 is read from the log
	reg.Tell("ta", &Committed{Events: a1}) // stale now
	reg.Tell("ta", &Committed{Events: a2})
	reg.Tell("ta", &Committed{Events: b1}) // duplicate
	deadline := time.Now().Add(5 * time.Second)
	for len(rec.got()) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if got := rec.got(); fmt.Sprint(got) != "[2 3 4]" {
		t.Fatalf("pushed %v", got)
	}
	rec.mu.Lock()
	rec.refuse = true
	rec.mu.Unlock()
	e5 := []page.Event{ev("ta", "pA", "a3", now)}
	stageAll(t, s, DefaultRetention, e5)
	reg.Tell("ta", &Committed{Events: e5})
	res, _ = reg.Ask(context.Background(), "ta", &Subscribe{})
	if res.(*Subscribed).Snapshot != 5 {
		t.Fatalf("snapshot %v", res)
	}
	res, _ = reg.Ask(context.Background(), "ta", &Ack{Ref: "5"})
	if _, ok := res.(*Acked); !ok {
		t.Fatalf("ack: %v", res)
	}
	res, _ = reg.Ask(context.Background(), "ta", &Ack{Ref: "99"})
	if res != ErrNotFound {
		t.Fatalf("ack unknown: %v", res)
	}
}

// TestRecordRoundTrip: a stored record reads back field for field, and a damaged one
// is an error, never a panic or a wrong page.
func TestRecordRoundTrip(t *testing.T) {
	full := record{PageID: "pg_1", EventID: "evt_1", Type: "comment.added", At: 42,
		Payload: []byte(`{"id":"7","data":{"pageId":"pg_other"}}`)}
	raw := full.encode()
	got, err := decodeRecord(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.PageID != full.PageID || got.EventID != full.EventID || got.Type != full.Type || got.At != 42 || string(got.Payload) != string(full.Payload) {
		t.Fatalf("read back %+v from %+v", got, full)
	}
	for n := 0; n < 12; n++ {
		if _, err := decodeRecord(raw[:n]); err == nil {
			t.Errorf("a record cut to %d bytes decoded", n)
		}
	}
	if _, err := decodeRecord([]byte(`{"v":1}`)); err == nil {
		t.Error("a JSON value decoded as a record")
	}
}

// wired is a store, mailboxes and the Outlet sharing one Listening, as the server
// wires them.
type wired struct {
	store     *persistence.Store
	reg       *registry.Registry
	out       *Outlet
	listening *Listening
}

func newWired(t *testing.T) *wired {
	w := &wired{store: openStore(t), listening: NewListening()}
	sys := actor.NewActorSystem()
	t.Cleanup(sys.Shutdown) // before the store closes (cleanups run last first)
	d := &Deps{Store: w.store, Now: time.Now, Retention: DefaultRetention, Idle: time.Minute, Listening: w.listening}
	w.reg = registry.Start(sys, "mailboxes", NewProducer(d), registry.Options{Timeout: 5 * time.Second})
	w.out = &Outlet{Retention: DefaultRetention, Mailboxes: w.reg, Listening: w.listening}
	return w
}

// commit stages e through the Outlet in its own transaction and, once durable, tells
// the Outlet, as a page commit does.
func (w *wired) commit(e page.Event) error {
	evs := []page.Event{e}
	if err := w.store.Update(func(tx *persistence.Tx) error { return w.out.Stage(tx, nil, evs) }); err != nil {
		return err
	}
	w.out.Committed(nil, evs)
	return nil
}

// TestLateSubscribersMissNothingWhileTheOutletSkipsQuietTenants: 8 writers commit
// through the Outlet, which tells the mailbox nothing while nobody listens; agents
// subscribe one after another during the stream, and one leaves early. Each gets
// every event after its snapshot live, exactly once and in order: the events before
// its snapshot are in the log for its replay, the rest reach it.
func TestLateSubscribersMissNothingWhileTheOutletSkipsQuietTenants(t *testing.T) {
	w := newWired(t)
	reg := w.reg
	const writers, each = 8, 150
	// The subscribers join while commits are in flight: subscriber i once the
	// writers have committed (i+1)/8 of the events, and the writers hold their last
	// quarter until all four have joined, so every join lands mid-stream however the
	// machine schedules them (a fixed sleep let a loaded machine join before the
	// first commit).
	var committed atomic.Int64
	allJoined := make(chan struct{})
	joinedAll := sync.OnceFunc(func() { close(allJoined) })
	defer joinedAll() // a failed join still lets the writers finish
	var wg sync.WaitGroup
	for n := 0; n < writers; n++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if i == each*3/4 {
					<-allJoined
				}
				if err := w.commit(ev("tq", fmt.Sprintf("p%d", n), fmt.Sprintf("e%d-%d", n, i), time.Now())); err != nil {
					t.Error(err)
					return
				}
				committed.Add(1)
			}
		}()
	}
	type joined struct {
		rec      *recorder
		snapshot uint64
	}
	var subs []joined
	for i := 0; i < 4; i++ {
		for committed.Load() < int64((i+1)*writers*each/8) {
			time.Sleep(time.Millisecond)
		}
		rec := &recorder{}
		res, err := reg.Ask(context.Background(), "tq", &Subscribe{Sub: rec})
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, joined{rec, res.(*Subscribed).Snapshot})
	}
	joinedAll()
	if _, err := reg.Ask(context.Background(), "tq", &Unsubscribe{Sub: subs[0].rec}); err != nil {
		t.Fatal(err)
	}
	left := len(subs[0].rec.got())
	wg.Wait()
	total := uint64(writers * each)
	deadline := time.Now().Add(5 * time.Second)
	for _, j := range subs[1:] {
		for uint64(len(j.rec.got())) < total-j.snapshot && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	time.Sleep(20 * time.Millisecond)
	for i, j := range subs {
		got := j.rec.got()
		if i == 0 {
			if len(got) != left {
				t.Fatalf("the subscriber that left got %d events after leaving", len(got)-left)
			}
			got = got[:left]
		} else if uint64(len(got)) != total-j.snapshot {
			t.Fatalf("subscriber %d (snapshot %d) got %d events, want %d", i, j.snapshot, len(got), total-j.snapshot)
		}
		for k, seq := range got {
			if seq != j.snapshot+uint64(k)+1 {
				t.Fatalf("subscriber %d (snapshot %d): event %d has seq %d", i, j.snapshot, k, seq)
			}
		}
	}
	if subs[0].snapshot == 0 || subs[0].snapshot >= total {
		t.Fatalf("the first subscriber joined at %d of %d: the stream was not under way", subs[0].snapshot, total)
	}
}

// TestSubscribingCatchesUpWithCommitsNobodyWasToldOf: after the last agent leaves, the
// Outlet stops telling the mailbox; the next subscriber's snapshot still covers every
// committed event, so its replay has them and it waits for nothing already durable.
func TestSubscribingCatchesUpWithCommitsNobodyWasToldOf(t *testing.T) {
	w := newWired(t)
	reg, listening := w.reg, w.listening
	commit := func(typ string) {
		if err := w.commit(ev("tc", "p1", typ, time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	first := &recorder{}
	if _, err := reg.Ask(context.Background(), "tc", &Subscribe{Sub: first}); err != nil {
		t.Fatal(err)
	}
	commit("a") // seq 1, pushed live
	if _, err := reg.Ask(context.Background(), "tc", &Unsubscribe{Sub: first}); err != nil {
		t.Fatal(err)
	}
	if listening.Has("tc") {
		t.Fatal("the tenant is still listening after its only subscriber left")
	}
	commit("b") // seqs 2 and 3: the mailbox is not told
	commit("c")
	res, err := reg.Ask(context.Background(), "tc", &Subscribe{Sub: &recorder{}})
	if err != nil {
		t.Fatal(err)
	}
	if snap := res.(*Subscribed).Snapshot; snap != 3 {
		t.Fatalf("snapshot %d after 3 commits", snap)
	}
	if got := first.got(); fmt.Sprint(got) != "[1]" {
		t.Fatalf("the first subscriber got %v", got)
	}
}
