package mailbox

import "sync"

// Listening is the set of tenants whose mailbox has live agent-stream subscribers.
// The Outlet tells a mailbox about committed events only when its tenant is in it:
// without subscribers there is nobody to push to, and the mailbox catches up from
// the log when the first one arrives (Actor.subscribe). That saves an actor message
// per commit on the hottest path when no agent is streaming.
//
// The mutex (not a bare atomic) orders the two sides: an Outlet that found the
// tenant absent did so before the mailbox added it, so the mailbox's catch-up read
// of the log, which comes after, sees that commit.
type Listening struct {
	mu      sync.RWMutex
	tenants map[string]struct{}
}

// NewListening returns an empty set.
func NewListening() *Listening { return &Listening{tenants: map[string]struct{}{}} }

// Has reports whether tenant's mailbox has subscribers; a nil set has every tenant.
func (l *Listening) Has(tenant string) bool {
	if l == nil {
		return true
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	_, ok := l.tenants[tenant]
	return ok
}

func (l *Listening) set(tenant string, on bool) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if on {
		l.tenants[tenant] = struct{}{}
	} else {
		delete(l.tenants, tenant)
	}
}
