package people

import (
	"errors"
	"sync"
	"time"

	"folio/persistence"
)

// Lifetimes of what the directory hands out (docs/behaviour.md).
type Lifetimes struct {
	Session   time.Duration // idle lifetime of a session: each use a day after the last extension extends it (30 days)
	Link      time.Duration // a sign-in link (15 minutes)
	ClaimLink time.Duration // the claim link mailed at registration (72 hours)
	Flow      time.Duration // an OAuth sign-in in progress (10 minutes)
}

// defaultLifetimes are the lifetimes of a node that sets none.
var defaultLifetimes = Lifetimes{Session: 30 * 24 * time.Hour, Link: 15 * time.Minute, ClaimLink: 72 * time.Hour, Flow: 10 * time.Minute}

// Errors of the directory.
var (
	ErrUnknown = errors.New("people: unknown, already used or ended")
	ErrExpired = errors.New("people: expired")
)

// Directory is the people, their sessions, links and OAuth flows, over bbolt.
// Sessions are also cached in memory (by token hash); EndSession drops the cached
// one and runs its watchers before it returns, so a request after a logout is
// refused and a stream opened with the session is ended.
type Directory struct {
	store *persistence.Store
	now   func() time.Time
	life  Lifetimes

	mu       sync.RWMutex
	sessions map[string]Session   // token hash -> session
	ended    map[string]time.Time // session id -> when it would have expired: ended sessions a racing read must not bring back

	watchMu  sync.Mutex
	watchers map[string]map[*func()]struct{} // session id -> what ends with it
}

// maxCached bounds the session cache; past it the cache starts again empty (it is
// only a cache: every session is in bbolt).
const maxCached = 100_000

// NewDirectory opens the directory on store; zero lifetimes take the defaults.
func NewDirectory(store *persistence.Store, now func() time.Time, life Lifetimes) *Directory {
	d := defaultLifetimes
	if life.Session > 0 {
		d.Session = life.Session
	}
	if life.Link > 0 {
		d.Link = life.Link
	}
	if life.ClaimLink > 0 {
		d.ClaimLink = life.ClaimLink
	}
	if life.Flow > 0 {
		d.Flow = life.Flow
	}
	if now == nil {
		now = time.Now
	}
	return &Directory{store: store, now: now, life: d, sessions: map[string]Session{}, ended: map[string]time.Time{}, watchers: map[string]map[*func()]struct{}{}}
}

// Lifetimes are the directory's lifetimes after defaults.
func (d *Directory) Lifetimes() Lifetimes { return d.life }

// Sweep deletes expired sessions, links and flows (run periodically; an expired
// record is refused when used whether or not it was swept).
func (d *Directory) Sweep() error {
	now := d.now()
	type expiring struct {
		ExpiresAt time.Time `json:"expires_at"`
	}
	var dead map[string][][]byte
	err := d.store.Update(func(tx *persistence.Tx) error {
		dead = map[string][][]byte{} // the function may run again (persistence.Store.Update)
		expired := func(v []byte) bool {
			e, ok := decode[expiring](v)
			return !ok || !now.Before(e.ExpiresAt)
		}
		for _, bucket := range []string{bucketSessions, bucketLinks, bucketOAuthFlow} {
			var found [][]byte
			tx.Scan(bucket, nil, false, func(k, v []byte) bool {
				if expired(v) {
					found = append(found, append([]byte(nil), k...))
				}
				return true
			})
			// The scan locks no row on PostgreSQL and may have read a session
			// before another node extended it: each is read again (a write's read
			// locks its row) and deleted only if it is still expired.
			for _, k := range found {
				if v := tx.Get(bucket, k); v == nil || !expired(v) {
					continue
				}
				if err := tx.Delete(bucket, k); err != nil {
					return err
				}
				dead[bucket] = append(dead[bucket], k)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.mu.Lock()
	for _, h := range dead[bucketSessions] {
		delete(d.sessions, string(h))
	}
	for id, until := range d.ended {
		if !now.Before(until) {
			delete(d.ended, id)
		}
	}
	d.mu.Unlock()
	return nil
}
