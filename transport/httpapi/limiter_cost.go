package httpapi

import (
	"hash/maphash"
	"time"
)

// TakeCost spends cost units of key's budget of n units per window (a burst of n,
// refilled evenly over the window): the byte budgets, where one request spends as
// many units as it stores. It is the cell rate algorithm of takeOf with a weight:
// a request is allowed when the key's theoretical arrival time, moved on by cost
// intervals, stays within one window of now. A cost above n is spent as n (such a
// request passes only on a full budget). n <= 0 or cost <= 0 is unlimited.
func (l *Limiter) TakeCost(key string, cost, n int64, window time.Duration) Decision {
	if n <= 0 || cost <= 0 {
		return Decision{Allowed: true}
	}
	cost = min(cost, n)
	interval := max(int64(window)/n, 1)
	span := interval * n // the whole budget, in time
	now := l.now().UnixNano()
	sh := &l.shards[maphash.String(l.seed, key)%limiterShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	b, ok := sh.tat[key]
	tat := b.tat
	switch {
	case !ok || tat < now:
		tat = now
	case b.interval != interval: // the budget changed: keep the units spent, at the new interval
		tat = now + (tat-now)/b.interval*interval
	}
	next := tat + cost*interval
	if next-now > span {
		return Decision{Limit: int(n), Window: window, RetryAfter: time.Duration(next - now - span), Reset: time.Duration(tat - now)}
	}
	if !ok && len(sh.tat) >= l.perShard {
		sh.makeRoom(now, l.perShard)
	}
	sh.tat[key] = bucket{tat: next, interval: interval}
	return Decision{Allowed: true, Limit: int(n), Window: window, Remaining: int((span - (next - now)) / interval), Reset: time.Duration(next - now)}
}
