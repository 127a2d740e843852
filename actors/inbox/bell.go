package inbox

import (
	"strings"
	"sync"

	"folio/actors/page"
)

// Bell rings, on this node, the people whose "Needs my decision" or navigation
// counts may have changed, so their streams read them again (transport/web
// dash_stream.go). It carries no data: a ring only says "read again", and what is
// read is checked then. Keys: TenantKey for everything of a workspace (its page
// commits, its deliveries), PersonKey for a person a page's approval chain names
// (they may not belong to the workspace). Ringing never blocks: a listener that
// has not taken the last ring yet has nothing more to learn from this one.
type Bell struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

// NewBell makes a bell nobody listens to yet.
func NewBell() *Bell { return &Bell{subs: map[string]map[chan struct{}]struct{}{}} }

// TenantKey is the key of everything of a workspace.
func TenantKey(tenant string) string { return "t:" + tenant }

// PersonKey is the key of a person, by address (case-blind).
func PersonKey(email string) string { return "@" + strings.ToLower(email) }

// Listen returns a channel that receives after a ring of any of keys, and stop,
// which must be called once to stop listening. Keys may be changed with Retune.
func (b *Bell) Listen(keys []string) (<-chan struct{}, *Listener) {
	l := &Listener{b: b, ch: make(chan struct{}, 1)}
	l.Retune(keys)
	return l.ch, l
}

// Listener is one Listen.
type Listener struct {
	b    *Bell
	ch   chan struct{}
	keys []string
}

// Retune makes keys the ones the listener hears.
func (l *Listener) Retune(keys []string) {
	b := l.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range l.keys {
		if m := b.subs[k]; m != nil {
			delete(m, l.ch)
			if len(m) == 0 {
				delete(b.subs, k)
			}
		}
	}
	l.keys = append(l.keys[:0], keys...)
	for _, k := range keys {
		m := b.subs[k]
		if m == nil {
			m = map[chan struct{}]struct{}{}
			b.subs[k] = m
		}
		m[l.ch] = struct{}{}
	}
}

// Stop stops listening.
func (l *Listener) Stop() { l.Retune(nil) }

// Ring wakes every listener of keys.
func (b *Bell) Ring(keys ...string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range keys {
		for ch := range b.subs[k] {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// ringPage rings p's workspace and every person its approval chain names.
func (b *Bell) ringPage(p *page.Page) {
	if b == nil || p == nil {
		return
	}
	keys := []string{TenantKey(p.TenantID)}
	if p.Approval != nil {
		for _, s := range p.Approval.Steps {
			for _, a := range s.Assignees {
				keys = append(keys, PersonKey(a))
			}
		}
	}
	b.Ring(keys...)
}
