package tenant

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/persistence/storetest"
)

// TestPanicAnsweredAtOnce: a tenant actor whose command panics (here its clock, as a
// bug in any command would) answers its caller with an INTERNAL_ERROR fault in under
// 100 ms, not after the node's 10 s ask timeout; the restarted actor then takes the
// same command normally.
func TestPanicAnsweredAtOnce(t *testing.T) {
	store := storetest.Open(t, t.TempDir())
	t.Cleanup(func() { _ = store.Close() })
	sys := actor.NewActorSystem()
	t.Cleanup(sys.Shutdown) // before the store closes
	var broken atomic.Bool
	broken.Store(true)
	now := func() time.Time {
		if broken.Swap(false) {
			panic("clock broke")
		}
		return time.Now()
	}
	d := &Deps{Store: store, Now: now}
	reg := registry.Start(sys, "tenants-panic", NewProducer(d), registry.Options{Timeout: 10 * time.Second})
	ctx := context.Background()

	began := time.Now()
	_, err := registry.Call[*Registered](ctx, reg, "ten_p", &Register{Name: "Acme"})
	took := time.Since(began)
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.Internal {
		t.Fatalf("a panicking register answered %v after %v, want an INTERNAL_ERROR fault", err, took)
	}
	if took >= 100*time.Millisecond {
		t.Fatalf("a panicking register answered after %v, want under 100ms", took)
	}
	t.Logf("answered INTERNAL_ERROR after %v", took)

	r, err := registry.Call[*Registered](ctx, reg, "ten_p", &Register{Name: "Acme"})
	if err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if r.Tenant.ID != "ten_p" || r.Tenant.Name != "Acme" {
		t.Fatalf("after the restart registered %+v", r.Tenant)
	}
}
