package mailbox

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/frame"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
)

// Deps are what every MailboxActor shares.
type Deps struct {
	Store     *persistence.Store
	Now       func() time.Time
	Retention Retention
	Idle      time.Duration
	Log       *slog.Logger
	// Listening, shared with the Outlet, is kept up to date with which mailboxes
	// have subscribers (nil: the Outlet tells every mailbox of every commit).
	Listening *Listening
	// Watch makes the node send Remote to the tenant's mailbox on every doorbell of
	// another node's commit and on every periodic check, until stop is called
	// (transport/bus; nil on a single node).
	Watch func(tenant string) (stop func())
}

// Remote says another node committed events of the tenant up to Seq (0: a periodic
// check, look at the log). The mailbox pushes what its subscribers have not had from
// the log, in sequence order: a commit's sequence number is assigned in its
// transaction, so everything up to the newest committed number is in the log.
type Remote struct{ Seq uint64 }

// Committed tells a tenant's mailbox that these events (with their sequence numbers)
// are durable. Messages from different pages may arrive out of sequence order; the
// mailbox reads any gap from the log, so it pushes every event exactly once, in order.
type Committed struct{ Events []page.Event }

// Subscribe registers a live agent-stream subscriber. The reply *Subscribed carries
// the snapshot: every event with seq <= Snapshot is in the log (replay those), every
// later one reaches the subscriber live, in order, exactly once.
type Subscribe struct{ Sub page.Subscriber }

// Subscribed answers Subscribe.
type Subscribed struct{ Snapshot uint64 }

// Unsubscribe forgets a subscriber (unknown ones are fine).
type Unsubscribe struct{ Sub page.Subscriber }

// Ack acknowledges one event by its stream id or eventId (idempotent); the reply is
// nil or ErrNotFound.
type Ack struct{ Ref string }

// Actor is one tenant's mailbox. pushed is the highest sequence number handed to live
// subscribers (or known committed while nobody listened); it only grows.
type Actor struct {
	tenant  string
	deps    *Deps
	pushed  uint64
	loaded  bool
	unwatch func() // stops hearing of other nodes' commits (Remote)
	subs    map[page.Subscriber]struct{}
	ent     *registry.Entity // idling, the panic answer, start/stop
}

// NewProducer makes mailbox actors (one per tenant id) for a registry.
func NewProducer(d *Deps) registry.Producer {
	return func(id string) actor.Actor {
		a := &Actor{tenant: id, deps: d, subs: map[page.Subscriber]struct{}{}}
		// Never idle nor evicted while streaming; an ended incarnation (passivated,
		// or restarted after a panic) closes its streams, whose clients reconnect and
		// replay.
		a.ent = registry.NewEntity(id, d.Idle, registry.Lifecycle{Live: func() bool { return len(a.subs) > 0 }, Ended: a.closeSubscribers})
		return a
	}
}

// closeSubscribers ends every live stream of this incarnation.
func (a *Actor) closeSubscribers() {
	for s := range a.subs {
		s.Close()
	}
	clear(a.subs)
	a.deps.Listening.set(a.tenant, false)
	a.stopWatching()
}

func (a *Actor) stopWatching() {
	if a.unwatch != nil {
		a.unwatch()
		a.unwatch = nil
	}
}

// Receive is the actor's single entry point, on the entity skeleton (a panicking
// request is answered with an INTERNAL_ERROR fault at once).
func (a *Actor) Receive(ctx actor.Context) { a.ent.Receive(ctx, a.handle) }

func (a *Actor) handle(ctx actor.Context) {
	if !a.loaded {
		last, err := Last(a.deps.Store, a.tenant)
		if err != nil {
			a.reply(ctx, fmt.Errorf("mailbox: load %s: %w", a.tenant, err))
			return
		}
		a.pushed, a.loaded = last, true
	}
	switch m := ctx.Message().(type) {
	case *Committed:
		a.committed(m.Events)
	case *Remote:
		a.remote(m.Seq)
	case *Subscribe:
		if m.Sub != nil && a.ent.Idle.Leaving() {
			a.reply(ctx, registry.ErrRetry) // see page.Subscribe: the successor takes it
			return
		}
		if err := a.subscribe(m.Sub); err != nil {
			a.reply(ctx, err)
			return
		}
		a.reply(ctx, &Subscribed{Snapshot: a.pushed})
	case *Unsubscribe:
		a.unsubscribe(m.Sub)
		a.reply(ctx, nil)
	case *Ack:
		if err := ack(a.deps.Store, a.tenant, m.Ref); err != nil {
			a.reply(ctx, err)
			return
		}
		a.reply(ctx, &Acked{})
	}
}

// Acked answers a successful Ack.
type Acked struct{}

func (a *Actor) reply(ctx actor.Context, v any) {
	if ctx.Sender() != nil {
		ctx.Respond(v)
	}
}

// committed pushes every event after pushed, up to the newest one in events, to the
// live subscribers in sequence order. The common case (events continue right after
// pushed) uses the events at hand; a gap (another page's message is still on its
// way) is filled from the log, which already holds it because the newest sequence
// number in events is committed, and so is everything before it.
func (a *Actor) committed(events []page.Event) {
	var newest uint64
	for i := range events {
		if events[i].Seq > newest {
			newest = events[i].Seq
		}
	}
	if newest <= a.pushed {
		return
	}
	if len(a.subs) == 0 {
		a.pushed = newest
		return
	}
	next := a.pushed + 1
	contiguous := true
	for i := range events {
		s := events[i].Seq
		if s <= a.pushed {
			continue
		}
		if s != next {
			contiguous = false
			break
		}
		next++
	}
	if contiguous {
		for i := range events {
			if events[i].Seq > a.pushed {
				a.push(page.FrameOf(&events[i]))
			}
		}
		return
	}
	a.catchUp(newest)
}

// remote catches the subscribers up with the log after another node's commit.
func (a *Actor) remote(seq uint64) {
	if len(a.subs) == 0 || (seq != 0 && seq <= a.pushed) {
		return
	}
	if seq == 0 {
		last, err := Last(a.deps.Store, a.tenant)
		if err != nil {
			a.logRead(err)
			return
		}
		seq = last
	}
	a.catchUp(seq)
}

func (a *Actor) logRead(err error) {
	if a.deps.Log != nil {
		a.deps.Log.Error("mailbox: read log", slog.String("tenant", a.tenant), slog.Any("err", err))
	}
}

// catchUp pushes the events after pushed up to newest from the log, in order.
func (a *Actor) catchUp(newest uint64) {
	for a.pushed < newest {
		chunk, err := Read(a.deps.Store, a.tenant, a.pushed, newest, 512)
		if err != nil || len(chunk) == 0 {
			if err != nil {
				a.logRead(err)
			}
			a.pushed = newest // retention removed them: subscribers resync on reconnect
			return
		}
		for _, s := range chunk {
			a.push(s.Frame())
		}
	}
}

// subscribe adds sub (nil only asks for the snapshot). While nobody listened, the
// Outlet may not have told this mailbox of every commit (Listening), so pushed first
// catches up with the log; the tenant joins Listening before that read, so every
// commit is either at most the snapshot or told to this mailbox afterwards.
func (a *Actor) subscribe(sub page.Subscriber) error {
	if len(a.subs) == 0 {
		if sub != nil {
			a.deps.Listening.set(a.tenant, true)
			if a.deps.Watch != nil && a.unwatch == nil { // before the read below, as Listening
				a.unwatch = a.deps.Watch(a.tenant)
			}
		}
		last, err := Last(a.deps.Store, a.tenant)
		if err != nil {
			if sub != nil {
				a.deps.Listening.set(a.tenant, false)
				a.stopWatching()
			}
			return fmt.Errorf("mailbox: load %s: %w", a.tenant, err)
		}
		a.pushed = max(a.pushed, last)
	}
	if sub != nil {
		a.subs[sub] = struct{}{}
	}
	return nil
}

// unsubscribe forgets sub; the last one out takes the tenant out of Listening.
func (a *Actor) unsubscribe(sub page.Subscriber) {
	delete(a.subs, sub)
	if len(a.subs) == 0 {
		a.deps.Listening.set(a.tenant, false)
		a.stopWatching()
	}
}

// push hands one frame to every subscriber; one that refuses is dropped.
func (a *Actor) push(f *frame.Frame) {
	for s := range a.subs {
		if !s.Send(f) {
			a.unsubscribe(s)
		}
	}
	if f.Seq > a.pushed {
		a.pushed = f.Seq
	}
}
