package registry

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// retiring is the bit of route.state that closes a route for good.
const retiring = int64(1) << 62

// route is the callers' direct way to a live child, past its manager: one actor hop
// instead of two and no single mailbox every request must queue in.
//
// The invariant that makes it safe: a message sent on a route is in the child's
// mailbox before the manager stops the child. state counts the callers between
// entering the route and having enqueued their message; the manager retires a route
// only by swapping a count of zero for the retiring bit, and sends Poison after
// that. A caller that finds the route retiring goes through the manager, which
// buffers for the child's successor as before.
type route struct {
	pid   *actor.PID
	state atomic.Int64
	// touched is set by every direct send; the manager's eviction clears it and skips a
	// child that had it set (second chance), since direct sends bypass its LRU.
	touched atomic.Bool
}

// enter reserves the route for one send; false when it is retiring.
func (r *route) enter() bool {
	if r.state.Add(1)&retiring != 0 {
		r.state.Add(-1)
		return false
	}
	r.touched.Store(true)
	return true
}

// leave ends a send started by enter, once the message is enqueued.
func (r *route) leave() { r.state.Add(-1) }

// retire closes the route when no send is under way; false means a caller is handing
// the child a message at this very moment, so it is not idle.
func (r *route) retire() bool { return r.state.CompareAndSwap(0, retiring) }

// close retires the route whatever is under way (the child is already gone).
func (r *route) close() { r.state.Or(retiring) }
