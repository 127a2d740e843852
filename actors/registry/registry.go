// Package registry runs one manager actor per kind of entity (pages, tenants,
// mailboxes). The manager owns the map id -> child PID, spawns a child on first use,
// forwards each message so the child answers the caller's future directly, and
// passivates idle children without losing a message: while a child is stopping,
// messages for its id are buffered and handed to its successor. Once a child is live,
// callers send to it directly on its route (route.go) and the manager only sees
// first messages and those that race a passivation.
//
// With a bound on live children (MaxLive), the manager also keeps them in order of
// last use and, when a spawn takes it over the bound, asks the least recently used
// child to passivate (Evict). A child that must stay (a page with live subscribers)
// declines and the next least recently used is asked instead.
package registry

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// ErrTimeout is returned by Ask when the entity did not answer in time.
var ErrTimeout = errors.New("registry: entity did not answer in time")

// Producer makes the actor for one id.
type Producer func(id string) actor.Actor

// Registry is the caller-side handle of a manager.
type Registry struct {
	system  *actor.ActorSystem
	manager *actor.PID
	timeout time.Duration
	routes  *sync.Map // id -> *route of a live child; written only by the manager
}

// envelope addresses msg to the entity id.
type envelope struct {
	id  string
	msg any
}

// Passivate is what a child sends its parent when it has been idle long enough.
type Passivate struct {
	ID  string
	PID *actor.PID
}

// Evict is what the manager sends its least recently used child when there are more
// live children than MaxLive: the child passivates unless it is pinned, and then
// answers Declined (Idle.Handle).
type Evict struct{}

// Declined is a pinned child's answer to Evict.
type Declined struct{ ID string }

// Options shape a manager.
type Options struct {
	Timeout time.Duration // how long Ask waits for an answer
	Hooks   Hooks
	// MaxLive bounds the live children (0: no bound, only idle passivation).
	MaxLive int
}

// Start spawns a manager for one kind of entity.
func Start(system *actor.ActorSystem, kind string, produce Producer, o Options) *Registry {
	m := &manager{produce: produce, children: map[string]*child{}, byPID: map[string]string{}, stopping: map[string][]buffered{},
		hooks: o.Hooks, maxLive: o.MaxLive, lru: list.New(), routes: &sync.Map{}}
	props := actor.PropsFromProducer(func() actor.Actor { return m })
	pid, err := system.Root.SpawnNamed(props, "registry-"+kind)
	if err != nil {
		pid = system.Root.Spawn(props)
	}
	return &Registry{system: system, manager: pid, timeout: o.Timeout, routes: m.routes}
}

// ErrRetry is a child's answer to a message it will not take while it is leaving
// (Idle.Leaving): Ask sends the message again until the child stays or its
// successor answers, within the ask timeout.
var ErrRetry = errors.New("registry: the entity is being passivated; ask again")

// retryPause is how long Ask waits before sending a refused message again: the
// manager retires the leaving child's route as soon as it handles its Passivate.
const retryPause = time.Millisecond

// Ask sends msg to entity id and waits for its reply, at most the registry's
// timeout or until ctx's deadline, whichever comes first. A ctx that is already done
// sends nothing; one cancelled during the wait is noticed when the wait ends (the
// actor's reply cannot be waited for on a channel, so no goroutine watches ctx).
func (r *Registry) Ask(ctx context.Context, id string, msg any) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	timeout := r.timeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = max(time.Until(d), time.Millisecond)
	}
	deadline := time.Now().Add(timeout)
	for {
		res, err := r.askOnce(id, msg, time.Until(deadline))
		if e, ok := res.(error); !ok || err != nil || !errors.Is(e, ErrRetry) {
			return res, err
		}
		if time.Now().After(deadline) {
			return nil, ErrTimeout
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		time.Sleep(retryPause)
	}
}

// Call is Ask with the reply typed: an error reply is returned as the error, a
// reply of another type is an internal error. It is the one way the transports
// talk to actors.
func Call[T any](ctx context.Context, r *Registry, id string, msg any) (T, error) {
	var zero T
	res, err := r.Ask(ctx, id, msg)
	if err != nil {
		return zero, err
	}
	if e, ok := res.(error); ok {
		return zero, e
	}
	v, ok := res.(T)
	if !ok {
		return zero, fmt.Errorf("registry: %T answered %T, want %T", msg, res, zero)
	}
	return v, nil
}

func (r *Registry) askOnce(id string, msg any, timeout time.Duration) (any, error) {
	timeout = max(timeout, time.Millisecond)
	if rt := r.enter(id); rt != nil {
		f := r.system.Root.RequestFuture(rt.pid, msg, timeout)
		rt.leave()
		res, err := f.Result()
		// A dead letter means the child died (crashed for good) after we took its
		// route; the manager respawns it.
		if !errors.Is(err, actor.ErrDeadLetter) {
			return answer(res, err)
		}
	}
	return answer(r.system.Root.RequestFuture(r.manager, &envelope{id: id, msg: msg}, timeout).Result())
}

func answer(res any, err error) (any, error) {
	if errors.Is(err, actor.ErrTimeout) {
		return nil, ErrTimeout
	}
	return res, err
}

// Tell sends msg to entity id without waiting.
func (r *Registry) Tell(id string, msg any) {
	if rt := r.enter(id); rt != nil {
		r.system.Root.Send(rt.pid, msg)
		rt.leave()
		return
	}
	r.system.Root.Send(r.manager, &envelope{id: id, msg: msg})
}

// enter returns id's open route, entered (the caller must leave it once its message
// is sent), or nil when the message must go through the manager.
func (r *Registry) enter(id string) *route {
	v, ok := r.routes.Load(id)
	if !ok {
		return nil
	}
	rt := v.(*route)
	if !rt.enter() {
		return nil
	}
	if widenRace != nil {
		widenRace()
	}
	return rt
}

// widenRace, set only by tests, runs between entering a route and sending on it.
var widenRace func()

// widenPassivate, set only by tests, runs when the manager takes a child's Passivate,
// before it retires the route (atomic: managers of earlier tests may still run).
var widenPassivate atomic.Pointer[func()]

// Hooks let the owner count lifecycle events (metrics); any may be nil.
type Hooks struct {
	Spawned    func()
	Passivated func()
}

type buffered struct {
	msg    any
	sender *actor.PID
}

// manager is only ever touched by its own mailbox goroutine. Every live child is in
// lru (most recently used at the front) except while it is being asked to leave
// (Evict sent, no answer yet): then its used is nil.
type manager struct {
	produce  Producer
	children map[string]*child
	byPID    map[string]string
	stopping map[string][]buffered
	hooks    Hooks
	maxLive  int
	lru      *list.List // of ids
	declines int        // Evicts declined in a row: stop asking once every child has
	routes   *sync.Map  // shared with Registry
}

type child struct {
	*route               // its pid, and the callers' way to it
	used   *list.Element // nil while an Evict is pending
}

// forget removes id from the live children and closes its route.
func (m *manager) forget(id string) {
	if c := m.children[id]; c != nil {
		c.route.close()
		m.routes.CompareAndDelete(id, c.route)
		if c.used != nil {
			m.lru.Remove(c.used)
		}
		delete(m.children, id)
	}
}

func (m *manager) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *envelope:
		if buf, ok := m.stopping[msg.id]; ok {
			m.stopping[msg.id] = append(buf, buffered{msg.msg, ctx.Sender()})
			return
		}
		m.deliver(ctx, msg.id, msg.msg, ctx.Sender())
	case *Passivate:
		c := m.children[msg.ID]
		if c == nil || !c.pid.Equal(msg.PID) {
			return
		}
		if widen := widenPassivate.Load(); widen != nil {
			(*widen)()
		}
		if !c.route.retire() {
			// A caller is sending to the child on its route this instant: it is not
			// idle. The check re-arms its idle timer; an eviction moves on.
			ctx.Send(c.pid, checkIdle{})
			if c.used == nil {
				m.declined(ctx, msg.ID)
			}
			return
		}
		m.forget(msg.ID)
		m.declines = 0
		m.stopping[msg.ID] = nil
		// Poison is a user message: everything already in the child's mailbox is
		// handled before it stops.
		ctx.Poison(msg.PID)
	case *Declined:
		m.declined(ctx, msg.ID)
	case *actor.Terminated:
		id, ok := m.byPID[msg.Who.Id]
		if !ok {
			return
		}
		delete(m.byPID, msg.Who.Id)
		if m.children[id] != nil && m.children[id].pid.Equal(msg.Who) {
			m.forget(id) // crashed for good: next message respawns
		}
		buf, wasStopping := m.stopping[id]
		delete(m.stopping, id)
		if wasStopping && m.hooks.Passivated != nil {
			m.hooks.Passivated()
		}
		for _, b := range buf {
			m.deliver(ctx, id, b.msg, b.sender)
		}
	}
}

// declined puts a child that stays despite an Evict back among the live ones and asks
// the next least recently used, until every child has declined in a row.
func (m *manager) declined(ctx actor.Context, id string) {
	c := m.children[id]
	if c == nil || c.used != nil {
		return
	}
	c.used = m.lru.PushFront(id)
	if m.declines++; m.declines < m.lru.Len() {
		m.evictOne(ctx)
	}
}

func (m *manager) deliver(ctx actor.Context, id string, msg any, sender *actor.PID) {
	c := m.children[id]
	if c == nil {
		pid := ctx.Spawn(actor.PropsFromProducer(func() actor.Actor { return m.produce(id) }))
		c = &child{route: &route{pid: pid}, used: m.lru.PushFront(id)}
		m.children[id] = c
		m.routes.Store(id, c.route)
		m.byPID[pid.Id] = id
		if m.hooks.Spawned != nil {
			m.hooks.Spawned()
		}
		m.declines = 0 // a new round of asking
		m.evictOne(ctx)
	} else if c.used != nil {
		m.lru.MoveToFront(c.used)
	}
	if sender == nil {
		ctx.Send(c.pid, msg)
		return
	}
	ctx.RequestWithCustomSender(c.pid, msg, sender)
}

// evictOne asks the least recently used child to passivate when more children than
// maxLive are live and not already asked. The asked child leaves lru until it
// answers: with its Passivate it is gone, with Declined it comes back at the front
// and the next least recently used is asked. A child sent to on its route since the
// manager last looked goes back to the front instead (second chance): lru alone
// does not see direct sends.
//
// The sweep stops at the child that was at the front when it began (the one just
// spawned, or the one that just declined): when every child behind it had been used
// on its route, it is not the least recently used one but the most — evicting it
// would stop a page just published, before its first viewer's Subscribe lands, and
// close that viewer's stream. The child the sweep found at the back first goes then.
func (m *manager) evictOne(ctx actor.Context) {
	if m.maxLive <= 0 || m.lru.Len() <= m.maxLive {
		return
	}
	newest, oldest := m.lru.Front(), m.lru.Back()
	var first *list.Element // the first child given a second chance
	for n := m.lru.Len(); n > 0 && oldest != newest && m.children[oldest.Value.(string)].route.touched.Swap(false); n-- {
		if first == nil {
			first = oldest
		}
		m.lru.MoveToFront(oldest)
		oldest = m.lru.Back()
	}
	if oldest == newest && first != nil {
		oldest = first
	}
	id := oldest.Value.(string)
	m.lru.Remove(oldest)
	m.children[id].used = nil
	ctx.Send(m.children[id].pid, Evict{})
}
