package callback

import (
	"container/heap"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/fault"
	"folio/actors/model/webhook"
	"folio/actors/registry"
	"folio/actors/slack"
	"folio/persistence"
)

// Item is a delivery the dispatcher should attempt at Due.
type Item struct {
	ID   string
	Lane string
	Due  time.Time
}

// asker reaches page actors (the pages registry).
type asker interface {
	Ask(ctx context.Context, id string, msg any) (any, error)
}

// Config is what the dispatcher needs.
type Config struct {
	Store *persistence.Store
	Pages asker
	Clock Clock
	// AllowPrivate lets deliveries reach private and loopback addresses.
	AllowPrivate bool
	// Resolver resolves target names at dial time (default: the system's).
	Resolver webhook.Resolver
	// Timeout bounds one attempt (default 30 s, the specification's).
	Timeout time.Duration
	// PerLane caps the attempts in flight to one endpoint (default 64), so a slow or
	// dead endpoint holds at most that many and never delays the others.
	PerLane int
	Mailer  Mailer
	// Slack posts slack notifications whose target is a channel id (slack.go).
	Slack *slack.Client
	// LinkURL is the address of a decision link's token, PageURL a page's (for a
	// link past its expiry); mails carry "/a/<token>" and "/p/<id>" without them.
	LinkURL, PageURL func(string) string
	Log              *slog.Logger
	// Grace is how long Stop lets attempts in flight finish before cancelling them
	// (default 5 s); a cancelled attempt is sent again after the next start.
	Grace time.Duration
	// Observe, when set, is told of every recorded attempt (metrics, tests).
	Observe func(d *Delivery, a Attempt)
	// Sweep is how often, on a store shared with other nodes, the due rows are read
	// again, so deliveries another node committed or left behind are sent (lease.go;
	// default 5 s).
	Sweep time.Duration
}

// Dispatcher is the actor that sends deliveries. It holds the pending deliveries in
// memory (loaded from the due index at start, then fed by the Outbox), wakes for
// the earliest due time, and runs each attempt on its own goroutine, which records
// the attempt in bbolt and reports back with a message: the actor never waits on
// the network or the disk. A delivery is in at most one of: waiting (heap), ready
// (its lane's queue), in flight, so it never has two attempts at once.
type Dispatcher struct {
	cfg    Config
	system *actor.ActorSystem
	pid    *actor.PID
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	work   sync.WaitGroup
	once   sync.Once
	// stopping stops new attempts from starting (read by the actor, set by Stop).
	stopping atomic.Bool
	// node names this dispatcher's leases; empty on a store of its own (lease.go).
	node      string
	sweepDone chan struct{}

	// Owned by the actor goroutine.
	waiting dueHeap
	entries map[string]*entry
	lanes   map[string]*laneState
	ready   map[string]bool // lanes with ready entries
	timer   Timer
	timerAt time.Time
	gen     uint64

	// Published after every message for metrics (read from any goroutine).
	statPending, statReady, statInFlight atomic.Int64
}

// Stats are the dispatcher's queue figures: deliveries it holds (waiting, ready or
// in flight), those due but not yet started (the due backlog), and attempts in flight.
func (d *Dispatcher) Stats() (pending, ready, inFlight int64) {
	return d.statPending.Load(), d.statReady.Load(), d.statInFlight.Load()
}

func (d *Dispatcher) publishStats() {
	var ready, inflight int
	for _, l := range d.lanes {
		ready += len(l.queue)
		inflight += l.inflight
	}
	d.statPending.Store(int64(len(d.entries)))
	d.statReady.Store(int64(ready))
	d.statInFlight.Store(int64(inflight))
}

type entryState uint8

const (
	stateWaiting entryState = iota
	stateReady
	stateInFlight
)

type entry struct {
	id, lane string
	due      time.Time
	manual   bool
	state    entryState
	index    int // in waiting, while stateWaiting
	// again is an enqueue that arrived while an attempt was in flight (a delivery
	// released from waiting while a stale attempt of it was finding it still
	// waiting): the delivery is looked at again at that time instead of forgotten.
	again *time.Time
}

type laneState struct {
	inflight int
	queue    []*entry
}

// Messages of the dispatcher.
type (
	enqueue     struct{ items []Item }
	wake        struct{ gen uint64 }
	attemptDone struct {
		id, lane string
		next     *time.Time
	}
	retryNow struct{ id, lane string }
	begin    struct{}
	halt     struct{} // Stop: answered once no attempt can start any more
)

var errInFlight = errors.New("callback: an attempt is in flight")

// A manual retry of a delivery whose attempt is in flight waits up to
// retryInFlightWait for it to finish before it is refused.
const (
	retryInFlightWait  = time.Second
	retryInFlightPause = 20 * time.Millisecond
)

// Start loads the pending deliveries from the store (so they are armed before the
// node reports healthy), re-sends reply instructions that were received but not
// yet applied, and spawns the dispatcher.
func Start(system *actor.ActorSystem, cfg Config) (*Dispatcher, error) {
	if cfg.Clock == nil {
		cfg.Clock = RealClock(nil)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.PerLane <= 0 {
		cfg.PerLane = 64
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 5 * time.Second
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = 5 * time.Second
	}
	d := &Dispatcher{cfg: cfg, system: system, entries: map[string]*entry{}, lanes: map[string]*laneState{}, ready: map[string]bool{},
		sweepDone: make(chan struct{})}
	if cfg.Store.Shared() {
		d.node = newNodeID()
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.client = newClient(cfg)
	if cfg.Slack != nil && cfg.Slack.HTTP == nil {
		cfg.Slack.HTTP = d.client // Slack is reached through the SSRF guard too
	}
	rows, err := allDue(cfg.Store)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		d.schedule(&entry{id: r.id, lane: r.lane, due: r.at})
	}
	replies, err := unappliedReplies(cfg.Store)
	if err != nil {
		return nil, err
	}
	props := actor.PropsFromProducer(func() actor.Actor { return d })
	if d.pid, err = system.Root.SpawnNamed(props, "callback-dispatcher"); err != nil {
		d.pid = system.Root.Spawn(props)
	}
	// Started may run before SpawnNamed returns, so the first pump waits for begin,
	// which is sent once d.pid is set.
	system.Root.Send(d.pid, begin{})
	if d.node != "" {
		go registry.Every(cfg.Sweep, d.sweepDone, d.sweep)
	}
	for _, id := range replies {
		d.work.Add(1)
		go func() {
			defer d.work.Done()
			if rec, err := Load(cfg.Store, id); err == nil && rec != nil {
				d.applyReply(rec)
			}
		}()
	}
	return d, nil
}

// Enqueue hands new deliveries to the dispatcher (never blocks).
func (d *Dispatcher) Enqueue(items []Item) {
	d.system.Root.Send(d.pid, &enqueue{items: items})
}

// Retry queues an immediate attempt of a tenant's delivery (manual redelivery): the
// same event id and body bytes as every other attempt. 404 for another tenant's or
// an unknown delivery, 409 while an attempt is in flight or for a delivery never sent
// (a test page's notification). A nil Dispatcher serves no deliveries (404).
func (d *Dispatcher) Retry(tenantID, id string) (*Delivery, error) {
	if d == nil { // a node whose dispatcher did not start
		return nil, fault.New(fault.NotFound, "deliveries are not served by this node", nil)
	}
	if id == "" || len(id) > 128 { // no delivery id is longer: not one to look up
		return nil, fault.Missing("delivery", id)
	}
	rec, err := Load(d.cfg.Store, id)
	if err != nil {
		return nil, err
	}
	if rec == nil || rec.TenantID != tenantID {
		return nil, fault.Missing("delivery", id)
	}
	if rec.Status == StatusSkipped {
		return nil, fault.New(fault.Conflict, "this notification belongs to a page made with an sk_test_ key and is never sent", map[string]any{"status": rec.Status})
	}
	if rec.Waiting() {
		return nil, fault.New(fault.Conflict, "this delivery waits for an earlier event of the page to the same target; it is sent once that one has been delivered or given up",
			map[string]any{"status": "waiting", "after": rec.After})
	}
	// An attempt that has just recorded its outcome is still in flight for the actor
	// until its completion message arrives; give it a moment before saying 409, which
	// is for attempts that are really still running.
	for wait := time.Duration(0); ; wait += retryInFlightPause {
		res, err := d.system.Root.RequestFuture(d.pid, &retryNow{id: id, lane: rec.Lane}, 10*time.Second).Result()
		if err != nil {
			return nil, err
		}
		if !errors.Is(asError(res), errInFlight) {
			return rec, nil
		}
		if wait >= retryInFlightWait {
			return nil, fault.New(fault.Conflict, "an attempt of this delivery is in flight; retry when it has finished", map[string]any{"status": "in_flight"})
		}
		time.Sleep(retryInFlightPause)
	}
}

func asError(v any) error {
	e, _ := v.(error)
	return e
}

// Stop starts no new attempt, lets the attempts in flight finish for up to Grace,
// then cancels the rest (they record nothing: their deliveries stay pending and are
// sent again after the next start), waits for their goroutines and stops the actor.
// Call it before the store closes.
func (d *Dispatcher) Stop() {
	d.once.Do(func() {
		d.stopping.Store(true)
		close(d.sweepDone)
		// Once the actor has seen halt it starts no attempt (pump checks stopping),
		// so no work.Add can race the Wait below.
		_, _ = d.system.Root.RequestFuture(d.pid, halt{}, 10*time.Second).Result()
		done := make(chan struct{})
		go func() { d.work.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(d.cfg.Grace):
			d.cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				d.cfg.Log.Warn("callback dispatcher: attempts still running at shutdown")
			}
		}
		d.cancel()
		_ = d.system.Root.StopFuture(d.pid).Wait()
	})
}

// sweepLimit bounds the due rows one sweep hands to the dispatcher.
const sweepLimit = 10000

// sweep hands the dispatcher the rows due now, on a shared store: those other nodes
// committed, and those a dead node left behind (their leases then expire).
func (d *Dispatcher) sweep() {
	rows, err := dueBy(d.cfg.Store, d.cfg.Clock.Now(), sweepLimit)
	if err != nil {
		d.cfg.Log.Warn("callback: sweeping the due rows failed", slog.Any("err", err))
		return
	}
	if len(rows) == 0 {
		return
	}
	items := make([]Item, len(rows))
	for i, r := range rows {
		items[i] = Item{ID: r.id, Lane: r.lane, Due: r.at}
	}
	d.Enqueue(items)
}

// Receive is the actor's entry point.
func (d *Dispatcher) Receive(ctx actor.Context) {
	defer d.publishStats()
	switch m := ctx.Message().(type) {
	case begin:
		d.pump()
	case halt:
		ctx.Respond(true)
	case *actor.Stopping:
		d.disarm()
	case *enqueue:
		for _, it := range m.items {
			e, known := d.entries[it.ID]
			switch {
			case !known:
				d.schedule(&entry{id: it.ID, lane: it.Lane, due: it.Due})
			case e.state == stateInFlight:
				due := it.Due
				e.again = &due
			}
		}
		d.pump()
	case wake:
		if m.gen == d.gen {
			d.timer = nil
		}
		d.pump()
	case *attemptDone:
		if l := d.lanes[m.lane]; l != nil {
			l.inflight--
			switch {
			case len(l.queue) > 0:
				d.ready[m.lane] = true
			case l.inflight == 0:
				delete(d.lanes, m.lane)
			}
		}
		next := m.next
		if e := d.entries[m.id]; e != nil && next == nil && e.again != nil {
			next = e.again
		}
		delete(d.entries, m.id)
		if next != nil {
			d.schedule(&entry{id: m.id, lane: m.lane, due: *next})
		}
		d.pump()
	case *retryNow:
		if e, ok := d.entries[m.id]; ok {
			if e.state == stateInFlight {
				ctx.Respond(errInFlight)
				return
			}
			d.unschedule(e)
		}
		e := &entry{id: m.id, lane: m.lane, due: d.cfg.Clock.Now(), manual: true}
		d.entries[m.id] = e
		d.enqueueReady(e)
		ctx.Respond(true)
		d.pump()
	}
}

// schedule puts e in the waiting heap.
func (d *Dispatcher) schedule(e *entry) {
	e.state = stateWaiting
	d.entries[e.id] = e
	heap.Push(&d.waiting, e)
}

// unschedule takes a waiting or ready entry out (for a manual retry).
func (d *Dispatcher) unschedule(e *entry) {
	switch e.state {
	case stateWaiting:
		heap.Remove(&d.waiting, e.index)
	case stateReady:
		l := d.lanes[e.lane]
		for i, q := range l.queue {
			if q == e {
				l.queue = append(l.queue[:i], l.queue[i+1:]...)
				break
			}
		}
	}
	delete(d.entries, e.id)
}

func (d *Dispatcher) enqueueReady(e *entry) {
	e.state = stateReady
	l := d.lanes[e.lane]
	if l == nil {
		l = &laneState{}
		d.lanes[e.lane] = l
	}
	l.queue = append(l.queue, e)
	d.ready[e.lane] = true
}

// pump moves due entries to their lanes, starts attempts where a lane has room,
// and arms the timer for the next due time.
func (d *Dispatcher) pump() {
	if d.stopping.Load() || d.ctx.Err() != nil {
		return
	}
	now := d.cfg.Clock.Now()
	for len(d.waiting) > 0 && !d.waiting[0].due.After(now) {
		d.enqueueReady(heap.Pop(&d.waiting).(*entry))
	}
	for name := range d.ready {
		l := d.lanes[name]
		for l.inflight < d.cfg.PerLane && len(l.queue) > 0 {
			e := l.queue[0]
			l.queue[0] = nil
			l.queue = l.queue[1:]
			d.start(e)
			l.inflight++
		}
		if len(l.queue) == 0 {
			delete(d.ready, name)
			l.queue = nil
		}
		if l.inflight == 0 && len(l.queue) == 0 {
			delete(d.lanes, name)
		}
	}
	d.arm(now)
}

func (d *Dispatcher) start(e *entry) {
	e.state = stateInFlight
	d.work.Add(1)
	go func() {
		defer d.work.Done()
		next := d.attempt(e.id, e.manual)
		d.system.Root.Send(d.pid, &attemptDone{id: e.id, lane: e.lane, next: next})
	}()
}

// arm sets the one timer to the earliest waiting due time.
func (d *Dispatcher) arm(now time.Time) {
	if len(d.waiting) == 0 {
		d.disarm()
		return
	}
	at := d.waiting[0].due
	if d.timer != nil && d.timerAt.Equal(at) {
		return
	}
	d.disarm()
	d.gen++
	gen, pid, root := d.gen, d.pid, d.system.Root
	d.timer = d.cfg.Clock.AfterFunc(max(at.Sub(now), 0), func() { root.Send(pid, wake{gen: gen}) })
	d.timerAt = at
}

func (d *Dispatcher) disarm() {
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
}

// dueHeap orders waiting entries by due time.
type dueHeap []*entry

func (h dueHeap) Len() int { return len(h) }
func (h dueHeap) Less(i, j int) bool {
	if h[i].due.Equal(h[j].due) {
		return h[i].id < h[j].id
	}
	return h[i].due.Before(h[j].due)
}
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *dueHeap) Push(x any) {
	e := x.(*entry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *dueHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.index = -1
	return e
}
