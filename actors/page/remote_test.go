package page

import (
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/frame"
)

// gatedPeers is another node sharing the store: log holds the page's events it
// committed (sequence i+1 at i), and PageLast waits for the test's word (gate),
// saying when it was asked.
type gatedPeers struct {
	mu    sync.Mutex
	log   []*frame.Frame
	once  sync.Once
	asked chan struct{}
	gate  chan struct{}
}

func (p *gatedPeers) WatchPage(string) func() { return func() {} }

func (p *gatedPeers) PageLast(string, string) (uint64, error) {
	p.once.Do(func() { close(p.asked) })
	<-p.gate
	p.mu.Lock()
	defer p.mu.Unlock()
	return uint64(len(p.log)), nil
}

func (p *gatedPeers) PageAfter(_, _ string, after uint64, _ int) ([]*frame.Frame, uint64, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*frame.Frame(nil), p.log[min(after, uint64(len(p.log))):]...), uint64(len(p.log)), false, nil
}

func (p *gatedPeers) commit(typ string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seq := uint64(len(p.log) + 1)
	p.log = append(p.log, frame.New(seq, typ, "", []byte(`{"type":"`+typ+`"}`)))
}

// chanSub hands every frame it is sent to got.
type chanSub struct{ got chan *frame.Frame }

func (s chanSub) Send(f *frame.Frame) bool { s.got <- f; return true }
func (s chanSub) Close()                   {}
func (s chanSub) End(*frame.Frame)         {}

// TestAnEventCommittedElsewhereAfterTheSubscriptionReachesIt: once a subscriber is
// told it is subscribed, an event another node commits reaches it at the next
// check, even when the commit lands before the page has read where its events
// stand (the page reads that before it answers). A node that died before ringing
// its doorbell left only the check to find it.
func TestAnEventCommittedElsewhereAfterTheSubscriptionReachesIt(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	peers := &gatedPeers{asked: make(chan struct{}), gate: make(chan struct{})}
	deps := &Deps{Now: time.Now, Peers: peers}
	pid := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor {
		a := newActor("pg_1", deps)
		a.loaded, a.page = true, &Page{ID: "pg_1", TenantID: "ten_1", Status: Active}
		return a
	}))
	sub := chanSub{got: make(chan *frame.Frame, 8)}
	answered := make(chan any, 1)
	go func() {
		res, err := sys.Root.RequestFuture(pid, &Subscribe{Viewer: Viewer{TenantID: "ten_1"}, Sub: sub}, 10*time.Second).Result()
		if err != nil {
			res = err
		}
		answered <- res
	}()
	select {
	case <-peers.asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the page never read where its events stand")
	}
	subscribed := func(res any) {
		t.Helper()
		if _, ok := res.(*Subscribed); !ok {
			t.Fatalf("subscribe answered %#v", res)
		}
	}
	select {
	case res := <-answered:
		// Answered before the read finished: the other node commits now, after
		// the answer, and the read then finds its event already there.
		subscribed(res)
		peers.commit("blocks.appended")
		close(peers.gate)
	case <-time.After(200 * time.Millisecond):
		// No answer while the read is held (an answer sent first arrives within
		// this wait): the commit comes after the read and after the answer.
		close(peers.gate)
		subscribed(<-answered)
		peers.commit("blocks.appended")
	}
	sys.Root.Send(pid, &Remote{Seq: 0}) // the periodic check
	select {
	case f := <-sub.got:
		if f.Seq != 1 || f.Type != "blocks.appended" {
			t.Fatalf("the subscriber got %s #%d, want blocks.appended #1", f.Type, f.Seq)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the event committed on another node after the subscription was answered never reached the subscriber")
	}
}
