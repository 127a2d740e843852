package registry

import (
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Idle tracks a child's activity and asks its manager to passivate it after a quiet
// period. It uses time.AfterFunc plus a message to self (not SetReceiveTimeout).
type Idle struct {
	after   time.Duration
	touched atomic.Int64 // unix nanos of the last message
	timer   *time.Timer
	// Pinned, when set, tells whether the child must stay live whatever its manager
	// asks (a page with live subscribers); the idle period already counts such a
	// child as active through Touch.
	Pinned func() bool
	// leaving is set once the child has asked its manager to passivate it, until the
	// manager tells it to stay (a checkIdle after a refused retirement).
	leaving bool
}

// Leaving tells whether the child has asked to be passivated and not been told to
// stay: it may stop after any message already in its mailbox, so what must outlive
// it (a live subscription) should be refused with ErrRetry and asked again.
func (i *Idle) Leaving() bool { return i.leaving }

// checkIdle is the self-message the timer sends.
type checkIdle struct{}

// newIdle arms nothing yet; the entity skeleton calls Start on Started (entity.go).
func newIdle(after time.Duration) *Idle { return &Idle{after: after} }

// Start arms the timer.
func (i *Idle) Start(ctx actor.Context) {
	i.Touch()
	if i.after <= 0 {
		return
	}
	self, root := ctx.Self(), ctx.ActorSystem().Root
	i.timer = time.AfterFunc(i.after, func() { root.Send(self, checkIdle{}) })
}

// SetPeriod changes the quiet period to d (call from the child's Receive). A shorter
// period counts from the last activity at once (the timer is re-armed for it); a
// longer one at the next check. It does nothing when idle passivation is off.
func (i *Idle) SetPeriod(d time.Duration) {
	if d <= 0 || d == i.after || i.timer == nil {
		return
	}
	shorter := d < i.after
	i.after = d
	if shorter {
		quiet := time.Since(time.Unix(0, i.touched.Load()))
		i.timer.Reset(max(d-quiet, 0))
	}
}

// Touch records activity.
func (i *Idle) Touch() { i.touched.Store(time.Now().UnixNano()) }

// Stop disarms the timer (call from Stopping).
func (i *Idle) Stop() {
	if i.timer != nil {
		i.timer.Stop()
	}
}

// Handle returns true when msg was the idle check or an eviction. When the child has
// been quiet for the whole period it asks its parent to passivate it; otherwise the
// timer re-arms. On Evict it asks at once, unless it is pinned.
func (i *Idle) Handle(ctx actor.Context, id string) bool {
	switch ctx.Message().(type) {
	case checkIdle:
		i.leaving = false
	case Evict:
		if i.Pinned != nil && i.Pinned() {
			ctx.Send(ctx.Parent(), &Declined{ID: id})
			return true
		}
		i.leaving = true
		ctx.Send(ctx.Parent(), &Passivate{ID: id, PID: ctx.Self()})
		return true
	default:
		return false
	}
	if i.after <= 0 { // no idle passivation; a check the manager sent is moot
		return true
	}
	quiet := time.Since(time.Unix(0, i.touched.Load()))
	if quiet >= i.after {
		i.leaving = true
		ctx.Send(ctx.Parent(), &Passivate{ID: id, PID: ctx.Self()})
		return true
	}
	i.timer.Reset(i.after - quiet)
	return true
}
