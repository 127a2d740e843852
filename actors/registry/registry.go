// Package registry runs one manager actor per kind of entity (pages, tenants,
// mailboxes). The manager owns the map id -> child PID, spawns a child on first use,
// forwards each message so the child answers the caller's future directly, and
// passivates idle children without losing a message: while a child is stopping,
// messages for its id are buffered and handed to its successor.
package registry

import (
	"errors"
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

// Start spawns a manager for one kind of entity.
func Start(system *actor.ActorSystem, kind string, produce Producer, timeout time.Duration, hooks Hooks) *Registry {
	m := &manager{produce: produce, children: map[string]*actor.PID{}, byPID: map[string]string{}, stopping: map[string][]buffered{}, hooks: hooks}
	props := actor.PropsFromProducer(func() actor.Actor { return m })
	pid, err := system.Root.SpawnNamed(props, "registry-"+kind)
	if err != nil {
		pid = system.Root.Spawn(props)
	}
	return &Registry{system: system, manager: pid, timeout: timeout}
}

// Ask sends msg to entity id and waits for its reply.
func (r *Registry) Ask(id string, msg any) (any, error) {
	res, err := r.system.Root.RequestFuture(r.manager, &envelope{id: id, msg: msg}, r.timeout).Result()
	if errors.Is(err, actor.ErrTimeout) {
		return nil, ErrTimeout
	}
	return res, err
}

// Tell sends msg to entity id without waiting.
func (r *Registry) Tell(id string, msg any) {
	r.system.Root.Send(r.manager, &envelope{id: id, msg: msg})
}

// Hooks let the owner count lifecycle events (metrics); any may be nil.
type Hooks struct {
	Spawned    func()
	Passivated func()
}

type buffered struct {
	msg    any
	sender *actor.PID
}

// manager is only ever touched by its own mailbox goroutine.
type manager struct {
	produce  Producer
	children map[string]*actor.PID
	byPID    map[string]string
	stopping map[string][]buffered
	hooks    Hooks
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
		if m.children[msg.ID] == nil || !m.children[msg.ID].Equal(msg.PID) {
			return
		}
		delete(m.children, msg.ID)
		m.stopping[msg.ID] = nil
		// Poison is a user message: everything already in the child's mailbox is
		// handled before it stops.
		ctx.Poison(msg.PID)
	case *actor.Terminated:
		id, ok := m.byPID[msg.Who.Id]
		if !ok {
			return
		}
		delete(m.byPID, msg.Who.Id)
		if m.children[id] != nil && m.children[id].Equal(msg.Who) {
			delete(m.children, id) // crashed for good: next message respawns
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

func (m *manager) deliver(ctx actor.Context, id string, msg any, sender *actor.PID) {
	child := m.children[id]
	if child == nil {
		child = ctx.Spawn(actor.PropsFromProducer(func() actor.Actor { return m.produce(id) }))
		m.children[id] = child
		m.byPID[child.Id] = id
		if m.hooks.Spawned != nil {
			m.hooks.Spawned()
		}
	}
	if sender == nil {
		ctx.Send(child, msg)
		return
	}
	ctx.RequestWithCustomSender(child, msg, sender)
}
