package page

import (
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/fault"
	"folio/actors/model/frame"
)

// closingSub records whether the page ended its stream.
type closingSub struct {
	mu     sync.Mutex
	closed bool
}

func (s *closingSub) Send(*frame.Frame) bool { return true }
func (s *closingSub) Close()                 { s.mu.Lock(); s.closed = true; s.mu.Unlock() }
func (s *closingSub) isClosed() bool         { s.mu.Lock(); defer s.mu.Unlock(); return s.closed }
func (s *closingSub) End(*frame.Frame)       { s.Close() }

// explode is a public command whose handling panics, as a bug in any command would.
type explode struct{}

func (explode) public()        {}
func (explode) run(*Actor) any { panic("boom") }

// TestRestartClosesSubscribers: when a page actor panics, the supervisor replaces it
// with a fresh incarnation that knows no subscribers; the old one must end their
// streams so the clients reconnect, rather than wait forever on a page that will
// never send to them.
func TestRestartClosesSubscribers(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	deps := &Deps{Now: time.Now}
	props := actor.PropsFromProducer(func() actor.Actor {
		a := newActor("pg_1", deps)
		a.loaded, a.page = true, &Page{ID: "pg_1", TenantID: "ten_1", Status: Active}
		return a
	})
	pid := sys.Root.Spawn(props)
	sub := &closingSub{}
	res, err := sys.Root.RequestFuture(pid, &Subscribe{Viewer: Viewer{TenantID: "ten_1"}, Sub: sub}, time.Second).Result()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.(*Subscribed); !ok {
		t.Fatalf("subscribe answered %#v", res)
	}
	if sub.isClosed() {
		t.Fatal("closed before any failure")
	}
	res, _ = sys.Root.RequestFuture(pid, explode{}, time.Second).Result()
	if fe, ok := res.(*fault.Error); !ok || fe.Code != fault.Internal {
		t.Fatalf("a panicking command answered %#v, want an INTERNAL_ERROR fault", res)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !sub.isClosed() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !sub.isClosed() {
		t.Fatal("the subscriber of the failed incarnation was never closed")
	}
	// The fresh incarnation still answers.
	if res, err := sys.Root.RequestFuture(pid, &Subscribe{Viewer: Viewer{TenantID: "ten_1"}, Sub: &closingSub{}}, time.Second).Result(); err != nil {
		t.Fatalf("after the restart: %v", err)
	} else if _, ok := res.(*Subscribed); !ok {
		t.Fatalf("after the restart subscribe answered %#v", res)
	}
}
