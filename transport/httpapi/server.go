package httpapi

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/auditlog"
	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/persistence"
	"folio/transport/admission"
	"folio/transport/credential"
)

// URLs are the public addresses derived from configuration (docs/behaviour.md).
type URLs struct {
	Base      string // {base_url}
	PageBase  string // {page_base_url}: pageUrl = PageBase + "/p/" + id
	ShortBase string // {short_url_base}: shortUrl = ShortBase + "/s/" + code
	App       string // {app_url}: claimUrl = App + "/claim?code=…#<claim token>"
}

// Config wires the API to the actors and the store.
type Config struct {
	Store       *persistence.Store
	Audit       *auditlog.Log // signs the audit checkpoints; nil: the proof routes answer 503
	Pages       *registry.Registry
	PageDeps    *page.Deps // to validate a new page before its quota is reserved (pages.go)
	Tenants     *registry.Registry
	Keys        *tenant.Keyring
	People      *people.Directory
	Now         func() time.Time
	URLs        URLs
	MaxBody     int64
	DefaultPlan string
	Registry    *prometheus.Registry
	Log         *slog.Logger
	// TrustedProxies may name the client (X-Forwarded-For) and the scheme
	// (X-Forwarded-Proto) of the requests they forward (clientaddr.go).
	TrustedProxies TrustedProxies
	// Admit are the node's admission rules, shared with the pages for people: the
	// anonymous write budgets and the places of streams and long-polls held open
	// (transport/admission); nil: none enforced, the open places unbounded.
	Admit *admission.Rules
}

// Server is the HTTP API.
type Server struct {
	store       *persistence.Store
	audit       *auditlog.Log
	pages       *registry.Registry
	pageDeps    *page.Deps
	tenants     *registry.Registry
	keys        *tenant.Keyring
	people      *people.Directory
	cred        *credential.Resolver // who a request is, once per request (both faces)
	now         func() time.Time
	urls        URLs
	maxBody     int64
	defaultPlan string
	log         *slog.Logger
	metrics     *httpMetrics
	reg         prometheus.Registerer // where areas mounted later register their metrics
	ready       atomic.Bool
	trusted     TrustedProxies   // clientaddr.go
	admit       *admission.Rules // anonymous budgets, open streams and long-polls (open.go, limits_anon.go)
	router      *httprouter.Router
	routesMu    sync.Mutex
	registered  []string          // "METHOD /path/{param}" of every route, for the OpenAPI coverage test
	tenancy     *tenancy          // rate limits, quotas, inbox (limits.go); nil until MountTenancy
	quotas      *tenant.Quotas    // the monthly page quota; nil (nothing reserved) until MountTenancy
	signin      *signinArea       // sign-in, claim (signin.go); nil until MountSignIn
	rt          *realtime         // streams (viewer.go); nil until MountRealtime
	delivery    *deliveryHandlers // delivery log (deliveries.go); nil until MountDelivery
	outcomes    flight            // decisions read once for all the waiters they wake (wait.go)
	parked      parkedWaits       // long-polls waiting off their goroutine (wait_parked.go)
}

// New builds the server and its routes.
func New(c Config) *Server {
	if c.MaxBody <= 0 {
		c.MaxBody = 1 << 20
	}
	if c.DefaultPlan == "" {
		c.DefaultPlan = "free"
	}
	s := &Server{store: c.Store, audit: c.Audit, pages: c.Pages, pageDeps: c.PageDeps, tenants: c.Tenants, keys: c.Keys, people: c.People, now: c.Now, urls: c.URLs,
		maxBody: c.MaxBody, defaultPlan: c.DefaultPlan, log: c.Log, metrics: newHTTPMetrics(c.Registry), reg: c.Registry,
		trusted: c.TrustedProxies, admit: c.Admit}
	if s.admit == nil {
		s.admit = admission.New(admission.Limits{}, c.Now)
	}
	s.cred = &credential.Resolver{Keys: c.Keys, People: c.People, Store: c.Store, Refresh: s.SetSessionCookie}
	if c.Registry != nil {
		c.Registry.MustRegister(s.admit.Collectors()...)
	}
	r := httprouter.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.writeError(w, req, fault.New(fault.NotFound, "no route for "+req.Method+" "+req.URL.Path, map[string]any{"path": req.URL.Path}))
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		writeJSON(w, http.StatusMethodNotAllowed, envelope{Error: body{Code: fault.MethodNotAllowed,
			Message: req.Method + " is not allowed on " + req.URL.Path, Details: map[string]any{"allow": w.Header().Get("Allow")}}})
	})
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, p any) {
		s.log.Error("handler panicked", slog.String("path", req.URL.Path), slog.Any("panic", p))
		s.writeError(w, req, fault.New(fault.Internal, "internal error", nil))
	}
	s.router = r
	s.routes(c.Registry)
	return s
}

// Handler is the root http.Handler. Every response says nosniff: a browser never
// second-guesses a JSON or text body into something it would run.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		s.router.ServeHTTP(w, credential.WithMemo(r))
	})
}

// SetReady flips /healthz to 200 once the store is open and timers are armed.
func (s *Server) SetReady(ok bool) { s.ready.Store(ok) }

// Handle registers a route whose handler answers every request itself (the pages
// for people, transport/web), with the same metrics and rate-limit guard as the API's.
func (s *Server) Handle(method, path string, h httprouter.Handle) {
	s.handle(method, path, func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
		h(w, r, ps)
		return nil
	})
}

// HandleRefusable is Handle for a handler that may refuse a request before writing
// anything: a returned error is written in the envelope like the API's own (a
// *fault.Error by its code; anything else a logged 500).
func (s *Server) HandleRefusable(method, path string, h func(http.ResponseWriter, *http.Request, httprouter.Params) error) {
	s.handle(method, path, h)
}

// handle registers an API route (routes.go): metrics around the adapter that writes
// a returned error (serve), around the rate-limit guard, around the handler.
func (s *Server) handle(method, path string, h handler) {
	s.routesMu.Lock()
	s.registered = append(s.registered, method+" "+openapiPath(path))
	s.routesMu.Unlock()
	s.router.Handle(method, path, s.metrics.observe(method, path, s.serve(s.guard(path, h))))
}

// Routes lists every registered route as "METHOD /path/{param}" (OpenAPI style).
func (s *Server) Routes() []string {
	s.routesMu.Lock()
	defer s.routesMu.Unlock()
	return append([]string(nil), s.registered...)
}

// openapiPath turns httprouter's /v1/pages/:id into /v1/pages/{id}.
func openapiPath(p string) string {
	parts := strings.Split(p, "/")
	for i, seg := range parts {
		if len(seg) > 1 && (seg[0] == ':' || seg[0] == '*') {
			parts[i] = "{" + seg[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

// healthStatus is whether the node serves yet: "starting" (503) or "ok" (200).
type healthStatus struct {
	Status string `json:"status"`
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) error {
	if !s.ready.Load() {
		writeJSON(w, http.StatusServiceUnavailable, healthStatus{Status: "starting"})
		return nil
	}
	writeJSON(w, http.StatusOK, healthStatus{Status: "ok"})
	return nil
}
