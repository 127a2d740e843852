package inbox

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/persistence"
)

// Deps are what an InboxActor needs.
type Deps struct {
	Store *persistence.Store
	Idle  time.Duration
}

// Actor is one tenant's inbox: it serialises the reading-state changes of the
// tenant's entries (read, star, archive). Page changes reach the same entries
// through the Outlet, inside page commits; both sides read-modify-write in one bbolt
// transaction, so neither overwrites the other. It keeps nothing in memory.
type Actor struct {
	tenant string
	deps   *Deps
	ent    *registry.Entity // idling, the panic answer, start/stop
}

// NewProducer makes inbox actors (one per tenant id) for a registry.
func NewProducer(d *Deps) registry.Producer {
	return func(id string) actor.Actor {
		return &Actor{tenant: id, deps: d, ent: registry.NewEntity(id, d.Idle, registry.Lifecycle{})}
	}
}

// MarkRead is PATCH /v1/inbox/:id/read: unread -> read. Reading a read or an
// archived entry changes nothing.
type MarkRead struct{ EntryID string }

// Star is PATCH /v1/inbox/:id/star: sets starred, reading state unchanged.
type Star struct {
	EntryID string
	Starred bool
}

// Archive is DELETE /v1/inbox/:id: unread or read -> archived (soft delete);
// archiving an archived entry changes nothing.
type Archive struct{ EntryID string }

// Changed answers a reading-state command that was taken (whether or not it
// changed anything).
type Changed struct{}

// Receive answers every command with *Changed or a *fault.Error (404 for an entry
// that is unknown or another tenant's; an INTERNAL_ERROR fault, at once, for one
// whose handling panicked, after which the supervisor restarts the actor).
func (a *Actor) Receive(ctx actor.Context) { a.ent.Receive(ctx, a.handle) }

func (a *Actor) handle(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *MarkRead:
		ctx.Respond(a.change(m.EntryID, func(e *Entry) {
			if e.Status == Unread {
				e.Status = Read
			}
		}))
	case *Star:
		ctx.Respond(a.change(m.EntryID, func(e *Entry) { e.Starred = m.Starred }))
	case *Archive:
		ctx.Respond(a.change(m.EntryID, func(e *Entry) { e.Status = Archived }))
	}
}

// change applies fn to the entry's reading state.
func (a *Actor) change(id string, fn func(*Entry)) any {
	if err := changeReading(a.deps.Store, a.tenant, id, fn); err != nil {
		return err
	}
	return &Changed{}
}

// changeReading applies fn (which may only touch Status and Starred) to a tenant's
// entry. The 404 check happens before the transaction; inside it the entry is read
// again, so page fields the outlet wrote meanwhile are kept. No change, no write.
func changeReading(store *persistence.Store, tenantID, id string, fn func(*Entry)) error {
	cur, err := Get(store, tenantID, id)
	if err != nil {
		return err
	}
	if cur == nil {
		return fault.Missing("inbox entry", id)
	}
	probe := *cur
	fn(&probe)
	if probe.Status == cur.Status && probe.Starred == cur.Starred {
		return nil
	}
	return store.Update(func(tx *persistence.Tx) error {
		old := loadEntry(tx, id)
		if old == nil {
			return fault.Missing("inbox entry", id)
		}
		next := *old
		fn(&next)
		if err := putEntry(tx, &next); err != nil {
			return err
		}
		return reindex(tx, old, &next)
	})
}
