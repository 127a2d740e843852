package workflow

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
	"folio/persistence/storetest"
)

// gate forwards messages to the page registry, or drops the workflow's publish
// commands while closed: the state a crash leaves between a page's completion
// (committed with its pending step) and the next page's publication.
type gate struct {
	reg    atomic.Pointer[registry.Registry]
	closed atomic.Bool
}

func (g *gate) Tell(id string, msg any) {
	if _, ok := msg.(*page.PublishDraft); ok && g.closed.Load() {
		return
	}
	g.reg.Load().Tell(id, msg)
}

// node is a minimal page system with the workflow outlet on a store.
type node struct {
	system *actor.ActorSystem
	pages  *registry.Registry
	wf     *Service
	gate   *gate
}

func start(t *testing.T, store *persistence.Store) *node {
	t.Helper()
	g := &gate{}
	pd := &page.Deps{Store: store, Now: time.Now, Limits: page.DefaultLimits, DefaultTTL: time.Hour, Idle: time.Minute,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	wf := New(Deps{Store: store, PageDeps: pd, Pages: g, Now: time.Now})
	pd.Outlets = []page.Outlet{wf.Outlet()}
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return pd.Log }))
	reg := registry.Start(system, "pages", page.NewProducer(pd), registry.Options{Timeout: 5 * time.Second})
	g.reg.Store(reg)
	return &node{system: system, pages: reg, wf: wf, gate: g}
}

var owner = page.Caller{TenantID: "ten_1", Agent: "agent:test"}

func (n *node) status(t *testing.T, id string) string {
	t.Helper()
	res, err := n.pages.Ask(context.Background(), id, &page.Get{Caller: owner})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := res.(*page.Result)
	if !ok {
		t.Fatalf("get %s: %v", id, res)
	}
	return r.Page.Status
}

func (n *node) approve(t *testing.T, id string) {
	t.Helper()
	res, err := n.pages.Ask(context.Background(), id, &page.Execute{Caller: owner, ActionID: "approve"})
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := res.(error); ok {
		t.Fatalf("approve %s: %v", id, e)
	}
}

func request(title string) *page.Request {
	acts := []page.Action{{ActionID: "approve", Label: "Approve"}}
	return &page.Request{Title: &title, Actions: &acts}
}

func pending(t *testing.T, store *persistence.Store) int {
	t.Helper()
	n := 0
	_ = store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketPending, nil, false, func(_, _ []byte) bool { n++; return true })
		return nil
	})
	return n
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A crash after page 1's completion committed but before page 2 was published:
// the pending step is durable, and the next start publishes page 2.
func TestNextStepIsPublishedAfterACrash(t *testing.T) {
	dir := t.TempDir()
	store, err := persistence.OpenURL(storetest.URL(t, dir), dir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := start(t, store)
	created, err := n.wf.Create(owner, CreateRequest{Name: "w", Flow: Sequential, Pages: []*page.Request{request("one"), request("two")}})
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := created.Pages[0].ID, created.Pages[1].ID
	n.gate.closed.Store(true) // the "crash" loses the publish command
	n.approve(t, p1)
	if got := n.status(t, p2); got != page.Draft || pending(t, store) != 1 {
		t.Fatalf("before the restart: page 2 %s, %d pending", got, pending(t, store))
	}
	v, _ := n.wf.Get(owner.TenantID, created.Workflow.ID)
	if v.Status != InProgress {
		t.Errorf("workflow = %s", v.Status)
	}
	n.system.Shutdown()
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	store, err = persistence.OpenURL(storetest.URL(t, dir), dir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	n = start(t, store)
	defer n.system.Shutdown()
	if got := n.wf.Redrive(); got != 1 {
		t.Fatalf("redrive told %d pages", got)
	}
	eventually(t, "page 2 published", func() bool { return n.status(t, p2) == page.Active })
	eventually(t, "the pending step removed", func() bool { return pending(t, store) == 0 })
	// Driving again is harmless: the page is no longer a draft and nothing is pending.
	if got := n.wf.Redrive(); got != 0 {
		t.Errorf("second redrive told %d pages", got)
	}
	n.approve(t, p2)
	v, _ = n.wf.Get(owner.TenantID, created.Workflow.ID)
	if v.Status != Completed {
		t.Errorf("workflow = %s %v", v.Status, v.Statuses)
	}
}

func TestDerive(t *testing.T) {
	now := time.Now()
	past := now.Add(-time.Minute)
	future := now.Add(time.Minute)
	for _, c := range []struct {
		steps []Step
		from  string
		want  string
	}{
		{[]Step{{Status: page.Active}, {Status: page.Draft}}, Active, Active},
		{[]Step{{Status: page.Completed}, {Status: page.Active}}, Active, InProgress},
		{[]Step{{Status: page.Completed}, {Status: page.Completed}}, InProgress, Completed},
		{[]Step{{Status: page.Completed}, {Status: page.Revoked}}, InProgress, Cancelled},
		{[]Step{{Status: page.Expired}, {Status: page.Draft}}, Active, Cancelled},
		{[]Step{{Status: page.Active, ExpiresAt: &past}}, Active, Cancelled},
		{[]Step{{Status: page.Active, ExpiresAt: &future}}, Active, Active},
		{[]Step{{Status: page.Active}}, Cancelled, Cancelled},  // final
		{[]Step{{Status: page.Revoked}}, Completed, Completed}, // final
	} {
		w := &Workflow{Status: c.from, Steps: c.steps}
		w.derive(now)
		if w.Status != c.want {
			t.Errorf("%+v from %s: %s, want %s", c.steps, c.from, w.Status, c.want)
		}
	}
}
