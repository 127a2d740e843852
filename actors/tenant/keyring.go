package tenant

import (
	"crypto/subtle"
	"fmt"
	"sync"
	"time"

	"folio/persistence"
)

// Keyring authenticates API keys. Lookups hit a cache of known keys (by hash); a miss
// reads bbolt. The TenantActor calls Forget after committing a deletion and before
// replying, so a deleted key fails on the very next request.
type Keyring struct {
	store *persistence.Store
	now   func() time.Time

	mu    sync.RWMutex
	known map[string]Key // lookup id -> key

	usedMu sync.Mutex
	used   map[string]time.Time // keyId -> last use not yet flushed
	seen   map[string]time.Time // keyId -> last use (flushed or not)

	watchMu  sync.Mutex
	watchers map[string]map[*func()]struct{} // keyId -> what runs when it is deleted
	revoked  map[string]struct{}             // keyIds deleted since start (few): see OnRevoke
}

// NewKeyring reads keys lazily from store.
func NewKeyring(store *persistence.Store, now func() time.Time) *Keyring {
	return &Keyring{store: store, now: now, known: map[string]Key{}, used: map[string]time.Time{}, seen: map[string]time.Time{}}
}

// Authenticate resolves a bearer API key to its principal: ok false for a key that
// is unknown, deleted or wrong. err is a failed store read (persistence.ErrUnavailable):
// the key may be valid, so the caller must not answer "unauthenticated".
func (r *Keyring) Authenticate(key string) (p Principal, ok bool, err error) {
	if !IsAPIKey(key) || len(key) > 128 {
		return Principal{}, false, nil
	}
	lookup := lookupID(key)
	if lookup == nil {
		return Principal{}, false, nil
	}
	r.mu.RLock()
	k, ok := r.known[string(lookup)]
	r.mu.RUnlock()
	if !ok || r.store.Shared() { // another node may have deleted it: ask the store
		ok = false
		stored, err := r.store.Get(bucketKeys, lookup)
		if err != nil {
			return Principal{}, false, fmt.Errorf("tenant: read key: %w", err)
		}
		if k, ok = decodeKey(stored); !ok {
			return Principal{}, false, nil
		}
		r.mu.Lock()
		r.known[string(lookup)] = k
		r.mu.Unlock()
	}
	// The secret part is only ever compared as a hash, in constant time.
	if subtle.ConstantTimeCompare(hashKey(key), k.Hash) != 1 {
		return Principal{}, false, nil
	}
	r.touch(k.ID)
	return Principal{TenantID: k.TenantID, KeyID: k.ID, KeyName: k.Name, KeyPrefix: k.Prefix, Test: k.Test}, true, nil
}

// Forget drops a deleted key from the cache by its lookup id and ends what was
// opened with it (OnRevoke): the next request is refused, and so is the rest of a
// stream that is already open.
func (r *Keyring) Forget(lookup []byte, keyID string) {
	r.mu.Lock()
	delete(r.known, string(lookup))
	r.mu.Unlock()
	r.watchMu.Lock()
	if r.revoked == nil {
		r.revoked = map[string]struct{}{}
	}
	r.revoked[keyID] = struct{}{} // before the watchers are taken: see OnRevoke
	fns := r.watchers[keyID]
	delete(r.watchers, keyID)
	r.watchMu.Unlock()
	for fn := range fns {
		(*fn)()
	}
}

// Recheck, on a store other nodes share, ends what was opened with a key another
// node deleted (OnRevoke): the keys watched here are looked up again, and those
// gone are forgotten as if deleted here. New requests never need it (on a shared
// store Authenticate always reads the store); open streams do. Run it periodically.
func (r *Keyring) Recheck() {
	r.watchMu.Lock()
	watched := make(map[string]bool, len(r.watchers))
	for id := range r.watchers {
		watched[id] = true
	}
	r.watchMu.Unlock()
	if len(watched) == 0 {
		return
	}
	type gone struct{ lookup, id string }
	var check []gone
	r.mu.RLock()
	for lookup, k := range r.known {
		if watched[k.ID] {
			check = append(check, gone{lookup, k.ID})
		}
	}
	r.mu.RUnlock()
	var deleted []gone
	err := r.store.View(func(tx *persistence.Tx) error {
		for _, g := range check {
			if tx.Get(bucketKeys, []byte(g.lookup)) == nil {
				deleted = append(deleted, g)
			}
		}
		return nil
	})
	if err != nil {
		return // the store is unreachable: the next check tries again
	}
	for _, g := range deleted {
		r.Forget([]byte(g.lookup), g.id)
	}
}

// OnRevoke runs fn (which must not block) when the key keyID is deleted, or at
// once if it was deleted already (a stream opened while its key was being deleted
// ends too); cancel forgets fn (call it when what fn would end has ended by itself).
func (r *Keyring) OnRevoke(keyID string, fn func()) (cancel func()) {
	p := &fn
	r.watchMu.Lock()
	if _, gone := r.revoked[keyID]; gone {
		r.watchMu.Unlock()
		fn()
		return func() {}
	}
	if r.watchers == nil {
		r.watchers = map[string]map[*func()]struct{}{}
	}
	if r.watchers[keyID] == nil {
		r.watchers[keyID] = map[*func()]struct{}{}
	}
	r.watchers[keyID][p] = struct{}{}
	r.watchMu.Unlock()
	return func() {
		r.watchMu.Lock()
		if set := r.watchers[keyID]; set != nil {
			delete(set, p)
			if len(set) == 0 {
				delete(r.watchers, keyID)
			}
		}
		r.watchMu.Unlock()
	}
}

func (r *Keyring) touch(keyID string) {
	now := r.now().UTC()
	r.usedMu.Lock()
	r.used[keyID] = now
	r.seen[keyID] = now
	r.usedMu.Unlock()
}

// LastUsed is the newest known use of a key (zero when never used).
func (r *Keyring) LastUsed(keyID string, stored time.Time) time.Time {
	r.usedMu.Lock()
	defer r.usedMu.Unlock()
	if t, ok := r.seen[keyID]; ok && t.After(stored) {
		return t
	}
	return stored
}

// Flush writes pending last-use times. lastUsedAt is bookkeeping, not an
// acknowledged write, so it is flushed periodically rather than on every request.
func (r *Keyring) Flush() error {
	r.usedMu.Lock()
	pending := r.used
	r.used = map[string]time.Time{}
	r.usedMu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	return r.store.Update(func(tx *persistence.Tx) error {
		for id, t := range pending {
			if err := tx.Put(bucketLastUsed, []byte(id), persistence.U64(uint64(t.UnixNano()))); err != nil {
				return err
			}
		}
		return nil
	})
}

// RunFlusher flushes every interval until stop is closed, then once more.
func (r *Keyring) RunFlusher(every time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = r.Flush()
		case <-stop:
			_ = r.Flush()
			return
		}
	}
}
