package registry

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// counter is a test entity on the skeleton: it answers every message with its id and
// how many times an actor for that id has been made.
type counter struct {
	id     string
	ent    *Entity
	spawns *sync.Map // id -> *atomic.Int64
}

type reply struct {
	id     string
	spawns int64
}

func (c *counter) Receive(ctx actor.Context) { c.ent.Receive(ctx, c.handle) }

func (c *counter) handle(ctx actor.Context) {
	if _, ok := ctx.Message().(string); ok {
		n, _ := c.spawns.Load(c.id)
		ctx.Respond(reply{c.id, n.(*atomic.Int64).Load()})
	}
}

type harness struct {
	reg        *Registry
	spawns     sync.Map
	passivated atomic.Int64
}

func newHarness(t *testing.T, maxLive int, pinned string) *harness {
	return newIdleHarness(t, maxLive, pinned, 0)
}

func newIdleHarness(t *testing.T, maxLive int, pinned string, idle time.Duration) *harness {
	sys := actor.NewActorSystem()
	t.Cleanup(sys.Shutdown)
	h := &harness{}
	produce := func(id string) actor.Actor {
		var l Lifecycle
		if id == pinned {
			l.Live = func() bool { return true }
		}
		n, _ := h.spawns.LoadOrStore(id, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		return &counter{id: id, ent: NewEntity(id, idle, l), spawns: &h.spawns}
	}
	h.reg = Start(sys, fmt.Sprintf("test-%d-%s-%s", maxLive, pinned, idle), produce, Options{Timeout: 5 * time.Second, MaxLive: maxLive,
		Hooks: Hooks{Passivated: func() { h.passivated.Add(1) }}})
	return h
}

func (h *harness) ask(t *testing.T, id string) reply {
	t.Helper()
	res, err := h.reg.Ask(context.Background(), id, "hello")
	if err != nil {
		t.Fatalf("ask %s: %v", id, err)
	}
	r := res.(reply)
	if r.id != id {
		t.Fatalf("asked %s, answered by %s", id, r.id)
	}
	return r
}

func (h *harness) waitPassivated(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for h.passivated.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d children passivated, want %d", h.passivated.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Past MaxLive the least recently used child passivates; its next message starts a
// fresh one, and a recently used child stays.
func TestMaxLiveEvictsTheLeastRecentlyUsed(t *testing.T) {
	h := newHarness(t, 3, "")
	for _, id := range []string{"a", "b", "c"} {
		h.ask(t, id)
	}
	h.ask(t, "a") // a is now the most recently used; b the least
	h.ask(t, "d") // over the bound: b goes
	h.waitPassivated(t, 1)
	if r := h.ask(t, "a"); r.spawns != 1 {
		t.Fatalf("a (recently used) was restarted: %d spawns", r.spawns)
	}
	if r := h.ask(t, "b"); r.spawns != 2 { // b comes back, c (least recent) goes
		t.Fatalf("b (least recently used) has %d spawns, want 2", r.spawns)
	}
	h.waitPassivated(t, 2)
	time.Sleep(50 * time.Millisecond)
	if n := h.passivated.Load(); n != 2 {
		t.Fatalf("%d passivations for 5 children under a bound of 3 after one return, want 2", n)
	}
}

// A child spawned while every live child has been used on its route since the last
// sweep is the newest, not the one to evict: the sweep gives the others their second
// chance and the least recently used goes.
func TestMaxLiveKeepsTheNewestWhenEveryOtherWasUsed(t *testing.T) {
	h := newHarness(t, 3, "")
	for _, id := range []string{"a", "b", "c"} {
		h.ask(t, id) // spawned through the manager
	}
	for _, id := range []string{"a", "b", "c"} {
		h.ask(t, id) // used again, on their routes
	}
	h.ask(t, "d") // over the bound
	h.waitPassivated(t, 1)
	if r := h.ask(t, "d"); r.spawns != 1 {
		t.Fatalf("the newest child was evicted: %d spawns", r.spawns)
	}
	if r := h.ask(t, "a"); r.spawns != 2 {
		t.Fatalf("the least recently used child has %d spawns, want 2 (evicted and back)", r.spawns)
	}
}

// A pinned child (a page with live subscribers) declines eviction and stays live;
// the next least recently used goes in its place, so the bound still holds.
func TestMaxLiveKeepsPinnedChildren(t *testing.T) {
	h := newHarness(t, 2, "pinned")
	h.ask(t, "pinned")
	for i := 0; i < 6; i++ {
		h.ask(t, fmt.Sprintf("x%d", i))
	}
	h.waitPassivated(t, 5) // x0..x4: only the pinned child and x5 remain
	if r := h.ask(t, "pinned"); r.spawns != 1 {
		t.Fatalf("the pinned child was evicted: %d spawns", r.spawns)
	}
	if r := h.ask(t, "x5"); r.spawns != 1 {
		t.Fatalf("the most recent child was evicted: %d spawns", r.spawns)
	}
	time.Sleep(50 * time.Millisecond)
	if n := h.passivated.Load(); n != 5 {
		t.Fatalf("%d passivations, want 5", n)
	}
}

// askFromMany has 16 callers each ask asks times, over ids e0..e(ids-1); pause, when
// set, runs after every ask. It fails the test on any error or misdelivered answer.
func (h *harness) askFromMany(t *testing.T, asks, ids int, pause func(i int)) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < asks; i++ {
				id := fmt.Sprintf("e%d", (w*7+i)%ids)
				res, err := h.reg.Ask(context.Background(), id, "hello")
				if err != nil {
					errs <- fmt.Errorf("ask %s: %w", id, err)
					return
				}
				if r := res.(reply); r.id != id {
					errs <- fmt.Errorf("asked %s, answered by %s", id, r.id)
					return
				}
				if pause != nil {
					pause(i)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Under a small bound and parallel callers, every message is answered by the actor
// of its own id: nothing is lost or misdelivered while children come and go.
func TestMaxLiveLosesNoMessage(t *testing.T) {
	h := newHarness(t, 3, "")
	h.askFromMany(t, 100, 20, nil)
	if h.passivated.Load() == 0 {
		t.Fatal("20 ids under a bound of 3: nothing was passivated")
	}
}

// Children passivating after a millisecond of quiet while parallel callers keep
// coming back: every message, whether it went straight to a live child or through the
// manager because the child was leaving, is answered by the actor of its own id, and
// none waits for the timeout.
func TestIdlePassivationRacingCallersLosesNoMessage(t *testing.T) {
	h := newIdleHarness(t, 0, "", time.Millisecond)
	var n atomic.Int64
	widenRace = func() { // every few sends dawdle, so passivations land in the gap
		if n.Add(1)%4 == 0 {
			time.Sleep(500 * time.Microsecond)
		}
	}
	t.Cleanup(func() { widenRace = nil })
	h.askFromMany(t, 300, 40, func(i int) {
		if i%5 == 0 {
			time.Sleep(2 * time.Millisecond) // let some children go quiet
		}
	})
	t.Logf("%d passivations", h.passivated.Load())
	if h.passivated.Load() == 0 {
		t.Fatal("children idle for 2 ms under a 1 ms idle period: nothing was passivated")
	}
}

// holder is a test entity that takes subscriptions: subscribe registers one (and
// pins the child) unless the child is leaving; one still held when it stops is lost.
type holder struct {
	ent  *Entity
	subs int
}

type subscribe struct{}

func (h *holder) Receive(ctx actor.Context) { h.ent.Receive(ctx, h.handle) }

func (h *holder) handle(ctx actor.Context) {
	switch ctx.Message().(type) {
	case subscribe:
		if h.ent.Idle.Leaving() {
			ctx.Respond(ErrRetry)
			return
		}
		h.subs++
		ctx.Respond(h.subs)
	case string:
		ctx.Respond(h.subs)
	}
}

// A subscription that reaches a child after it asked to be passivated, before its
// manager stopped it, is refused and asked again, so it ends up with a live child
// instead of closing with the stopped one.
func TestASubscriptionRacingPassivationEndsWithALiveChild(t *testing.T) {
	sys := actor.NewActorSystem()
	t.Cleanup(sys.Shutdown)
	var lost atomic.Int64
	reg := Start(sys, "test-holder", func(id string) actor.Actor {
		h := &holder{}
		// Never idle while it holds a subscription (as a page); one still held when
		// it stops is lost.
		h.ent = NewEntity(id, time.Millisecond, Lifecycle{Live: func() bool { return h.subs > 0 }, Ended: func() { lost.Add(int64(h.subs)) }})
		return h
	}, Options{Timeout: 5 * time.Second})
	// The manager dawdles over every Passivate: the subscription lands in between.
	dawdle := func() { time.Sleep(20 * time.Millisecond) }
	widenPassivate.Store(&dawdle)
	t.Cleanup(func() { widenPassivate.Store(nil) })

	if _, err := reg.Ask(context.Background(), "h", "hello"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // idle after 1 ms: it has asked to be passivated
	res, err := reg.Ask(context.Background(), "h", subscribe{})
	if err != nil || res != 1 {
		t.Fatalf("subscribe: %v %v", res, err)
	}
	time.Sleep(50 * time.Millisecond) // whatever stop was coming has happened
	if n := lost.Load(); n != 0 {
		t.Fatalf("%d subscription closed with a stopped child", n)
	}
	if res, err := reg.Ask(context.Background(), "h", "hello"); err != nil || res != 1 {
		t.Fatalf("the live child holds %v subscriptions (%v), want 1", res, err)
	}
}
