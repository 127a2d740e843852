package page

import (
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/frame"
)

// Presence is who has the page open on this node right now, from the page actor's
// own live subscribers: every page-stream subscriber (SSE or WebSocket, not the
// comment stream, not a `wait`) counts. A signed-in person counts by the verified
// address of their session, an API key by its agent ("agent:<key name>"), anyone
// else as anonymous; a name typed into the page never appears. Nothing is stored:
// presence is what the actor holds in memory, and it is sent only as a control
// frame (no stream id, never replayed) to the subscribers that asked for it
// (?presence=1), who passed the page's access check to subscribe.
//
// A join or leave makes a presence frame owed; owed frames go out at most once per
// Deps.PresenceEvery (default DefaultPresenceEvery) per page, each carrying the
// state at the time it is sent, so a crowd arriving costs one frame a period, not
// one per arrival.

// DefaultPresenceEvery is the shortest interval between two presence frames of a page.
const DefaultPresenceEvery = time.Second

// presenceNames bounds how many people (and how many agents) one presence frame
// names; the rest are counted in `others`.
const presenceNames = 20

// PresenceData is the data of a `presence` frame.
type PresenceData struct {
	People    []string `json:"people"`    // verified addresses of signed-in viewers, sorted, each once
	Agents    []string `json:"agents"`    // agents of the API keys watching, sorted, each once
	Others    int      `json:"others"`    // people and agents beyond the presenceNames named
	Anonymous int      `json:"anonymous"` // streams open without a credential
}

// presenceDue is the timer's message to the actor: an owed presence frame may go out.
type presenceDue struct{}

// presence is the actor's presence pacing (touched only by its goroutine).
type presence struct {
	last  time.Time   // when the last presence frame was sent
	owed  bool        // the set of watchers changed since then
	timer *time.Timer // armed while an owed frame waits for its period
}

// presenceEvery is the configured minimum interval between presence frames.
func (d *Deps) presenceEvery() time.Duration {
	if d.PresenceEvery <= 0 {
		return DefaultPresenceEvery
	}
	return d.PresenceEvery
}

// pacePresence sends an owed presence frame now when the period since the last one
// has passed, else arms one timer for the end of the period (never more than one).
func (a *Actor) pacePresence(ctx actor.Context) {
	p := &a.pres
	if !p.owed || p.timer != nil {
		return
	}
	wait := a.deps.presenceEvery() - time.Since(p.last)
	if wait <= 0 {
		a.sendPresence()
		return
	}
	self, root := ctx.Self(), ctx.ActorSystem().Root
	p.timer = time.AfterFunc(wait, func() { root.Send(self, presenceDue{}) })
}

// presenceFired handles the timer's message.
func (a *Actor) presenceFired() {
	a.pres.timer = nil
	if a.pres.owed {
		a.sendPresence()
	}
}

// stopPresence disarms the timer of an ending incarnation.
func (a *Actor) stopPresence() {
	if a.pres.timer != nil {
		a.pres.timer.Stop()
		a.pres.timer = nil
	}
}

// sendPresence encodes the current presence once and offers it to every subscriber
// that asked for it; one that refuses is dropped (which owes the others a frame in
// the next period).
func (a *Actor) sendPresence() {
	a.pres.owed, a.pres.last = false, time.Now()
	f := frame.Control("presence", struct {
		Type   string       `json:"type"`
		PageID string       `json:"pageId"`
		Data   PresenceData `json:"data"`
	}{"presence", a.id, a.subs.presence()})
	var dropped []Subscriber
	for _, s := range a.subs.list {
		if s.presence && !s.sub.Send(f) {
			dropped = append(dropped, s.sub)
		}
	}
	for _, d := range dropped {
		a.subs.remove(d)
	}
}

// presence is who watches the page now.
func (s *subscribers) presence() PresenceData {
	var people, agents []string
	d := PresenceData{People: []string{}, Agents: []string{}}
	for _, x := range s.list {
		switch v := x.viewer; {
		case !x.watching:
		case v.Person != "":
			people = append(people, v.Person)
		case v.TenantID != "":
			agents = append(agents, v.Agent)
		default:
			d.Anonymous++
		}
	}
	slices.Sort(people)
	slices.Sort(agents)
	people, agents = slices.Compact(people), slices.Compact(agents)
	for _, names := range []struct {
		all []string
		to  *[]string
	}{{people, &d.People}, {agents, &d.Agents}} {
		n := min(len(names.all), presenceNames)
		*names.to = append(*names.to, names.all[:n]...)
		d.Others += len(names.all) - n
	}
	return d
}
