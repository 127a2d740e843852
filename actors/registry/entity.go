package registry

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/fault"
)

// Entity is the skeleton every entity actor (page, tenant, inbox, mailbox) runs on.
// It keeps three promises for all of them:
//   - idling: the idle timer is armed on Started and disarmed when the incarnation
//     ends; idle checks and evictions are answered here and never reach the handler
//     (Idle.Handle); every other message counts as activity;
//   - a panic in the handler answers a waiting caller at once with an INTERNAL_ERROR
//     fault (instead of leaving it to wait out the ask timeout) and is then raised
//     again, so the supervisor restarts the actor from stored state and the system's
//     supervisor events (logged and counted by the node) see it;
//   - start/stop: Started and Stopping drive the idle timer, and Ended runs when the
//     incarnation ends (Stopping, or Restarting after a panic), so what it held for
//     others (live subscribers) is let go. Lifecycle messages never reach the handler.
type Entity struct {
	id string
	// Idle is the entity's idle timer; the handler may read Leaving and SetPeriod.
	Idle  *Idle
	live  func() bool
	ended func()
}

// Lifecycle is what an entity actor adds to the skeleton; either may be nil.
type Lifecycle struct {
	// Live tells whether the entity has live subscribers: while it does, every
	// message counts as activity (it never passivates) and it declines an eviction.
	Live func() bool
	// Ended runs when this incarnation ends: on Stopping and on Restarting.
	Ended func()
}

// NewEntity makes the skeleton of entity id, idle after a quiet period of idle (0:
// never idle).
func NewEntity(id string, idle time.Duration, l Lifecycle) *Entity {
	e := &Entity{id: id, Idle: newIdle(idle), live: l.Live, ended: l.Ended}
	e.Idle.Pinned = l.Live
	return e
}

// Internal is the answer to a request whose handling panicked: the actor is
// restarted from stored state, so asking again may well succeed.
func Internal() *fault.Error {
	return fault.New(fault.Internal, "internal error; try again", nil)
}

// Receive runs one message through the skeleton and hands the entity's own messages
// to handle (call it from the actor's Receive).
func (e *Entity) Receive(ctx actor.Context, handle func(actor.Context)) {
	if e.live != nil && e.live() {
		e.Idle.Touch() // an entity with live subscribers never passivates
	}
	if e.Idle.Handle(ctx, e.id) {
		return
	}
	e.Idle.Touch()
	switch ctx.Message().(type) {
	case *actor.Started:
		e.Idle.Start(ctx)
		return
	case *actor.Stopping, *actor.Restarting:
		e.Idle.Stop()
		if e.ended != nil {
			e.ended()
		}
		return
	case *actor.Stopped:
		return
	}
	defer func() {
		if p := recover(); p != nil {
			if ctx.Sender() != nil {
				ctx.Respond(Internal())
			}
			panic(p) // the supervisor restarts the actor (and reports the event)
		}
	}()
	handle(ctx)
}
