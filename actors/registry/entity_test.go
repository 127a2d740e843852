package registry

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/fault"
)

// fragile is a test entity on the skeleton: it panics on "boom" and answers anything
// else with how many incarnations have ended so far.
type fragile struct {
	ent   *Entity
	ended *atomic.Int64
}

func (f *fragile) Receive(ctx actor.Context) { f.ent.Receive(ctx, f.handle) }

func (f *fragile) handle(ctx actor.Context) {
	if ctx.Message() == "boom" {
		panic("boom")
	}
	ctx.Respond(f.ended.Load())
}

func startFragile(t *testing.T, name string, idle time.Duration) (*Registry, *atomic.Int64, *atomic.Int64, *atomic.Int64) {
	sys := actor.NewActorSystem()
	t.Cleanup(sys.Shutdown)
	var ended, failures, passivated atomic.Int64
	sys.EventStream.Subscribe(func(ev any) {
		if _, ok := ev.(*actor.SupervisorEvent); ok {
			failures.Add(1)
		}
	})
	produce := func(id string) actor.Actor {
		return &fragile{ent: NewEntity(id, idle, Lifecycle{Ended: func() { ended.Add(1) }}), ended: &ended}
	}
	// The node's ask timeout: before the skeleton, a panicking tenant or inbox actor's
	// caller waited all of it.
	reg := Start(sys, name, produce, Options{Timeout: 10 * time.Second, Hooks: Hooks{Passivated: func() { passivated.Add(1) }}})
	return reg, &ended, &failures, &passivated
}

// TestEntityPanicAnsweredAtOnce: the caller of an entity whose handler panics gets an
// INTERNAL_ERROR fault in well under the ask timeout, the panic still reaches the
// supervisor (one supervisor event, as the node logs and counts), the failed
// incarnation's Ended hook runs, and the restarted actor answers the next message.
func TestEntityPanicAnsweredAtOnce(t *testing.T) {
	reg, ended, failures, _ := startFragile(t, "fragile", 0)
	ctx := context.Background()
	if _, err := Call[int64](ctx, reg, "e1", "hello"); err != nil {
		t.Fatalf("first call: %v", err)
	}
	began := time.Now()
	_, err := Call[int64](ctx, reg, "e1", "boom")
	took := time.Since(began)
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.Internal {
		t.Fatalf("a panicking handler answered %v after %v, want an INTERNAL_ERROR fault", err, took)
	}
	if took >= 100*time.Millisecond {
		t.Fatalf("a panicking handler answered after %v, want under 100ms", took)
	}
	t.Logf("answered INTERNAL_ERROR after %v", took)
	n, err := Call[int64](ctx, reg, "e1", "hello")
	if err != nil {
		t.Fatalf("after the panic: %v", err)
	}
	if n != 1 || ended.Load() != 1 {
		t.Fatalf("after the panic %d incarnations had ended, want 1 (the restart)", n)
	}
	if got := failures.Load(); got != 1 {
		t.Fatalf("the supervisor saw %d failures, want 1", got)
	}
}

// TestEntityIdlePassivates: an entity on the skeleton still passivates when quiet,
// and its Ended hook runs as it stops.
func TestEntityIdlePassivates(t *testing.T) {
	reg, ended, _, passivated := startFragile(t, "fragile-idle", 20*time.Millisecond)
	if _, err := Call[int64](context.Background(), reg, "e1", "hello"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for passivated.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if passivated.Load() != 1 || ended.Load() != 1 {
		t.Fatalf("after 5s quiet: %d passivated, %d ended; want 1 and 1", passivated.Load(), ended.Load())
	}
}
