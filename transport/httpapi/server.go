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
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/persistence"
)

// URLs are the public addresses derived from configuration (docs/behaviour.md).
type URLs struct {
	Base      string // {base_url}
	PageBase  string // {page_base_url}: pageUrl = PageBase + "/p/" + id
	ShortBase string // {short_url_base}: shortUrl = ShortBase + "/s/" + code
	App       string // {app_url}: claimUrl = App + "/claim?code=…"
}

// Config wires the API to the actors and the store.
type Config struct {
	Store       *persistence.Store
	Pages       *registry.Registry
	PageDeps    *page.Deps // to validate a new page before its quota is reserved (pages.go)
	Tenants     *registry.Registry
	Keys        *tenant.Keyring
	Now         func() time.Time
	URLs        URLs
	MaxBody     int64
	DefaultPlan string
	Registry    *prometheus.Registry
	Log         *slog.Logger
	// Extra lets other transports (web pages, streams) add routes to the same router.
	Extra func(r *httprouter.Router)
}

// Server is the HTTP API.
type Server struct {
	store       *persistence.Store
	pages       *registry.Registry
	pageDeps    *page.Deps
	tenants     *registry.Registry
	keys        *tenant.Keyring
	now         func() time.Time
	urls        URLs
	maxBody     int64
	defaultPlan string
	log         *slog.Logger
	metrics     *httpMetrics
	ready       atomic.Bool
	router      *httprouter.Router
	routesMu    sync.Mutex
	registered  []string // "METHOD /path/{param}" of every route, for the OpenAPI coverage test
	tenancy     *tenancy // rate limits, quotas, inbox (tenancy.go); nil until MountTenancy
}

// New builds the server and its routes.
func New(c Config) *Server {
	if c.MaxBody <= 0 {
		c.MaxBody = 1 << 20
	}
	if c.DefaultPlan == "" {
		c.DefaultPlan = "free"
	}
	s := &Server{store: c.Store, pages: c.Pages, pageDeps: c.PageDeps, tenants: c.Tenants, keys: c.Keys, now: c.Now, urls: c.URLs,
		maxBody: c.MaxBody, defaultPlan: c.DefaultPlan, log: c.Log, metrics: newHTTPMetrics(c.Registry)}
	r := httprouter.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.writeError(w, req, fault.New(fault.NotFound, "no route for "+req.Method+" "+req.URL.Path, map[string]any{"path": req.URL.Path}))
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		writeJSON(w, http.StatusMethodNotAllowed, envelope{Error: body{Code: "METHOD_NOT_ALLOWED",
			Message: req.Method + " is not allowed on " + req.URL.Path, Details: map[string]any{"allow": w.Header().Get("Allow")}}})
	})
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, p any) {
		s.log.Error("handler panicked", slog.String("path", req.URL.Path), slog.Any("panic", p))
		s.writeError(w, req, fault.New(fault.Internal, "internal error", nil))
	}
	s.router = r
	s.routes(c.Registry)
	if c.Extra != nil {
		c.Extra(r)
	}
	return s
}

// Handler is the root http.Handler. Every response says nosniff: a browser never
// second-guesses a JSON or text body into something it would run.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		s.router.ServeHTTP(w, r)
	})
}

// Router exposes the router so other transports can register routes.
func (s *Server) Router() *httprouter.Router { return s.router }

// SetReady flips /healthz to 200 once the store is open and timers are armed.
func (s *Server) SetReady(ok bool) { s.ready.Store(ok) }

// Handle registers a route with metrics, for this package and its siblings.
func (s *Server) Handle(method, path string, h httprouter.Handle) {
	s.routesMu.Lock()
	s.registered = append(s.registered, method+" "+openapiPath(path))
	s.routesMu.Unlock()
	s.router.Handle(method, path, s.metrics.observe(method, path, s.guard(path, h)))
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

func (s *Server) routes(reg *prometheus.Registry) {
	s.Handle("GET", "/healthz", s.health)
	s.Handle("GET", "/metrics", func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	})
	s.Handle("GET", "/v1/openapi.json", s.openapi)

	s.Handle("POST", "/v1/auth/agent/register", s.register)
	s.Handle("GET", "/v1/account/api-keys", s.requireKey(s.listKeys))
	s.Handle("POST", "/v1/account/api-keys", s.requireKey(s.createKey))
	s.Handle("DELETE", "/v1/account/api-keys/:id", s.requireKey(s.deleteKey))
	s.Handle("GET", "/v1/tenant", s.requireKey(s.getTenant))
	s.Handle("GET", "/v1/audit/verify", s.requireKey(s.verifyAudit))

	s.Handle("POST", "/v1/publish", s.requireKey(s.publish))
	s.Handle("POST", "/v1/pages", s.requireKey(s.createDraft))
	s.Handle("GET", "/v1/pages", s.requireKey(s.listPages))
	s.Handle("GET", "/v1/pages/:id", s.requireKey(s.getPage))
	s.Handle("PATCH", "/v1/pages/:id", s.requireKey(s.updatePage))
	s.Handle("POST", "/v1/pages/:id/publish", s.requireKey(s.publishDraft))
	s.Handle("POST", "/v1/pages/:id/revoke", s.requireKey(s.revoke))
	s.Handle("POST", "/v1/pages/:id/renew", s.requireKey(s.renew))
	s.Handle("POST", "/v1/pages/:id/actions/:actionId", s.execute) // a key, or none on a public page

	s.Handle("GET", "/v1/pages/:id/audit", s.requireKey(s.pageAudit))

	s.Handle("PATCH", "/v1/pages/:id/blocks", s.requireKey(s.appendBlocks))
	s.Handle("PATCH", "/v1/pages/:id/blocks/:blockId", s.requireKey(s.fixBlock))
	s.Handle("PUT", "/v1/pages/:id/blocks/reorder", s.requireKey(s.reorderBlocks))
	s.Handle("POST", "/v1/pages/:id/blocks/insert", s.requireKey(s.insertBlock))
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	if !s.ready.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
