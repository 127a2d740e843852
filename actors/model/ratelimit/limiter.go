// Package ratelimit is the rate rule shared by both HTTP faces: per-key budgets of
// n units per window, decided by the generic cell rate algorithm on an injected
// clock. It is pure (no HTTP, no storage); the transports turn a Decision into
// status codes and headers.
package ratelimit

import (
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// Limiter is a set of token buckets, one per key (a tenant, a client address),
// each allowing perMinute requests per minute with a burst of perMinute.
//
// Each bucket is the generic cell rate algorithm: one int64, its theoretical
// arrival time (TAT). A request at now is allowed when TAT - now <= (perMinute-1)
// intervals, and then moves TAT one interval (a minute / perMinute) on. The
// arithmetic is in integer nanoseconds of the injected clock, so "60 requests, the
// 61st refused with Retry-After: 1, allowed again one second later" holds exactly.
//
// There is no global lock: keys hash onto shards, each with its own mutex and map.
// Memory is bounded: a bucket whose TAT has passed is full, i.e. identical to no
// bucket at all, so it can be dropped at any time without changing any decision.
// Sweep drops those; a shard that is full when a new key arrives drops full ones
// among a sample and, if none, the sampled bucket nearest to full (the only case
// where forgetting changes anything: that client gets a little more, never less).
type Limiter struct {
	now      func() time.Time
	seed     maphash.Seed
	perShard int
	shards   [limiterShards]limShard
}

const limiterShards = 64

type limShard struct {
	mu  sync.Mutex
	tat map[string]bucket
}

// bucket is a key's TAT and the interval (the rate) it was computed at.
type bucket struct {
	tat      int64
	interval int64
}

// New keeps at most maxKeys buckets (default 100,000 when <= 0).
func New(now func() time.Time, maxKeys int) *Limiter {
	if maxKeys <= 0 {
		maxKeys = 100_000
	}
	l := &Limiter{now: now, seed: maphash.MakeSeed(), perShard: max(1, maxKeys/limiterShards)}
	for i := range l.shards {
		l.shards[i].tat = map[string]bucket{}
	}
	return l
}

// Decision is the outcome of one Take.
type Decision struct {
	Allowed    bool
	Limit      int           // requests per window, a minute for Take (0: unlimited)
	Remaining  int           // requests allowed right now after this one
	RetryAfter time.Duration // when refused: until the next request is allowed
	Reset      time.Duration // until the bucket is full again
	Window     time.Duration // the window Limit counts over (a minute for Take)
}

// Take spends one request of key's bucket. perMinute <= 0 is unlimited.
func (l *Limiter) Take(key string, perMinute int) Decision {
	return l.TakeOf(key, perMinute, time.Minute)
}

// TakeOf spends one of n requests per window (a burst of n, refilled evenly over
// the window); Decision.Limit is n. n <= 0 is unlimited.
func (l *Limiter) TakeOf(key string, n int, window time.Duration) Decision {
	if n <= 0 {
		return Decision{Allowed: true}
	}
	return l.TakeCost(key, 1, int64(n), window)
}

// TakeCost spends cost units of key's budget of n units per window (a burst of n,
// refilled evenly over the window); the byte budgets spend as many units as a
// request stores, Take and TakeOf one. It is the generic cell rate algorithm with a
// weight: a request is allowed when the key's theoretical arrival time, moved on by
// cost intervals, stays within one window of now. A cost above n is spent as n (such
// a request passes only on a full budget). n <= 0 or cost <= 0 is unlimited.
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

// makeRoom frees at least one slot (the caller holds the lock) in constant time:
// it looks at a few buckets (map order is random), drops those already full, or
// else the one nearest to full among them, as sampled LRU caches do.
func (sh *limShard) makeRoom(now int64, limit int) {
	const sample = 16
	victim, least, seen := "", int64(math.MaxInt64), 0
	for k, b := range sh.tat {
		if b.tat <= now {
			delete(sh.tat, k)
		} else if b.tat < least {
			victim, least = k, b.tat
		}
		if seen++; seen == sample {
			break
		}
	}
	if len(sh.tat) >= limit && victim != "" {
		delete(sh.tat, victim)
	}
}

// Sweep drops every full bucket (run periodically so idle keys do not linger).
func (l *Limiter) Sweep() {
	now := l.now().UnixNano()
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		for k, b := range sh.tat {
			if b.tat <= now {
				delete(sh.tat, k)
			}
		}
		sh.mu.Unlock()
	}
}

// Len is how many buckets are held.
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		l.shards[i].mu.Lock()
		n += len(l.shards[i].tat)
		l.shards[i].mu.Unlock()
	}
	return n
}
