package credential

import (
	"context"
	"net/http"

	"folio/actors/people"
	"folio/actors/tenant"
)

// memoKey carries a request's memo on its context (WithMemo installs one per request).
type memoKey struct{}

// memo keeps what a request's credential resolved to, so that the key, the session
// and the person's workspaces are each looked up once per request whichever guard,
// handler or face (the API, the pages for people) asks, and all of them see the
// same answer. One request is served by one goroutine, so it needs no lock.
type memo struct {
	cred struct {
		done bool
		c    Credential
		err  error
	}
	resolved int // times cred was resolved (Resolutions)
	key      struct {
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

// WithMemo is r with an empty memo on its context: the one place a request's
// credential is kept (the API server's Handler installs it on every request, for
// both faces). A request that has one keeps it.
func WithMemo(r *http.Request) *http.Request {
	if _, ok := r.Context().Value(memoKey{}).(*memo); ok {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), memoKey{}, &memo{}))
}

func memoOf(r *http.Request) *memo {
	m, _ := r.Context().Value(memoKey{}).(*memo)
	if m == nil { // a request that did not come through WithMemo: nothing is kept
		m = &memo{}
	}
	return m
}

// Key is Keyring.Authenticate, once per request and token (the rate-limit guard,
// requireKey and Of share it).
func (rs *Resolver) Key(r *http.Request, token string) (tenant.Principal, bool, error) {
	k := &memoOf(r).key
	if !k.done || k.token != token {
		k.who, k.ok, k.err = rs.Keys.Authenticate(token)
		k.done, k.token = true, token
	}
	return k.who, k.ok, k.err
}

// Session is Directory.Session, once per request and token (a session's lifetime
// slides at most once per request).
func (rs *Resolver) Session(r *http.Request, token string) (people.Session, bool, bool, error) {
	m := memoOf(r)
	v := &m.session
	if !v.done || v.token != token {
		v.sess, v.extended, v.ok, v.err = rs.People.Session(token)
		v.done, v.token, v.cookieSet = true, token, false
	}
	return v.sess, v.extended, v.ok, v.err
}

// tenantsOf is the workspaces a person belongs to, once per request.
func (rs *Resolver) tenantsOf(r *http.Request, userID string) ([]string, error) {
	t := &memoOf(r).tenants
	if !t.done || t.user != userID {
		t.ids, t.err = tenant.TenantsOf(rs.Store, userID)
		t.done, t.user = true, userID
	}
	return t.ids, t.err
}

// slidCookie reports whether the request's session slid and its cookie has not been
// refreshed yet, and marks it refreshed.
func slidCookie(m *memo) bool {
	v := &m.session
	if !v.extended || v.cookieSet {
		return false
	}
	v.cookieSet = true
	return true
}
