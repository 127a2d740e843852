package bus

import (
	"folio/actors/mailbox"
	"folio/actors/model/frame"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
)

// PagePeers implements page.Peers: doorbells of a page ring its actor, which reads
// the events it has not sent from the agent log.
type PagePeers struct {
	Bus   *Bus
	Store *persistence.Store
	Pages *registry.Registry
}

// WatchPage implements page.Peers.
func (p PagePeers) WatchPage(pageID string) func() {
	return p.Bus.Watch(pageSubject(pageID), func(seq uint64) { p.Pages.Tell(pageID, &page.Remote{Seq: seq}) })
}

// PageAfter implements page.Peers: frames exactly as the live stream and the
// Last-Event-ID replay frame them.
func (p PagePeers) PageAfter(tenantID, pageID string, after uint64, limit int) ([]*frame.Frame, uint64, bool, error) {
	chunk, err := mailbox.PageAfter(p.Store, tenantID, pageID, after, limit)
	if err != nil {
		return nil, after, false, err
	}
	frames := make([]*frame.Frame, 0, len(chunk))
	through := after
	for _, s := range chunk {
		through = s.Seq
		if f, ok := page.PublicFrameOfPayload(s.Seq, s.Payload); ok {
			frames = append(frames, f)
		}
	}
	return frames, through, len(chunk) == limit, nil
}

// PageLast implements page.Peers.
func (p PagePeers) PageLast(tenantID, pageID string) (uint64, error) {
	return mailbox.PageLast(p.Store, tenantID, pageID)
}

// WatchTenant is the mailbox's Watch: doorbells of a tenant ring its mailbox.
func WatchTenant(b *Bus, mailboxes *registry.Registry) func(tenantID string) func() {
	return func(tenantID string) func() {
		return b.Watch(tenantSubject(tenantID), func(seq uint64) { mailboxes.Tell(tenantID, &mailbox.Remote{Seq: seq}) })
	}
}
