package page

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/audit"
	"folio/actors/blocks"
	"folio/actors/fault"
	"folio/actors/ids"
	"folio/actors/registry"
	"folio/persistence"
)

// Deps are what every PageActor shares.
type Deps struct {
	Store      *persistence.Store
	Now        func() time.Time
	Limits     Limits
	DefaultTTL time.Duration
	Idle       time.Duration
	// Publish receives the events of each committed change, in commit order per page.
	Publish func([]Event)
	Log     *slog.Logger
}

// Actor owns one page. It handles one message at a time; every command follows
// validate -> build next state and events -> commit -> swap -> reply -> publish.
type Actor struct {
	id     string
	deps   *Deps
	page   *Page // committed state; nil when the page does not exist (yet)
	loaded bool
	idle   *registry.Idle
}

// NewProducer makes page actors for a registry.
func NewProducer(d *Deps) registry.Producer {
	return func(id string) actor.Actor { return &Actor{id: id, deps: d, idle: registry.NewIdle(d.Idle)} }
}

// ErrInternal answers a request whose handling panicked (the actor is then restarted
// by its supervisor and reloads its state from bbolt).
var ErrInternal = errors.New("page: internal error")

// Receive is the actor's single entry point.
func (a *Actor) Receive(ctx actor.Context) {
	if a.idle.Handle(ctx, a.id) {
		return
	}
	a.idle.Touch()
	defer func() {
		if p := recover(); p != nil {
			if ctx.Sender() != nil {
				ctx.Respond(ErrInternal)
			}
			panic(p) // let the supervisor restart us from stored state
		}
	}()
	switch ctx.Message().(type) {
	case *actor.Started:
		a.idle.Start(ctx)
		return
	case *actor.Stopping:
		a.idle.Stop()
		return
	case *actor.Restarting, *actor.Stopped:
		return
	}
	if err := a.ensureLoaded(); err != nil {
		a.reply(ctx, err)
		return
	}
	if err := a.expireIfDue(); err != nil {
		a.reply(ctx, err)
		return
	}
	a.reply(ctx, a.handle(ctx.Message()))
}

func (a *Actor) reply(ctx actor.Context, v any) {
	if ctx.Sender() != nil {
		ctx.Respond(v)
	}
}

func (a *Actor) ensureLoaded() error {
	if a.loaded {
		return nil
	}
	p, err := load(a.deps.Store, a.id)
	if err != nil {
		return fmt.Errorf("page: load %s: %w", a.id, err)
	}
	a.page, a.loaded = p, true
	return nil
}

func (a *Actor) handle(msg any) any {
	switch m := msg.(type) {
	case *Create:
		return a.create(m)
	case *Expire:
		return nil // expireIfDue already did the work
	case *Read:
		if a.page == nil {
			return fault.Missing("page", a.id)
		}
		return &Result{Page: a.page}
	}
	caller, ok := callerOf(msg)
	if !ok {
		return nil
	}
	if a.page == nil || a.page.TenantID != caller.TenantID {
		return fault.Missing("page", a.id)
	}
	switch m := msg.(type) {
	case *Get:
		return &Result{Page: a.page}
	case *Update:
		return a.update(m)
	case *PublishDraft:
		return a.publishDraft(m)
	case *Revoke:
		return a.revoke(m)
	case *Renew:
		return a.renew(m)
	case *AppendBlocks:
		return a.appendBlocks(m)
	case *FixBlock:
		return a.fixBlock(m)
	case *Reorder:
		return a.reorder(m)
	case *Insert:
		return a.insert(m)
	case *Execute:
		return a.execute(m)
	}
	return nil
}

func callerOf(msg any) (Caller, bool) {
	switch m := msg.(type) {
	case *Get:
		return m.Caller, true
	case *Update:
		return m.Caller, true
	case *PublishDraft:
		return m.Caller, true
	case *Revoke:
		return m.Caller, true
	case *Renew:
		return m.Caller, true
	case *AppendBlocks:
		return m.Caller, true
	case *FixBlock:
		return m.Caller, true
	case *Reorder:
		return m.Caller, true
	case *Insert:
		return m.Caller, true
	case *Execute:
		return m.Caller, true
	}
	return Caller{}, false
}

// apply commits next with its audit entries and events, then makes it the state.
func (a *Actor) apply(next *Page, entries []audit.Entry, events []Event) error {
	if err := commit(a.deps.Store, a.page, next, entries, false); err != nil {
		return err
	}
	a.page = next
	a.publish(events)
	return nil
}

func (a *Actor) publish(events []Event) {
	if a.deps.Publish != nil && len(events) > 0 {
		a.deps.Publish(events)
	}
}

func (a *Actor) event(typ string, at time.Time, data map[string]any) Event {
	return Event{Type: typ, PageID: a.id, TenantID: a.page.TenantID, At: at, Data: data}
}

func (a *Actor) create(m *Create) any {
	if a.page != nil {
		return fault.New(fault.Conflict, "page exists", map[string]any{"pageId": a.id})
	}
	now := a.deps.Now().UTC()
	p := &Page{V: schemaV1, ID: a.id, TenantID: m.TenantID, Status: Draft, CreatedBy: m.Agent,
		Livemode: !m.Test, ShortCode: ids.Random(8), Version: 1, CreatedAt: now, UpdatedAt: now,
		Tags: []string{}, Blocks: []blocks.Block{}}
	warnings, err := apply(p, m.Req, true, a.deps.Limits, now)
	if err != nil {
		return err
	}
	entries := []audit.Entry{audit.New("page.created", m.Agent, a.id, now, map[string]any{"title": p.Title, "status": Draft})}
	if m.Publish {
		p.Status, p.PublishedAt = Active, &now
		if p.ExpiresAt == nil {
			exp := now.Add(a.deps.DefaultTTL)
			p.ExpiresAt = &exp
		}
		entries = append(entries, audit.New("page.published", m.Agent, a.id, now, map[string]any{"expires_at": p.ExpiresAt}))
	}
	if err := commit(a.deps.Store, nil, p, entries, !m.Test); err != nil {
		return err
	}
	a.page = p
	if m.Publish {
		a.publish([]Event{a.event("page.published", now, map[string]any{"status": Active})})
	}
	return &Result{Page: p, Warnings: warnings}
}
