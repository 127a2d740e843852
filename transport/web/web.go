// Package web serves the pages people open in a browser. The review page at
// /p/:id (and the short address /s/:code that leads to it) shows every block of a
// page, its state, its approval chain, comments and files, and lets a person decide,
// fill in forms, comment and upload; it follows the page's own event stream and
// redraws what changed from server-rendered fragments.
//
// Pages are server-side html/template; CSS and JS are embedded and served under
// hashed names; nothing is fetched from another origin. Every write a person makes
// goes through the same actor messages as the API's, so the browser and an agent
// meet the same rules and the same messages.
package web

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/auditlog"
	"folio/actors/callback"
	"folio/actors/inbox"
	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/people/signin"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/persistence"
	"folio/transport/admission"
	"folio/transport/credential"
	"folio/transport/feed"
	"folio/transport/web/render"
)

// Router is where routes are mounted (the API server).
type Router interface {
	Handle(method, path string, h httprouter.Handle)
}

// Config wires the pages.
type Config struct {
	Store   *persistence.Store
	Pages   *registry.Registry
	Tenants *registry.Registry
	People  *people.Directory
	Audit   *auditlog.Log // nil: no audit log on this node
	// Inboxes, Plans and EnforceLimits are the tenancy's (nil, nil, false on a node
	// without it): the inbox's buttons, the usage screen.
	Inboxes       *registry.Registry
	Plans         *tenant.Book
	EnforceLimits bool
	// Deliveries retries a delivery (nil on a node whose dispatcher did not start).
	Deliveries *callback.Dispatcher
	Now        func() time.Time
	// Credentials tells who a request is, resolved once per request for both faces.
	Credentials *credential.Resolver
	// API is the node's API server (Accounts): what writes the cookies the API's way.
	API Accounts
	// Admit are the node's admission rules, the same value the API's routes count
	// against: the anonymous comment budget per address, the streams held open.
	Admit *admission.Rules
	// Feed serves a workspace's event stream (GET /events), as the API's agent
	// stream; nil on a node without streams (404).
	Feed *feed.Tenant
	// SignIn are the rules of signing in and claiming (mailed links, claims, their
	// limits, the welcome key), the same the API's routes apply.
	SignIn *signin.Rules
	// ClientAddress is the address a request comes from, as the API's limits
	// count it (trusted proxies named).
	ClientAddress func(*http.Request) string
	// FormTargets are the origins a sign-in form may be redirected to: the
	// configured OAuth providers' (https://github.com, https://accounts.google.com).
	FormTargets []string
	Log         *slog.Logger
	// Bell rings people's streams (GET /decide/stream) on this node; nil: they
	// read again on their timers only. NeedsRefresh is how often they read again
	// when nothing rang (0: 15 s).
	Bell         *inbox.Bell
	NeedsRefresh time.Duration
	// MaxPageBytes is the most bytes of block HTML one review page draws (render
	// Options.MaxBytes); 0: render.DefaultMaxPageBytes.
	MaxPageBytes int
}

// Mount adds the routes for people.
func Mount(r Router, c Config) *Site {
	if c.MaxPageBytes <= 0 {
		c.MaxPageBytes = render.DefaultMaxPageBytes
	}
	// The fragment cache keeps any block up to an eighth of its size (cache.go), so
	// it is at least 9 pages' budget: every block the budget lets be drawn is kept
	// once drawn, none is drawn again on every view for being too large to keep.
	s := &Site{c: c, assets: buildAssets(), fragments: newFragments(max(32<<20, 9*c.MaxPageBytes)), csp: policy(c.FormTargets)}
	if s.c.Now == nil {
		s.c.Now = time.Now
	}
	if s.c.Log == nil {
		s.c.Log = slog.Default()
	}
	r.Handle("GET", "/p/:id", s.serve(s.review))
	r.Handle("POST", "/p/:id/act", s.serve(s.act))
	r.Handle("GET", "/p/:id/parts/:part", s.serve(s.part))
	r.Handle("GET", "/p/:id/blocks/:blockId", s.serve(s.block))
	r.Handle("GET", "/p/:id/threads/:blockId", s.serve(s.thread))
	r.Handle("POST", "/p/:id/comments", s.serve(s.comment))
	r.Handle("GET", "/s/:code", s.serve(s.short))
	r.Handle("GET", "/a/:token", s.serve(s.decisionLink))
	r.Handle("HEAD", "/a/:token", s.serve(s.decisionLink))
	r.Handle("POST", "/a/:token", s.serve(s.confirmLink))
	r.Handle("GET", "/assets/:name", s.assets.serve)
	// Signing in, claiming an agent, the start page (signin.go, claim.go).
	r.Handle("GET", "/login", s.login)
	r.Handle("POST", "/login", s.serve(s.sendLink))
	r.Handle("GET", "/login/link", s.linkLanding)
	r.Handle("POST", "/login/oauth/:provider", s.serve(s.oauth))
	r.Handle("POST", "/logout", s.logout)
	r.Handle("GET", "/claim", s.claimPage)
	r.Handle("POST", "/claim", s.serve(s.claim))
	r.Handle("GET", "/welcome", s.welcome)
	// The dashboard (dash*.go).
	r.Handle("GET", "/", s.serve(s.inboxScreen))
	r.Handle("GET", "/inbox/list", s.serve(s.inboxListPart))
	r.Handle("POST", "/inbox/:entry/:op", s.serve(s.inboxChange))
	r.Handle("GET", "/events", s.serve(s.events))
	s.mountNeeds(r)
	s.mountPersonStream(r)
	s.mountPages(r)
	s.mountUsage(r)
	s.mountMembers(r)
	s.mountAudit(r)
	s.mountKeys(r)
	s.mountDeliveries(r)
	return s
}

// Site serves the pages for people.
type Site struct {
	c         Config
	assets    *assetSet
	fragments *fragments // drawn blocks by content (32 MiB, or 9 pages' budget when more)
	csp       string     // the Content-Security-Policy of every page (policy)
}

// short is /s/:code: 302 to the page (404 for an unknown code or a draft).
func (s *Site) short(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	id, ok, err := page.ResolveShortCode(s.c.Store, ps.ByName("code"))
	if err != nil {
		return err // the store did not answer: "try again", not "not found"
	}
	if ok {
		o, err := s.open(r, id)
		ok = err == nil && o != nil
	}
	if !ok {
		s.notFound(w, r)
		return nil
	}
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, "/p/"+id, http.StatusFound)
	return nil
}

// open asks the page for what the viewer may see of it: nil (and no error) when it
// does not exist for them. The error is a failure to get an answer (the page did
// not answer in time, the request is gone); a refusal the page answers is not one.
func (s *Site) open(r *http.Request, id string) (*page.Opened, error) {
	if id == "" || len(id) > 64 {
		return nil, nil
	}
	c, err := s.c.Credentials.Of(nil, r)
	if err != nil {
		return nil, err
	}
	o, err := registry.Call[*page.Opened](r.Context(), s.c.Pages, id, &page.Open{Viewer: c.Viewer()})
	switch {
	case err == nil:
		return o, nil
	case errors.Is(err, registry.ErrTimeout) || errors.Is(err, persistence.ErrUnavailable) || r.Context().Err() != nil:
		return nil, err
	}
	return nil, nil // not found for this viewer (a draft, another tenant's): one friendly 404
}
