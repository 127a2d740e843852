package page

import (
	"folio/actors/model/fault"
	"folio/actors/model/frame"
	"folio/actors/registry"
)

// Live subscribers (SSE and WebSocket clients of the page and comment streams) are
// kept by the page actor itself: fanout hands every committed event to each of them
// on the actor's goroutine, in commit order. Each event is encoded ONCE into a Frame
// whose bytes every subscriber shares; Send never blocks (a subscriber that cannot
// keep up answers false and is dropped; its client reconnects).

// Subscriber is one live client at the boundary (implemented in transport/stream).
// Send must not block: it queues the frame or reports false when the subscriber is
// gone or too far behind, after which the page forgets it. Close ends the client's
// stream (idempotent, non-blocking): an actor that restarts or stops closes its
// subscribers, whose clients reconnect (agents replay), instead of leaving them
// attached to an incarnation that will never send again. End writes final (a
// `reset` saying why) and then closes: for a client whose access ended (the page
// turned private or was revoked, its key was deleted), which must not reconnect
// blindly and must receive nothing more.
type Subscriber interface {
	Send(f *frame.Frame) bool
	Close()
	End(final *frame.Frame)
}

// AccessEnded is the last frame of a stream whose access ended: reason is one of
// "page_revoked", "access_changed", "credential_revoked".
func AccessEnded(reason string) *frame.Frame {
	type why struct {
		Reason string `json:"reason"`
	}
	return frame.Control("reset", struct { // keys in byte order, as they have always been written
		Data why    `json:"data"`
		Type string `json:"type"`
	}{why{reason}, "reset"})
}

// Viewer is whoever uses a route open to people holding the page link (streams,
// comment and file reads, uploads, views): TenantID/Agent of the API key presented,
// empty when none.
type Viewer struct {
	TenantID string
	Agent    string
	KeyID    string // the API key presented (its deletion ends what it opened)
	Key      *KeyRef

	// A signed-in person (a session): their verified e-mail address (lower-case),
	// how it was proven (MethodMagicLink, MethodOAuth), the session (its end ends
	// what it opened) and the tenants they are a member of.
	Person    string
	Method    string
	SessionID string
	Tenants   []string
}

// owns tells whether v holds an API key of the page's tenant.
func (a *Actor) owns(v Viewer) bool { return v.TenantID != "" && v.TenantID == a.page.TenantID }

// member tells whether v is a signed-in member of the page's tenant.
func (a *Actor) member(v Viewer) bool {
	if v.Person == "" {
		return false
	}
	for _, t := range v.Tenants {
		if t == a.page.TenantID {
			return true
		}
	}
	return false
}

// visible applies the page's access policy to a reader (docs/behaviour.md): the
// owner's key and the tenant's signed-in members read everything; otherwise drafts
// and revoked pages do not exist (404), and an `authenticated` page needs a person
// whose verified address its allowed_identities match (no credential: 401; a
// person it does not allow: 403; another tenant's key: 404, never 403).
func (a *Actor) visible(v Viewer) error {
	if a.owns(v) || a.member(v) {
		return nil
	}
	p := a.page
	if p.Status == Draft || p.Status == Revoked {
		return fault.Missing("page", a.id)
	}
	if p.Access.Mode == "authenticated" {
		switch {
		case v.Person != "" && p.Access.Allows(v.Person):
			return nil
		case v.Person != "":
			return fault.New(fault.Forbidden, "this page is shared with other people: "+v.Person+" may not open it",
				map[string]any{"identity": v.Person, "reason": "not_allowed"})
		case v.TenantID == "":
			return fault.New(fault.Unauthorized, "this page requires signing in: open it in a browser, or send a session token or an API key of the page's tenant", nil)
		}
		return fault.Missing("page", a.id)
	}
	return nil
}

// Subscribe registers a live subscriber for the page's events (Comments: comment
// events only). It answers *Subscribed or an access error. Watching: the page
// stream of someone who has the page open, counted in its presence (presence.go);
// Presence: the subscriber also receives `presence` frames.
type Subscribe struct {
	Viewer
	Sub      Subscriber
	Comments bool
	Watching bool
	Presence bool
}

// Unsubscribe forgets a subscriber whose client went away (unknown ones are fine).
type Unsubscribe struct{ Sub Subscriber }

// Subscribed answers Subscribe: from now on every committed event reaches the
// subscriber, in commit order.
type Subscribed struct {
	PageID   string
	TenantID string
	Status   string
}

func (m *Subscribe) public()   {}
func (m *Unsubscribe) public() {}

func (m *Subscribe) run(a *Actor) any {
	if a.ent.Idle.Leaving() {
		// This incarnation has asked to be passivated and may stop after any message:
		// a subscription taken now would close with it. The registry asks again, and
		// the successor (or this actor, told to stay) takes it.
		return registry.ErrRetry
	}
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	if m.Sub == nil {
		return fault.New(fault.Invalid, "no subscriber", nil)
	}
	a.subs.add(subscription{sub: m.Sub, comments: m.Comments, viewer: m.Viewer, watching: m.Watching, presence: m.Presence})
	return &Subscribed{PageID: a.id, TenantID: a.page.TenantID, Status: a.page.Status}
}

func (m *Unsubscribe) run(a *Actor) any {
	a.subs.remove(m.Sub)
	return nil
}

// subscribers is the page actor's set of live subscribers (touched only by the
// actor's goroutine). Order does not matter; removal is O(1).
type subscribers struct {
	list []subscription
	at   map[Subscriber]int
	// moved: a watching subscription came or went since the page last looked
	// (presence.go), so its presence frame is owed.
	moved bool
}

type subscription struct {
	sub      Subscriber
	comments bool
	viewer   Viewer // who subscribed: access is checked again whenever it may have changed
	watching bool   // counted in the page's presence
	presence bool   // receives presence frames
}

func (s *subscribers) live() bool { return len(s.list) > 0 }

// closeAll ends every subscriber's stream and forgets them all.
func (s *subscribers) closeAll() {
	for _, x := range s.list {
		x.sub.Close()
	}
	s.list, s.at = nil, nil
}

func (s *subscribers) add(x subscription) {
	if s.at == nil {
		s.at = map[Subscriber]int{}
	}
	s.moved = s.moved || x.watching
	if i, ok := s.at[x.sub]; ok {
		s.moved = s.moved || s.list[i].watching
		s.list[i] = x
		return
	}
	s.at[x.sub] = len(s.list)
	s.list = append(s.list, x)
}

func (s *subscribers) remove(sub Subscriber) {
	i, ok := s.at[sub]
	if !ok {
		return
	}
	s.moved = s.moved || s.list[i].watching
	last := len(s.list) - 1
	if i != last {
		s.list[i] = s.list[last]
		s.at[s.list[i].sub] = i
	}
	s.list[last] = subscription{}
	s.list = s.list[:last]
	delete(s.at, sub)
}

// recheck applies the page's access policy again to every live subscriber after a
// change of access mode or status (a page turned authenticated, a revoke): whoever
// may no longer read the page gets a final reset naming why and is dropped, before
// the change's own events go out. Access is checked when data is used, not only
// when the stream was opened.
func (a *Actor) recheck(reason string) {
	var ended []Subscriber
	for _, s := range a.subs.list {
		if a.visible(s.viewer) != nil {
			s.sub.End(AccessEnded(reason))
			ended = append(ended, s.sub)
		}
	}
	for _, s := range ended {
		a.subs.remove(s)
	}
}

// fanout hands committed events to the page's live subscribers: each event is
// encoded once, then offered to every subscriber without blocking; one that refuses
// is dropped at once, so a slow client never delays the page or anyone else.
func (a *Actor) fanout(events []Event) {
	for i := range events {
		a.sent = max(a.sent, events[i].Seq)
	}
	if !a.subs.live() {
		return
	}
	frames := make([]*frame.Frame, 0, len(events))
	for i := range events {
		if publicEvent(events[i].Type) {
			frames = append(frames, publicFrameOf(&events[i]))
		}
	}
	a.fanoutFrames(frames)
}

// fanoutFrames offers public event frames, in order, to the live subscribers (comment
// subscribers get comment frames only).
func (a *Actor) fanoutFrames(frames []*frame.Frame) {
	var dropped []Subscriber
	for _, f := range frames {
		for _, s := range a.subs.list {
			if s.comments && !f.Comment {
				continue
			}
			if !s.sub.Send(f) {
				dropped = append(dropped, s.sub)
			}
		}
		for _, d := range dropped {
			a.subs.remove(d)
		}
		dropped = dropped[:0]
	}
}
