package callback

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/fault"
	"folio/persistence"
	"folio/persistence/storetest"
)

func newSystem() *actor.ActorSystem {
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }))
}

// fakeClock is a Clock whose time moves only when the test says so; timers fire
// when Advance passes their time.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c       *fakeClock
	at      time.Time
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves time on and fires the timers that fell due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	keep := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.stopped:
		case !t.at.After(c.now):
			t.stopped = true
			due = append(due, t)
		default:
			keep = append(keep, t)
		}
	}
	c.timers = keep
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

// armedAt reports the earliest armed timer.
func (c *fakeClock) armedAt() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var at time.Time
	found := false
	for _, t := range c.timers {
		if !t.stopped && (!found || t.at.Before(at)) {
			at, found = t.at, true
		}
	}
	return at, found
}

type harness struct {
	t     *testing.T
	store *persistence.Store
	sys   *actor.ActorSystem
	clock *fakeClock
	d     *Dispatcher
}

func newHarness(t *testing.T, clock Clock, timeout time.Duration) *harness {
	t.Helper()
	storeDir := t.TempDir()
	store, err := persistence.OpenURL(storetest.URL(t, storeDir), storeDir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sys := newSystem()
	h := &harness{t: t, store: store, sys: sys}
	if fc, ok := clock.(*fakeClock); ok {
		h.clock = fc
	}
	t.Cleanup(func() {
		if h.d != nil {
			h.d.Stop()
		}
		sys.Shutdown()
		_ = store.Close()
	})
	return h
}

func (h *harness) start(clock Clock, timeout time.Duration) {
	h.t.Helper()
	d, err := Start(h.sys, Config{Store: h.store, Clock: clock, AllowPrivate: true, Timeout: timeout, Grace: 100 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		h.t.Fatal(err)
	}
	h.d = d
}

// insert writes a pending callback row due at at, as the outbox would.
func (h *harness) insert(id, target string, at time.Time, delays []time.Duration) {
	h.t.Helper()
	d := &Delivery{V: schemaV1, ID: id, TenantID: "ten_1", PageID: "pg_1", EventID: "evt_" + id, Event: "action.executed",
		Channel: ChannelCallback, Target: target, Lane: lane(ChannelCallback, target), Body: []byte(`{"event":"action.executed"}`),
		WebhookID: "evt_" + id, DelaysMS: millis(delays), Status: StatusPending, Attempts: []Attempt{}, NextAttemptAt: &at, CreatedAt: at}
	if err := h.store.Update(func(tx *persistence.Tx) error { return put(tx, d, nil, true) }); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) load(id string) *Delivery {
	h.t.Helper()
	d, err := Load(h.store, id)
	if err != nil || d == nil {
		h.t.Fatalf("load %s: %v", id, err)
	}
	return d
}

func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestDefaultScheduleExactly runs the specification's schedule on a fake clock: the
// first attempt at once, then 1 m, 5 m, 30 m, 2 h and 12 h after each failure, then
// nothing more.
func TestDefaultScheduleExactly(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.WriteHeader(500)
	}))
	defer srv.Close()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: t0}
	h := newHarness(t, clock, 5*time.Second)
	h.insert("a", srv.URL, t0, defaultSchedule)
	h.start(clock, 5*time.Second)

	want := []time.Duration{0, time.Minute, 6 * time.Minute, 36 * time.Minute, 2*time.Hour + 36*time.Minute, 14*time.Hour + 36*time.Minute}
	for n, offset := range want {
		if n > 0 {
			// Just before the due time nothing happens; at it, the next attempt runs.
			due := t0.Add(offset)
			h.waitFor("the timer armed for the next attempt", func() bool { at, ok := clock.armedAt(); return ok && at.Equal(due) })
			clock.Advance(due.Sub(clock.Now()) - time.Nanosecond)
			time.Sleep(20 * time.Millisecond)
			if c := h.load("a").AttemptCount; c != n {
				t.Fatalf("attempt %d ran before its due time", c)
			}
			clock.Advance(time.Nanosecond)
		}
		h.waitFor("attempt recorded", func() bool { return h.load("a").AttemptCount == n+1 })
		d := h.load("a")
		a := d.Attempts[n]
		if !a.At.Equal(t0.Add(offset)) || a.HTTPStatus != 500 {
			t.Errorf("attempt %d at +%s (status %d), want +%s", n+1, a.At.Sub(t0), a.HTTPStatus, offset)
		}
		if n+1 < len(want) {
			if d.Status != StatusPending || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(t0.Add(want[n+1])) {
				t.Errorf("after attempt %d: status %s, next %v, want +%s", n+1, d.Status, d.NextAttemptAt, want[n+1])
			}
		} else if d.Status != StatusFailed || d.NextAttemptAt != nil || d.CompletedAt == nil {
			t.Errorf("after the last attempt: %+v", d)
		}
	}
	clock.Advance(48 * time.Hour)
	time.Sleep(30 * time.Millisecond)
	if c := h.load("a").AttemptCount; c != 6 {
		t.Errorf("%d attempts, want 6", c)
	}
	if _, armed := clock.armedAt(); armed {
		t.Errorf("a timer is still armed after the delivery gave up")
	}
	mu.Lock()
	defer mu.Unlock()
	for i, b := range bodies {
		if b != bodies[0] {
			t.Errorf("attempt %d body %q differs from %q", i+1, b, bodies[0])
		}
	}
	// Nothing is left in the due index.
	rows, _ := allDue(h.store)
	if len(rows) != 0 {
		t.Errorf("due index still holds %v", rows)
	}
}

func TestDelaysOfCustomRetry(t *testing.T) {
	i := func(n int) *int { return &n }
	f := func(x float64) *float64 { return &x }
	s := time.Second
	cases := []struct {
		name  string
		retry *retrySpec
		want  []time.Duration
	}{
		{"default", nil, defaultSchedule},
		{"exponential", &retrySpec{i(5), "exponential", f(10)}, []time.Duration{10 * s, 20 * s, 40 * s, 80 * s}},
		{"backoff omitted is exponential", &retrySpec{i(3), "", f(2)}, []time.Duration{2 * s, 4 * s}},
		{"linear", &retrySpec{i(4), "linear", f(30)}, []time.Duration{30 * s, 60 * s, 90 * s}},
		{"fixed", &retrySpec{i(3), "fixed", f(5)}, []time.Duration{5 * s, 5 * s}},
		{"one attempt", &retrySpec{i(1), "exponential", f(5)}, []time.Duration{}},
		{"initial delay defaults to 60 s", &retrySpec{i(3), "", nil}, []time.Duration{60 * s, 120 * s}},
		{"max_attempts defaults to six", &retrySpec{nil, "fixed", f(1)}, []time.Duration{s, s, s, s, s}},
		{"capped at 24 h", &retrySpec{i(20), "exponential", f(86400)}, nil},
	}
	for _, c := range cases {
		got := Delays(c.retry.page(), defaultSchedule)
		if c.want == nil {
			for _, d := range got {
				if d > 24*time.Hour {
					t.Errorf("%s: delay %s over the cap", c.name, d)
				}
			}
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for j := range got {
			if got[j] != c.want[j] {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"5": 5 * time.Second, "0": 0, "999999": time.Hour,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
	} {
		if got, ok := retryAfter(v, now); !ok || got != want {
			t.Errorf("retryAfter(%q) = %s %v, want %s", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "-1", "soon"} {
		if _, ok := retryAfter(v, now); ok {
			t.Errorf("retryAfter(%q) accepted", v)
		}
	}
}

// TestOneAttemptInFlight: a manual retry while an attempt runs is refused, and
// attempts resume from the store after a restart.
func TestOneAttemptInFlightAndResumeAfterRestart(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var seen []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, time.Now())
		n := len(seen)
		mu.Unlock()
		if n == 1 {
			<-release
		}
		w.WriteHeader(200)
	}))
	defer srv.Close()
	h := newHarness(t, RealClock(nil), time.Minute)
	h.start(RealClock(nil), time.Minute)
	now := time.Now()
	h.insert("b", srv.URL, now, defaultSchedule)
	h.d.Enqueue([]Item{{ID: "b", Lane: lane(ChannelCallback, srv.URL), Due: now}})
	h.waitFor("the first attempt in flight", func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == 1 })
	_, err := h.d.Retry("ten_1", "b")
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.Conflict {
		t.Fatalf("retry while in flight: %v, want 409", err)
	}
	if _, err := h.d.Retry("ten_other", "b"); !errors.As(err, &fe) || fe.Code != fault.NotFound {
		t.Errorf("another tenant's retry: %v, want 404", err)
	}
	// Stopping lets the attempt run for the grace period, then cancels it without
	// recording it: the row stays pending, due.
	h.d.Stop()
	close(release)
	if d := h.load("b"); d.Status != StatusPending || d.AttemptCount != 0 {
		t.Fatalf("after a cancelled attempt: %+v", d)
	}
	h.d = nil
	h.start(RealClock(nil), time.Minute) // a new dispatcher on the same store
	h.waitFor("the delivery resumed and succeeded", func() bool { return h.load("b").Status == StatusSucceeded })
	rows, _ := allDue(h.store)
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	sort.Strings(ids)
	if len(ids) != 0 {
		t.Errorf("due index after success: %v", ids)
	}
}
