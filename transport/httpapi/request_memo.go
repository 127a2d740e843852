package httpapi

import (
	"context"
	"net/http"

	"folio/actors/people"
	"folio/actors/tenant"
)

// memoKey carries a request's memo on its context (Handler installs one per request).
type memoKey struct{}

// requestMemo keeps what a request's credential resolved to, so that the key, the
// session and the person's workspaces are each looked up once per request whichever
// guard, handler or face (the API, the pages for people) asks, and all of them see
// the same answer. One request is served by one goroutine, so it needs no lock.
type requestMemo struct {
	key struct {
		done  bool
		token string
		who   tenant.Principal
		ok    bool
		err   error
	}
	session struct {
		done      bool
		token     string
		sess      people.Session
		extended  bool
		ok        bool
		err       error
		cookieSet bool // the slid lifetime was handed to the browser already
	}
	tenants struct {
		done bool
		user string
		ids  []string
		err  error
	}
}

func withMemo(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), memoKey{}, &requestMemo{}))
}

func memoOf(r *http.Request) *requestMemo {
	m, _ := r.Context().Value(memoKey{}).(*requestMemo)
	if m == nil { // a request that did not come through Handler: nothing is kept
		m = &requestMemo{}
	}
	return m
}

// authenticate is Keyring.Authenticate, once per request and token.
func (s *Server) authenticate(r *http.Request, token string) (tenant.Principal, bool, error) {
	m := memoOf(r)
	k := &m.key
	if !k.done || k.token != token {
		k.who, k.ok, k.err = s.keys.Authenticate(token)
		k.done, k.token = true, token
	}
	return k.who, k.ok, k.err
}

// session is Directory.Session, once per request and token (a session's lifetime
// slides at most once per request).
func (s *Server) session(r *http.Request, token string) (people.Session, bool, bool, error) {
	m := memoOf(r)
	v := &m.session
	if !v.done || v.token != token {
		v.sess, v.extended, v.ok, v.err = s.people.Session(token)
		v.done, v.token, v.cookieSet = true, token, false
	}
	return v.sess, v.extended, v.ok, v.err
}

// tenantsOf is the workspaces a person belongs to, once per request.
func (s *Server) tenantsOf(r *http.Request, userID string) ([]string, error) {
	m := memoOf(r)
	t := &m.tenants
	if !t.done || t.user != userID {
		t.ids, t.err = tenant.TenantsOf(s.store, userID)
		t.done, t.user = true, userID
	}
	return t.ids, t.err
}

// slidCookie reports whether the request's session slid and its cookie has not been
// refreshed yet, and marks it refreshed.
func slidCookie(r *http.Request) bool {
	v := &memoOf(r).session
	if !v.extended || v.cookieSet {
		return false
	}
	v.cookieSet = true
	return true
}
