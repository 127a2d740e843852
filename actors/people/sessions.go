package people

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"folio/actors/model/ids"
	"folio/persistence"
)

// StartSession signs u in: a new session with a new token (a sign-in never reuses
// a session the browser already had, so a planted one cannot be promoted). The
// token is returned once; only its hash is kept.
func (d *Directory) StartSession(u User, method string) (token string, s Session, err error) {
	token = newToken(SessionPrefix)
	now := d.now().UTC()
	s = Session{V: schemaV1, ID: ids.New("ses"), UserID: u.ID, Email: u.Email, Method: method,
		CSRF: ids.Random(32), CreatedAt: now, ExpiresAt: now.Add(d.life.Session)}
	h := hashOf(token)
	if err = d.store.Update(func(tx *persistence.Tx) error { return putJSON(tx, bucketSessions, h, s) }); err != nil {
		return "", Session{}, err
	}
	d.cache(h, s) // a new token cannot have ended
	return token, s, nil
}

// Session resolves a token to its live session. A session used more than a day
// after its last extension is extended to a full lifetime again (sliding expiry);
// extended tells the caller to refresh a cookie's lifetime. err is a failed store
// read (persistence.ErrUnavailable): the session may be live, so the caller must
// neither answer "unauthenticated" nor treat the person as signed out.
func (d *Directory) Session(token string) (s Session, extended, ok bool, err error) {
	if !IsSessionToken(token) || len(token) > 128 {
		return Session{}, false, false, nil
	}
	h := hashOf(token)
	d.mu.RLock()
	s, ok = d.sessions[string(h)]
	d.mu.RUnlock()
	if !ok || d.store.Shared() { // another node may have ended it: ask the store
		ok = false
		if err := d.store.View(func(tx *persistence.Tx) error {
			s, ok = getJSON[Session](tx, bucketSessions, h)
			return nil
		}); err != nil {
			return Session{}, false, false, fmt.Errorf("people: read session: %w", err)
		}
		if !ok || !d.cache(h, s) {
			return Session{}, false, false, nil
		}
	}
	now := d.now()
	if !now.Before(s.ExpiresAt) {
		return Session{}, false, false, nil
	}
	if s.ExpiresAt.Sub(now) < d.life.Session-24*time.Hour {
		next := s
		next.ExpiresAt = now.UTC().Add(d.life.Session)
		err := d.store.Update(func(tx *persistence.Tx) error {
			if tx.Get(bucketSessions, h) == nil {
				return ErrUnknown // ended meanwhile
			}
			return putJSON(tx, bucketSessions, h, next)
		})
		switch {
		case errors.Is(err, ErrUnknown) || (err == nil && !d.cache(h, next)):
			return Session{}, false, false, nil // ended meanwhile
		case err != nil: // the extension failed; the session itself is live
			return s, false, true, nil
		}
		return next, true, true, nil
	}
	return s, false, true, nil
}

// EndSession ends the session of token at once: it is deleted, forgotten by the
// cache and everything opened with it (OnEnd) is ended before this returns.
func (d *Directory) EndSession(token string) (Session, bool) {
	if !IsSessionToken(token) || len(token) > 128 {
		return Session{}, false
	}
	h := hashOf(token)
	var s Session
	var ok bool
	err := d.store.Update(func(tx *persistence.Tx) error {
		if s, ok = getJSON[Session](tx, bucketSessions, h); !ok {
			return nil
		}
		return tx.Delete(bucketSessions, h)
	})
	if err != nil || !ok {
		return Session{}, false
	}
	d.forgetEnded(h, s)
	return s, true
}

// forgetEnded forgets the ended session s (token hash h) and ends what it opened.
func (d *Directory) forgetEnded(h []byte, s Session) {
	d.mu.Lock()
	delete(d.sessions, string(h))
	d.ended[s.ID] = s.ExpiresAt // before the watchers are taken: see OnEnd
	d.mu.Unlock()
	d.watchMu.Lock()
	fns := d.watchers[s.ID]
	delete(d.watchers, s.ID)
	d.watchMu.Unlock()
	for fn := range fns {
		(*fn)()
	}
}

// Recheck, on a store other nodes share, ends what was opened with a session that
// another node ended or that expired (OnEnd): the sessions watched here are looked
// up again. New requests never need it (on a shared store Session always reads the
// store); open streams do. Run it periodically.
func (d *Directory) Recheck() {
	d.watchMu.Lock()
	watched := make(map[string]bool, len(d.watchers))
	for id := range d.watchers {
		watched[id] = true
	}
	d.watchMu.Unlock()
	if len(watched) == 0 {
		return
	}
	check := map[string]Session{}
	d.mu.RLock()
	for h, s := range d.sessions {
		if watched[s.ID] {
			check[h] = s
		}
	}
	d.mu.RUnlock()
	now := d.now()
	ended := map[string]Session{}
	err := d.store.View(func(tx *persistence.Tx) error {
		for h, s := range check {
			if cur, ok := getJSON[Session](tx, bucketSessions, []byte(h)); !ok || !now.Before(cur.ExpiresAt) {
				ended[h] = s
			}
		}
		return nil
	})
	if err != nil {
		return // the store is unreachable: the next check tries again
	}
	for h, s := range ended {
		d.forgetEnded([]byte(h), s)
	}
}

// OnEnd runs fn (which must not block) once, when the session sessionID ends, or
// at once if it has ended already (so a stream opened while its session was ending
// is ended too: EndSession marks the session ended before it takes the watchers,
// and this looks at the mark after registering fn); cancel forgets fn (call it
// when what fn would end has ended by itself).
func (d *Directory) OnEnd(sessionID string, fn func()) (cancel func()) {
	var once sync.Once
	run := func() { once.Do(fn) }
	p := &run
	d.watchMu.Lock()
	if d.watchers[sessionID] == nil {
		d.watchers[sessionID] = map[*func()]struct{}{}
	}
	d.watchers[sessionID][p] = struct{}{}
	d.watchMu.Unlock()
	d.mu.RLock()
	_, gone := d.ended[sessionID]
	d.mu.RUnlock()
	if gone {
		run()
	}
	return func() {
		d.watchMu.Lock()
		if set := d.watchers[sessionID]; set != nil {
			delete(set, p)
			if len(set) == 0 {
				delete(d.watchers, sessionID)
			}
		}
		d.watchMu.Unlock()
	}
}

// cache keeps s unless it ended meanwhile: a read that found the session in bbolt
// just before a logout deleted it must not put it back (false: it ended).
func (d *Directory) cache(h []byte, s Session) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, gone := d.ended[s.ID]; gone {
		delete(d.sessions, string(h))
		return false
	}
	if len(d.sessions) >= maxCached {
		d.sessions = map[string]Session{}
	}
	d.sessions[string(h)] = s
	return true
}
