package people

import (
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
	d.cache(h, s)
	return token, s, nil
}

// Session resolves a token to its live session. A session used more than a day
// after its last extension is extended to a full lifetime again (sliding expiry);
// extended tells the caller to refresh a cookie's lifetime.
func (d *Directory) Session(token string) (s Session, extended, ok bool) {
	if !IsSessionToken(token) || len(token) > 128 {
		return Session{}, false, false
	}
	h := hashOf(token)
	d.mu.RLock()
	s, ok = d.sessions[string(h)]
	d.mu.RUnlock()
	if !ok {
		_ = d.store.View(func(tx *persistence.Tx) error {
			s, ok = getJSON[Session](tx, bucketSessions, h)
			return nil
		})
		if !ok {
			return Session{}, false, false
		}
		d.cache(h, s)
	}
	now := d.now()
	if !now.Before(s.ExpiresAt) {
		return Session{}, false, false
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
		if err != nil {
			return Session{}, false, false
		}
		d.cache(h, next)
		return next, true, true
	}
	return s, false, true
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
	d.mu.Lock()
	delete(d.sessions, string(h))
	d.mu.Unlock()
	if err != nil || !ok {
		return Session{}, false
	}
	d.watchMu.Lock()
	fns := d.watchers[s.ID]
	delete(d.watchers, s.ID)
	d.watchMu.Unlock()
	for fn := range fns {
		(*fn)()
	}
	return s, true
}

// OnEnd runs fn (which must not block) when the session sessionID ends; cancel
// forgets fn (call it when what fn would end has ended by itself).
func (d *Directory) OnEnd(sessionID string, fn func()) (cancel func()) {
	p := &fn
	d.watchMu.Lock()
	if d.watchers[sessionID] == nil {
		d.watchers[sessionID] = map[*func()]struct{}{}
	}
	d.watchers[sessionID][p] = struct{}{}
	d.watchMu.Unlock()
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

func (d *Directory) cache(h []byte, s Session) {
	d.mu.Lock()
	if len(d.sessions) >= maxCached {
		d.sessions = map[string]Session{}
	}
	d.sessions[string(h)] = s
	d.mu.Unlock()
}
