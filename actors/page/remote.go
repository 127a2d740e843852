package page

import (
	"log/slog"

	"folio/actors/model/frame"
)

// Other nodes of a cluster commit events of this page too (they share the store).
// A page's events are committed only together with its record (write), so the
// page's revision moves with every event: an actor whose revision check finds no
// change has missed none, and one that finds a change reads the events its
// subscribers have not had from the agent log, in sequence order, before anything
// else. A doorbell from another node (Remote) only makes that happen sooner than
// the actor's next message would.

// Peers is how a page actor hears of its page's commits on other nodes (wired by
// transport/bus; nil on a single node).
type Peers interface {
	// WatchPage makes the node send Remote to the page's actor on every doorbell of
	// the page and on every periodic check, until stop is called.
	WatchPage(pageID string) (stop func())
	// PageAfter returns the stream frames of the page's public events with a
	// sequence number above after, reading at most limit events; through is the
	// newest sequence number read, more whether limit stopped the read.
	PageAfter(tenantID, pageID string, after uint64, limit int) (frames []*frame.Frame, through uint64, more bool, err error)
	// PageLast is the sequence number of the page's newest event.
	PageLast(tenantID, pageID string) (uint64, error)
}

// Remote says another node committed events of the page up to Seq (0: a periodic
// check, look at the store).
type Remote struct{ Seq uint64 }

func (m *Remote) public() {}

func (m *Remote) run(a *Actor) any {
	if m.Seq == 0 || m.Seq > a.sent {
		a.catchUp()
	}
	return nil
}

// peerChunk is how many events one read of the log takes.
const peerChunk = 256

// watchPeers starts or stops hearing of other nodes' commits as the page gains its
// first live subscriber or loses its last. Starting reads where the page's events
// stand, after the watch is in place, so a commit elsewhere is either before that
// point (and before this subscription) or rings the doorbell.
func (a *Actor) watchPeers() {
	p := a.deps.Peers
	switch {
	case p == nil || a.page == nil:
	case a.subs.live() && a.unwatch == nil:
		a.unwatch = p.WatchPage(a.id)
		last, err := p.PageLast(a.page.TenantID, a.id)
		if err != nil {
			a.logPeers(err)
		}
		a.sent = max(a.sent, last)
	case !a.subs.live() && a.unwatch != nil:
		a.stopWatching()
	}
}

func (a *Actor) stopWatching() {
	if a.unwatch != nil {
		a.unwatch()
		a.unwatch = nil
	}
}

// catchUp hands the live subscribers every event of the page after sent that is in
// the store, in sequence order: those other nodes committed.
func (a *Actor) catchUp() {
	p := a.deps.Peers
	if p == nil || a.unwatch == nil || a.page == nil {
		return
	}
	for {
		frames, through, more, err := p.PageAfter(a.page.TenantID, a.id, a.sent, peerChunk)
		if err != nil {
			a.logPeers(err)
			return
		}
		a.fanoutFrames(frames)
		a.sent = max(a.sent, through)
		if !more {
			return
		}
	}
}

func (a *Actor) logPeers(err error) {
	if a.deps.Log != nil {
		a.deps.Log.Warn("page: reading other nodes' events failed; the next check retries", slog.String("page", a.id), slog.Any("err", err))
	}
}
