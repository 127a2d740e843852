package page

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/audit"
	"folio/actors/model/fault"
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
	// IdleDone, when shorter than Idle, is the quiet period of a page no action is
	// left to take on (completed, revoked, expired): it is read or watched now and
	// then and reloads from storage cheaply, so its memory goes sooner.
	IdleDone time.Duration
	// Outlets consume the events of every committed change (see Outlet).
	Outlets []Outlet
	// Peers tells of commits on other nodes sharing the store (remote.go); nil on a
	// single node.
	Peers Peers
	Log   *slog.Logger
	// Files are the upload limits (zero: DefaultFileLimits).
	Files FileLimits
	// StorageQuota is a tenant's plan storage quota in bytes (0: unlimited); nil
	// when quotas are not enforced (storage.go).
	StorageQuota func(tenantID string) int64
	// Blobs holds the files' bytes; a page removes those of the files it drops at
	// the end of their retention (nil: the orphan sweep removes them later).
	Blobs *persistence.Blobs
	// OpenComments is how many comments a page takes from people who are not its
	// own (comments.go; 0: DefaultOpenComments).
	OpenComments int
	// PresenceEvery is the shortest interval between two presence frames of a page
	// (presence.go; 0: DefaultPresenceEvery).
	PresenceEvery time.Duration
	// SeenPerPage is how many signed-in people's last seen versions a page keeps
	// (seen.go; 0: DefaultSeenPerPage).
	SeenPerPage int
}

// storageQuota is tenant's storage quota (0: unlimited or not enforced).
func (d *Deps) storageQuota(tenant string) int64 {
	if d.StorageQuota == nil {
		return 0
	}
	return d.StorageQuota(tenant)
}

func (d *Deps) files() FileLimits {
	f := d.Files
	if f.MaxBytes <= 0 {
		f.MaxBytes = DefaultFileLimits.MaxBytes
	}
	if f.Budget <= 0 {
		f.Budget = DefaultFileLimits.Budget
	}
	if f.UploadTTL <= 0 {
		f.UploadTTL = DefaultFileLimits.UploadTTL
	}
	if f.Retention <= 0 {
		f.Retention = DefaultFileLimits.Retention
	}
	return f
}

// Actor owns one page. It handles one message at a time; every command follows
// validate -> build next state and events -> commit -> swap -> reply -> publish.
type Actor struct {
	id     string
	deps   *Deps
	page   *Page  // committed state; nil when the page does not exist (yet)
	rev    uint64 // the stored revision page was read or committed at (store.go)
	loaded bool
	// sent is the newest event sequence number handed to subscribers or known
	// committed; unwatch stops hearing of other nodes' commits (remote.go).
	sent    uint64
	unwatch func()
	ent     *registry.Entity // idling, the panic answer, start/stop
	subs    subscribers      // live stream clients (subscribers.go)
	hashed  contentHashCache // the committed page's content hash (version.go)
	pres    presence         // pacing of presence frames (presence.go)
}

// NewProducer makes page actors for a registry.
func NewProducer(d *Deps) registry.Producer {
	return func(id string) actor.Actor { return newActor(id, d) }
}

// newActor runs on the entity skeleton: a page with live subscribers never
// passivates and is never evicted, and an ended incarnation closes their streams.
func newActor(id string, d *Deps) *Actor {
	a := &Actor{id: id, deps: d}
	a.ent = registry.NewEntity(id, d.Idle, registry.Lifecycle{Live: a.subs.live, Ended: a.ended})
	return a
}

// Receive is the actor's single entry point: the skeleton answers a panicking
// command with an INTERNAL_ERROR fault, and the supervisor then restarts the actor,
// which reloads its state from the store.
func (a *Actor) Receive(ctx actor.Context) { a.ent.Receive(ctx, a.handleMessage) }

// ended lets go of what this incarnation held: a fresh one (after a restart) or a
// successor knows none of its subscribers, who would never hear from it again.
func (a *Actor) ended() {
	a.subs.closeAll()
	a.stopWatching()
	a.stopPresence()
}

func (a *Actor) handleMessage(ctx actor.Context) {
	// Peers are watched, and the start point read, before the answer goes out: a
	// subscriber told it is subscribed has every event committed on any node after
	// that (one committed elsewhere between the answer and the read would count as
	// before the subscription, and never come).
	if _, ok := ctx.Message().(presenceDue); ok {
		a.presenceFired()
		a.watchPeers()
	} else {
		res := a.decide(ctx.Message())
		a.watchPeers()
		a.reply(ctx, res)
	}
	if a.subs.moved { // whoever joined or left is told within a presence period
		a.subs.moved, a.pres.owed = false, true
	}
	a.pacePresence(ctx)
	a.ent.Idle.SetPeriod(a.idlePeriod())
}

// maxStale bounds how often one message is decided again because another node
// committed the page in between (each retry follows a commit elsewhere).
const maxStale = 8

// decide handles msg on the stored state. When its commit finds the page committed
// elsewhere since it was read (errStale: another node holds the same page), the actor
// reloads it and decides again, so a second decision on one page is a 409 whichever
// node takes it.
func (a *Actor) decide(msg any) any {
	a.assumeNew(msg)
	for attempt := 1; ; attempt++ {
		res := a.decideOnce(msg)
		if err, ok := res.(error); !ok || !errors.Is(err, errStale) {
			return res
		}
		a.loaded = false
		if attempt == maxStale {
			return fault.New(fault.Unavailable, "the page is being changed elsewhere; try again", map[string]any{"pageId": a.id})
		}
	}
}

// assumeNew lets a fresh actor create its page without reading the store first: a
// page is created under an id minted for it (ids.New: 95 random bits), so nothing is
// stored under it. The commit still checks (write: a stored page or revision under
// the id makes it stale), and decide's retry then loads what is there: a 409.
func (a *Actor) assumeNew(msg any) {
	if _, ok := msg.(*Create); ok && !a.loaded && a.page == nil {
		a.loaded = true
	}
}

func (a *Actor) decideOnce(msg any) any {
	if err := a.checkCurrent(); err != nil {
		return err
	}
	if err := a.ensureLoaded(); err != nil {
		return err
	}
	if err := a.fireDue(); err != nil { // deadlines due before expiry (deadline_fire.go)
		return err
	}
	if err := a.expireIfDue(); err != nil {
		return err
	}
	return a.handle(msg)
}

// idlePeriod is how long the page may stay quiet before it passivates: IdleDone once
// no action is left to take on it (a renewed expired page gets Idle back).
func (a *Actor) idlePeriod() time.Duration {
	if a.page != nil && a.deps.IdleDone > 0 && a.deps.IdleDone < a.deps.Idle {
		switch a.page.Status {
		case Completed, Revoked, Expired:
			return a.deps.IdleDone
		}
	}
	return a.deps.Idle
}

func (a *Actor) reply(ctx actor.Context, v any) {
	if ctx.Sender() != nil {
		ctx.Respond(v)
	}
}

// checkCurrent drops the page from memory when the store is shared and another node
// has committed it since (one read of its revision), so every message, reads
// included, is answered from the stored state.
func (a *Actor) checkCurrent() error {
	if !a.loaded || a.deps.Store == nil || !a.deps.Store.Shared() {
		return nil
	}
	rev, err := revision(a.deps.Store, a.id)
	if err != nil {
		return fmt.Errorf("page: revision of %s: %w", a.id, err)
	}
	if rev != a.rev {
		a.loaded = false
	}
	return nil
}

func (a *Actor) ensureLoaded() error {
	if a.loaded {
		return nil
	}
	p, rev, err := load(a.deps.Store, a.id)
	if err != nil {
		return fmt.Errorf("page: load %s: %w", a.id, err)
	}
	prev := a.page
	a.page, a.rev, a.loaded = p, rev, true
	if prev != nil && p != nil { // reloaded after a commit elsewhere
		a.recheckChanged(prev, p)
		a.catchUp()
	}
	return nil
}

func (a *Actor) handle(msg any) any {
	switch m := msg.(type) {
	case *Create:
		return a.create(m)
	case *Expire, *Due:
		return nil // expireIfDue and fireDue already did the work
	case *DropFiles:
		return a.dropFiles()
	case *Read:
		if a.page == nil {
			return fault.Missing("page", a.id)
		}
		return &Result{Page: a.page}
	case publicCommand:
		if a.page == nil {
			return fault.Missing("page", a.id)
		}
		return m.run(a)
	case command:
		if a.page == nil || a.page.TenantID != m.caller().TenantID {
			return fault.Missing("page", a.id)
		}
		return m.run(a)
	}
	return nil
}

// command is a message of the page's owner (an API key of the page's tenant). Each
// command type implements run in the file of the behaviour it belongs to; the actor
// has already loaded the page, expired it if due, and checked the tenant.
type command interface {
	caller() Caller
	run(a *Actor) any
}

// publicCommand is a message anyone holding the page link may send (viewers,
// commenters on public pages); run applies the page's access rules itself.
type publicCommand interface {
	public()
	run(a *Actor) any
}

func (c Caller) caller() Caller { return c }

func (m *Get) run(a *Actor) any          { return &Result{Page: a.page} }
func (m *Update) run(a *Actor) any       { return a.update(m) }
func (m *PublishDraft) run(a *Actor) any { return a.publishDraft(m) }
func (m *Revoke) run(a *Actor) any       { return a.revoke(m) }
func (m *Renew) run(a *Actor) any        { return a.renew(m) }
func (m *AppendBlocks) run(a *Actor) any { return a.appendBlocks(m) }
func (m *FixBlock) run(a *Actor) any     { return a.fixBlock(m) }
func (m *Reorder) run(a *Actor) any      { return a.reorder(m) }
func (m *Insert) run(a *Actor) any       { return a.insert(m) }
func (m *Execute) run(a *Actor) any      { return a.execute(m) }

// apply commits next with its audit entries and events (and every outlet's rows for
// those events), then makes it the state and hands the events on.
func (a *Actor) apply(next *Page, entries []audit.Entry, events []Event) error {
	return a.applyWith(next, entries, events, nil)
}

// applyWith is apply with extra writes of the caller's in the same transaction.
func (a *Actor) applyWith(next *Page, entries []audit.Entry, events []Event, extra func(*persistence.Tx) error) error {
	if err := commit(a.deps, a.rev, a.page, next, entries, events, extra); err != nil {
		return err
	}
	prev := a.page
	a.page = next
	a.rev++
	a.recheckChanged(prev, next)
	a.publish(next, events)
	return nil
}

// recheckChanged re-checks live subscribers' access when the page went from prev to
// next in a way that can end it (revoked, access or status changed).
func (a *Actor) recheckChanged(prev, next *Page) {
	if !a.subs.live() {
		return
	}
	switch {
	case next.Status != prev.Status && next.Status == Revoked:
		a.recheck("page_revoked")
	case !sameAccess(next.Access, prev.Access) || next.Status != prev.Status:
		a.recheck("access_changed")
	}
}

// publish runs after a successful commit: the outlets learn of the events (in
// commit order for this page), then live subscribers get them.
func (a *Actor) publish(p *Page, events []Event) {
	if len(events) == 0 {
		return
	}
	for _, o := range a.deps.Outlets {
		o.Committed(p, events)
	}
	a.fanout(events)
}

func (a *Actor) create(m *Create) any {
	if a.page != nil {
		return fault.New(fault.Conflict, "page exists", map[string]any{"pageId": a.id})
	}
	n := m.Prepared
	if n == nil || n.Page.ID != a.id || n.Page.TenantID != m.TenantID {
		return fmt.Errorf("page: create %s without a page prepared for it", a.id)
	}
	if err := commit(a.deps, a.rev, nil, n.Page, n.entries, n.events, nil); err != nil {
		return err
	}
	a.page = n.Page
	a.rev++
	a.publish(n.Page, n.events)
	return &Result{Page: n.Page, Warnings: n.Warnings}
}
