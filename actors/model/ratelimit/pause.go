package ratelimit

import (
	"fmt"
	"sync"
	"time"

	"folio/actors/model/fault"
)

// Pause is a global budget of failures: at most n per window, wherever they come
// from (a leaky bucket, refilled evenly). The failure that spends the last of it
// pauses every attempt until one failure's worth has refilled. Per-address limits
// alone let a botnet or an IPv6 /48 sweep a code space; this one does not care
// where guesses come from. n <= 0 never pauses.
type Pause struct {
	n      int
	window time.Duration
	now    func() time.Time
	lim    *Limiter

	mu         sync.Mutex
	spentUntil time.Time // refusing every attempt until then
}

// NewPause allows n failures per window on the clock now.
func NewPause(now func() time.Time, n int, window time.Duration) *Pause {
	return &Pause{n: n, window: window, now: now, lim: New(now, 16)}
}

// Spent is how long the budget stays spent (0 or less: it is not).
func (p *Pause) Spent() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.spentUntil.Sub(p.now())
}

// Admit is nil while the budget is not spent, else the RATE_LIMITED fault for
// claims (scope "global") with the seconds to wait; the link in a claim mail is
// not subject to it.
func (p *Pause) Admit() (retry int, err error) {
	if p.n <= 0 {
		return 0, nil
	}
	wait := p.Spent()
	if wait <= 0 {
		return 0, nil
	}
	retry = CeilSeconds(wait)
	return retry, fault.New(fault.RateLimited,
		fmt.Sprintf("claiming is paused for everyone for %d s: too many wrong claim attempts were made on this service. Try again then; the link in a claim e-mail still works", retry),
		map[string]any{"limit": "claim_failures", "scope": "global", "per_window": p.n, "window_seconds": CeilSeconds(p.window), "policy": "claim_failures", "retry_after": retry})
}

// Fail spends one failure; the one that spends the last of the budget starts the
// pause, which lasts until one failure's worth has refilled.
func (p *Pause) Fail() {
	if p.n <= 0 {
		return
	}
	d := p.lim.TakeOf("global", p.n, p.window)
	var wait time.Duration
	switch {
	case !d.Allowed:
		wait = d.RetryAfter
	case d.Remaining == 0:
		interval := int64(p.window) / int64(p.n)
		wait = d.Reset - time.Duration(interval*int64(p.n-1))
	default:
		return
	}
	p.mu.Lock()
	if until := p.now().Add(wait); until.After(p.spentUntil) {
		p.spentUntil = until
	}
	p.mu.Unlock()
}
