package bus

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"folio/transport/node/nodetest/ports"
)

func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// wait receives one ring within d.
func wait(t *testing.T, ch <-chan uint64, d time.Duration, what string) uint64 {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("no ring: %s", what)
		return 0
	}
}

// TestDoorbellsCrossEmbeddedServers: two nodes' embedded servers, routed; a ring on
// one reaches the other's watcher with its sequence, and not its own (NoEcho).
func TestDoorbellsCrossEmbeddedServers(t *testing.T) {
	pa := ports.Consecutive(t, 1)
	a, err := Open(Config{Listen: addr(pa), Check: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(Config{Listen: addr(ports.Consecutive(t, 1)), Routes: "nats://" + addr(pa), Check: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	atB, atA := make(chan uint64, 16), make(chan uint64, 16)
	defer b.Watch("folio.page.p1", func(seq uint64) { atB <- seq })()
	defer a.Watch("folio.page.p1", func(seq uint64) { atA <- seq })()
	deadline := time.Now().Add(10 * time.Second)
	for a.Peers() != 1 || b.Peers() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the servers never routed to each other")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// B's interest reaches A's server a moment after the route: ring until it lands.
	for seq := uint64(1); ; seq++ {
		a.Ring("folio.page.p1", seq)
		select {
		case got := <-atB:
			if got > seq {
				t.Fatalf("B heard %d after %d was rung", got, seq)
			}
		case <-time.After(200 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no doorbell from A ever reached B")
			}
			continue
		}
		break
	}
	select {
	case v := <-atA:
		t.Fatalf("A heard its own doorbell (%d)", v)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestReconnectLooksAtTheStore: doorbells rung while a node was cut off from NATS
// are lost, so on reconnecting every watcher is rung with 0 at once, long before
// the periodic check.
func TestReconnectLooksAtTheStore(t *testing.T) {
	port := ports.Consecutive(t, 1)
	run := func() *server.Server {
		s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, NoSigs: true, NoLog: true})
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("NATS did not start")
		}
		return s
	}
	srv := run()
	b, err := Open(Config{URL: "nats://" + addr(port), Check: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rings := make(chan uint64, 16)
	defer b.Watch("folio.tenant.t1", func(seq uint64) { rings <- seq })()
	srv.Shutdown()
	srv.WaitForShutdown()
	srv = run()
	defer srv.Shutdown()
	if v := wait(t, rings, 15*time.Second, "after reconnecting"); v != 0 {
		t.Fatalf("rung with %d after reconnecting, want 0 (look at the store)", v)
	}
}

// TestWithoutNATSOnlyTheCheckRings: a node on a shared store without NATS still
// rings its watchers every check period, and Ring is a no-op.
func TestWithoutNATSOnlyTheCheckRings(t *testing.T) {
	b, err := Open(Config{Check: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rings := make(chan uint64, 16)
	stop := b.Watch("folio.page.p", func(seq uint64) { rings <- seq })
	b.Ring("folio.page.p", 7)
	if v := wait(t, rings, 2*time.Second, "the periodic check"); v != 0 {
		t.Fatalf("rung with %d, want 0", v)
	}
	stop()
	for len(rings) > 0 {
		<-rings
	}
	select {
	case <-rings:
		t.Fatal("rung after the watch stopped")
	case <-time.After(100 * time.Millisecond):
	}
}

// TestATakenRoutePortIsNamedAtOnce: a node whose --nats-listen port is taken says
// so at once, instead of waiting 10 s for a server that never becomes ready.
func TestATakenRoutePortIsNamedAtOnce(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	began := time.Now()
	b, err := Open(Config{Listen: l.Addr().String(), Check: time.Hour})
	if err == nil {
		b.Close()
		t.Fatal("a bus opened on a taken route port")
	}
	if !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), "--nats-listen") {
		t.Fatalf("the error does not name the cause: %v", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("the refusal took %v", d)
	}
}
