// Package node assembles a whole Folio node: the bbolt store, the actor system and
// its registries, the background loops (expiry, key-use flush) and the HTTP API.
// cmd/folio, the tests and the bench harness all start Folio through it.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"folio/actors/inbox"
	"folio/actors/mailbox"
	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/persistence"
	"folio/transport/admission"
	"folio/transport/bus"
	"folio/transport/httpapi"
	foliomcp "folio/transport/mcp"
	"folio/transport/web"
)

// Config is the node's configuration (flags and env twins in cmd/folio).
type Config struct {
	Addr    string
	DataDir string
	// Store is where records are kept: empty or bolt://DIR for bbolt (DIR/folio.db;
	// DataDir's when empty), postgres://… for a PostgreSQL database. Files (uploads,
	// the mail outbox) stay under DataDir either way.
	Store string
	// PGLaterWait is the lock wait of a group's later writes on PostgreSQL
	// (persistence.Options.PGLaterWait); 0: persistence.DefaultPGLaterWait.
	PGLaterWait           time.Duration
	BaseURL               string
	PageBaseURL           string
	ShortURLBase          string
	AppURL                string
	DefaultPlan           string
	DefaultTTL            time.Duration
	AllowPrivateCallbacks bool
	MaxBody               int64
	Limits                page.Limits
	EditBytes             int           // the most bytes of data a block a reviewer edited may hold (--max-edit-bytes; 0: page.DefaultEditBytes)
	IdleAfter             time.Duration // actor passivation
	IdleAfterDone         time.Duration // passivation of a completed, revoked or expired page (0: IdleAfter)
	MaxLivePages          int           // page actors kept live at most (least recently used passivate first); 0: 10,000, <0: no bound
	RenderMaxPageBytes    int           // bytes of block HTML one review page draws at most; 0: render.DefaultMaxPageBytes
	NeedsRefresh          time.Duration // a person's stream reads their list again at least this often (changes made on other nodes); 0: 15 s
	ExpiryEvery           time.Duration
	// Deadlines bound the deadline fields of page requests (zero: the defaults);
	// DeadlineEvery is how often the deadline index is read (0: ExpiryEvery).
	Deadlines     page.DeadlineLimits
	DeadlineEvery time.Duration
	Now           func() time.Time
	// NoAuditTree keeps the audit chains without Merkle trees, checkpoints and
	// receipts: for benchmarks measuring what they cost, never in service (no flag).
	NoAuditTree bool
	// ReadFault, when set, is asked before every store read; an error it returns
	// fails the read as a store that did not answer would. Tests only.
	ReadFault func() error
	Log       *slog.Logger

	// Tenancy: plans, rate limits, quotas, operators (tenancy.go).
	// EnforceLimits turns on per-tenant and per-address request rates and the monthly
	// page quota; the binary enables it by default (--enforce-limits), the zero
	// Config (embedded nodes, tests) counts usage but limits nothing.
	EnforceLimits     bool
	PlanLimits        map[string]tenant.Plan // server-wide plan overrides by name (--plan)
	AnonPerMinute     int                    // unauthenticated requests per client address per minute (120)
	RegisterPerMinute int                    // registrations per client address per minute (10)
	LimiterEntries    int                    // buckets each limiter keeps in memory at most (100,000)
	AdminToken        string                 // enables /v1/admin/* (--admin-token); empty: not mounted
	PersonPerMinute   int                    // requests of one signed-in person per minute (600)

	// Who the client is (httpapi/clientaddr.go): the proxies whose X-Forwarded-For
	// and X-Forwarded-Proto are believed (--trusted-proxies); empty: none.
	TrustedProxies httpapi.TrustedProxies

	// What clients hold open (transport/admission/open.go, listener.go). The per-client bounds
	// on streams and long-polls apply with EnforceLimits (0: 500, <0: none); the
	// node-wide bound and the header guard always (0: the default, <0: none).
	StreamsPerAddress    int // open event streams per client address
	StreamsPerCredential int // open event streams per API key or session
	WaitsPerAddress      int // open GET /v1/pages/:id/wait per client address
	WaitsPerCredential   int // open GET /v1/pages/:id/wait per API key
	// MaxOpen bounds streams and long-polls together; the default is the process's
	// descriptor limit less a quarter of it (at least 256, at most half) kept for
	// everything else (openCap).
	MaxOpen int
	// HeaderConnsPerAddress bounds the connections of one client address still
	// sending a request's headers (or idle between requests) (256).
	HeaderConnsPerAddress int

	// MCP over streamable HTTP (/mcp): idle timeout and caps of its sessions
	// (--mcp-session-idle, --mcp-sessions-per-caller, --mcp-sessions).
	MCPSessions foliomcp.SessionLimits
	// MCPWait is how long one request_approval or wait_for_decision call on /mcp
	// waits before it answers pending (--mcp-wait; 0: 45 s).
	MCPWait time.Duration
	// AuditKeyFile holds the Ed25519 key that signs audit checkpoints (the signed-note
	// format, PRIVATE+KEY+name+hash+key); it must exist. Empty: DataDir/audit.key,
	// created at first start (0600, named <base-url host>/folio/audit) with its
	// verifier key beside it in audit.key.pub.
	AuditKeyFile string

	// Delivery: callbacks and notifications (delivery.go).
	// Without SMTPAddr e-mail notifications go to the log and <data>/outbox/mail.
	SMTPAddr         string          // --smtp-addr host:port
	SMTPFrom         string          // --smtp-from (default "Folio <folio@localhost>")
	SMTPUser         string          // --smtp-user; AUTH PLAIN when set
	SMTPPassword     string          // --smtp-password
	CallbackSchedule []time.Duration // default retry delays (tests shorten them); nil: 1m 5m 30m 2h 12h
	CallbackTimeout  time.Duration   // one attempt (default 30 s)
	// Slack: the Web API's base URL (--slack-api-url; empty: https://slack.com/api,
	// reached through the SSRF guard) and the bound of an interaction's body
	// (--slack-max-body; 0: 256 KiB).
	SlackAPIURL  string
	SlackMaxBody int64

	// Sign-in: OAuth providers, lifetimes, abuse limits (signin.go).
	GitHub          OAuthConfig   // --github-client-id …
	Google          OAuthConfig   // --google-client-id …
	SessionTTL      time.Duration // idle lifetime of a session (30 days)
	LinkTTL         time.Duration // a mailed sign-in link (15 minutes)
	LinksPerEmail   int           // sign-in mails per address per SignInWindow (5)
	LinksPerClient  int           // sign-in mails per client address per SignInWindow (20)
	ClaimsPerClient int           // claim attempts per client address per SignInWindow (10)
	ClaimsPerPerson int           // claim attempts per person per SignInWindow (10)
	SignInWindow    time.Duration // the window of the sign-in and claim limits (15 minutes)
	// Claims and registration mails (issue 31): the global budget of failed claim
	// attempts per SignInWindow (100; -1 off), claim mails at registration per
	// recipient and per registering address (3 and 10) per RegisterMailWindow (24 h).
	ClaimFailureBudget                                int
	RegisterMailsPerRecipient, RegisterMailsPerClient int
	RegisterMailWindow                                time.Duration

	// Cluster: how nodes sharing one store hear of each other's commits (cluster.go).
	Bus bus.Config // --nats, --nats-listen, --nats-routes

	// Real-time: streams, agent mailbox, comments, files, views (realtime.go).
	Keepalive              time.Duration // SSE `: keepalive` and WebSocket ping interval (30 s; --keepalive)
	AgentRetention         int           // agent events kept per tenant (10,000; --agent-retention)
	AgentRetentionAge      time.Duration // agent events older than this are dropped (720h; --agent-retention-age)
	MaxUpload              int64         // largest file upload in bytes (25 MiB; --max-upload)
	PageUploadBudget       int64         // bytes of files one page holds, presigned uploads included (100 MiB; --page-upload-budget)
	UploadTTL              time.Duration // how long a presigned upload may take to complete (10 min)
	FileRetention          time.Duration // files outlive their page's end by this much (30 days; --file-retention)
	PageAnonComments       int           // comments a page takes from people not its own (1,000 of 10,000; --page-anon-comments)
	PresenceEvery          time.Duration // shortest interval between two presence frames of a page (1 s; --presence-every)
	SeenPerPage            int           // signed-in people whose last seen version a page keeps (1,000; --seen-per-page)
	AnonCommentsPerHour    int           // comments without a credential per client address per hour (60; --anon-comments-per-hour)
	AnonUploadBytesPerHour int64         // bytes presigned without a credential per client address per hour (256 MiB; --anon-upload-bytes-per-hour)

	// HTTP timeouts (Listen). A request's headers must arrive within
	// ReadHeaderTimeout and its whole body within ReadTimeout; an ordinary reply must
	// be written within WriteTimeout. Streams and file transfers lift them for
	// themselves (a stream once its headers are out, a transfer to 10 minutes).
	ReadHeaderTimeout time.Duration // 10 s
	ReadTimeout       time.Duration // 30 s
	WriteTimeout      time.Duration // 60 s
}

// Defaults fills zero fields.
func (c *Config) Defaults() {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:8080"
	}
	if c.DataDir == "" {
		c.DataDir = "./data"
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Addr
	}
	if c.PageBaseURL == "" {
		c.PageBaseURL = c.BaseURL
	}
	if c.ShortURLBase == "" {
		c.ShortURLBase = c.BaseURL
	}
	if c.AppURL == "" {
		c.AppURL = c.BaseURL
	}
	if c.DefaultPlan == "" {
		c.DefaultPlan = "free"
	}
	if c.DefaultTTL <= 0 {
		c.DefaultTTL = 7 * 24 * time.Hour
	}
	if c.MaxBody <= 0 {
		c.MaxBody = 1 << 20
	}
	if c.Limits == (page.Limits{}) {
		c.Limits = page.DefaultLimits
	}
	if c.EditBytes > 0 {
		c.Limits.EditBytes = c.EditBytes
	}
	if c.MaxLivePages == 0 {
		c.MaxLivePages = 10000
	}
	if c.IdleAfter <= 0 {
		c.IdleAfter = 2 * time.Minute
	}
	if c.ReadHeaderTimeout <= 0 {
		c.ReadHeaderTimeout = 10 * time.Second
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 60 * time.Second
	}
	for _, n := range []*int{&c.StreamsPerAddress, &c.StreamsPerCredential, &c.WaitsPerAddress, &c.WaitsPerCredential} {
		if *n == 0 {
			*n = 500
		}
	}
	if c.MaxOpen == 0 {
		c.MaxOpen = openCap(descriptorLimit())
	}
	if c.HeaderConnsPerAddress == 0 {
		c.HeaderConnsPerAddress = 256
	}
	if c.ExpiryEvery <= 0 {
		c.ExpiryEvery = 250 * time.Millisecond
	}
	if c.DeadlineEvery <= 0 {
		c.DeadlineEvery = c.ExpiryEvery
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
}

// Node is a running Folio.
type Node struct {
	Config   Config
	Store    *persistence.Store
	System   *actor.ActorSystem
	Pages    *registry.Registry
	Tenants  *registry.Registry
	Keys     *tenant.Keyring
	People   *people.Directory
	API      *httpapi.Server
	Registry *prometheus.Registry

	areas     []area
	bell      *inbox.Bell // rings people's streams on this node (inbox/bell.go)
	bus       *bus.Bus    // nil on a store of the node's own (cluster.go)
	stop      chan struct{}
	closeOnce sync.Once
	closeErr  error
	bg        sync.WaitGroup
	httpSrv   *http.Server
	listener  net.Listener
}

// Open builds a node on cfg.DataDir without listening yet.
func Open(cfg Config) (*Node, error) {
	cfg.Defaults()
	if _, ok := tenant.Plans[cfg.DefaultPlan]; !ok {
		return nil, fmt.Errorf("unknown default plan %q (free, pro, enterprise)", cfg.DefaultPlan)
	}
	auditKey, err := openAuditKey(cfg)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := newNodeMetrics(reg)
	store, err := persistence.OpenURL(cfg.Store, cfg.DataDir, persistence.Options{Observe: m.observeCommit, Retried: m.retried, ReadFault: cfg.ReadFault, NoAuditTree: cfg.NoAuditTree, PGLaterWait: cfg.PGLaterWait})
	if err != nil {
		return nil, err
	}
	log := cfg.Log
	// Stores written before stored bytes were counted are counted once, before any
	// page commits (actors/page/storage_migrate.go).
	if err := errors.Join(page.MigrateStorage(store), mailbox.MigrateStoredBytes(store)); err != nil {
		_ = store.Close()
		return nil, fmt.Errorf("count stored bytes: %w", err)
	}
	meters, err := actorMeters(reg)
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return log.With(slog.String("component", "protoactor"))
	}), actor.WithMetricProviders(meters))
	system.EventStream.Subscribe(func(ev any) {
		if se, ok := ev.(*actor.SupervisorEvent); ok {
			m.restarts.Inc()
			log.Error("actor failed and was restarted", slog.String("actor", se.Child.String()), slog.Any("reason", se.Reason))
		}
	})
	n := &Node{Config: cfg, Store: store, System: system, Registry: reg, stop: make(chan struct{})}
	if err := n.openBus(); err != nil {
		system.Shutdown()
		_ = store.Close()
		return nil, err
	}
	n.Keys = tenant.NewKeyring(store, cfg.Now)
	n.People = people.NewDirectory(store, cfg.Now, people.Lifetimes{Session: cfg.SessionTTL, Link: cfg.LinkTTL})
	hooks := registry.Hooks{Spawned: m.spawnedOne, Passivated: m.passivatedOne}
	pageDeps := &page.Deps{Store: store, Now: cfg.Now, Limits: cfg.Limits, DefaultTTL: cfg.DefaultTTL, Idle: cfg.IdleAfter, IdleDone: cfg.IdleAfterDone, Log: log,
		Files:        page.FileLimits{MaxBytes: cfg.MaxUpload, Budget: cfg.PageUploadBudget, UploadTTL: cfg.UploadTTL, Retention: cfg.FileRetention},
		OpenComments: cfg.PageAnonComments, PresenceEvery: cfg.PresenceEvery, SeenPerPage: cfg.SeenPerPage}
	n.Pages = registry.Start(system, "pages", page.NewProducer(pageDeps), registry.Options{Timeout: 10 * time.Second, Hooks: hooks, MaxLive: cfg.MaxLivePages})
	n.Tenants = registry.Start(system, "tenants", tenant.NewProducer(&tenant.Deps{Store: store, Keyring: n.Keys, Now: cfg.Now, Idle: cfg.IdleAfter}), registry.Options{Timeout: 10 * time.Second, Hooks: hooks})
	// Areas add their outlets before any page actor runs (actors spawn on the first
	// message, which cannot arrive before the API exists).
	rt, err := n.realtimeArea(pageDeps)
	if err != nil {
		if n.bus != nil {
			n.bus.Close()
		}
		system.Shutdown()
		_ = store.Close()
		return nil, err
	}
	n.bell = inbox.NewBell()
	delivery, mailer := n.deliveryArea(pageDeps)
	n.areas = []area{rt, delivery, n.contentArea(pageDeps), n.tenancyArea(pageDeps), n.signinArea(mailer), n.clusterArea(pageDeps)}
	for _, a := range n.areas {
		pageDeps.Outlets = append(pageDeps.Outlets, a.outlets...)
	}
	pageDeps.Outlets = append(pageDeps.Outlets, tenant.Usage{}, newEventCounter(reg))
	audit := auditLog(cfg, store, auditKey)
	// One set of admission rules for both faces: the review page's comment form and
	// POST /v1/pages/:id/comments spend one budget per address, and every stream
	// either face holds open counts against the same places.
	admit := admission.New(admission.Limits{Enforce: cfg.EnforceLimits, AnonCommentsPerHour: cfg.AnonCommentsPerHour,
		AnonUploadBytesPerHour: cfg.AnonUploadBytesPerHour, MaxBuckets: cfg.LimiterEntries, Open: openLimits(cfg)}, cfg.Now)
	n.API = httpapi.New(httpapi.Config{
		Store: store, Audit: audit, Pages: n.Pages, PageDeps: pageDeps, Tenants: n.Tenants, Keys: n.Keys, People: n.People, Now: cfg.Now,
		URLs:    httpapi.URLs{Base: cfg.BaseURL, PageBase: cfg.PageBaseURL, ShortBase: cfg.ShortURLBase, App: cfg.AppURL},
		MaxBody: cfg.MaxBody, DefaultPlan: cfg.DefaultPlan, Registry: reg, Log: log,
		TrustedProxies: cfg.TrustedProxies, Admit: admit,
	})
	for _, a := range n.areas {
		if a.mount != nil {
			a.mount(n.API)
		}
	}
	// The MCP server for agents at /mcp: its tools call this node's own API in
	// process, with the request's key (transport/mcp). Its sessions are bounded,
	// and counted per caller under the same address the API's limits use.
	mcpHandler := foliomcp.HTTPHandler(foliomcp.Options{BaseURL: cfg.BaseURL, HTTPClient: foliomcp.InProcess(n.API.Handler()),
		Sessions: cfg.MCPSessions, CallerAddress: n.API.ClientAddress, DecisionWait: cfg.MCPWait})
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "folio_mcp_sessions", Help: "MCP sessions open on /mcp (or being opened)."},
		func() float64 { return float64(mcpHandler.Open()) }))
	for _, m := range []string{"GET", "POST", "DELETE"} {
		n.API.HandleRefusable(m, "/mcp", func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
			// A tool call may wait minutes for a person's decision, streaming progress:
			// no write deadline, like the event streams.
			_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
			return mcpHandler.Serve(w, r)
		})
	}
	site := web.Config{Store: store, Pages: n.Pages, Tenants: n.Tenants, People: n.People, Audit: audit, Now: cfg.Now, API: n.API, Admit: admit,
		Credentials: n.API.Credentials(), ClientAddress: n.API.ClientAddress, FormTargets: formTargets(cfg), Log: log, MaxPageBytes: cfg.RenderMaxPageBytes,
		Bell: n.bell, NeedsRefresh: cfg.NeedsRefresh}
	for _, a := range n.areas {
		if a.site != nil {
			a.site(&site)
		}
	}
	web.Mount(n.API, site)

	n.bg.Add(2)
	go func() { defer n.bg.Done(); page.RunExpiry(pageDeps, n.Pages, cfg.ExpiryEvery, n.stop) }()
	n.bg.Add(1)
	go func() { defer n.bg.Done(); page.RunDeadlines(pageDeps, n.Pages, cfg.DeadlineEvery, n.stop) }()
	go func() { defer n.bg.Done(); n.Keys.RunFlusher(10*time.Second, n.stop) }()
	for _, a := range n.areas {
		if a.run != nil {
			run := a.run
			n.bg.Add(1)
			go func() { defer n.bg.Done(); run(n.stop) }()
		}
	}
	n.API.SetReady(true)
	return n, nil
}

// openCap is the default bound on streams and long-polls held open together: the
// descriptor limit less the headroom kept for everything else (the store, the
// API's and /healthz's connections, connections still sending headers): a quarter
// of the limit, at least 256 and at most half. 0 (unknown limit): none.
func openCap(limit int) int {
	if limit <= 0 {
		return -1
	}
	headroom := min(max(limit/4, 256), limit/2)
	return limit - headroom
}

// openLimits are the bounds on what clients hold open, as both faces take them: the
// per-client ones only when limits are enforced, none of them when negative.
func openLimits(cfg Config) admission.OpenLimits {
	pos := func(n int) int { return max(n, 0) }
	l := admission.OpenLimits{Max: pos(cfg.MaxOpen)}
	if cfg.EnforceLimits {
		l.StreamsPerAddress, l.StreamsPerCredential = pos(cfg.StreamsPerAddress), pos(cfg.StreamsPerCredential)
		l.WaitsPerAddress, l.WaitsPerCredential = pos(cfg.WaitsPerAddress), pos(cfg.WaitsPerCredential)
	}
	return l
}

// Handler is the node's HTTP handler.
func (n *Node) Handler() http.Handler { return n.API.Handler() }

// Listen binds the configured address (":0" picks a free port) and serves in the
// background. It returns the bound address.
func (n *Node) Listen() (string, error) {
	ln, err := net.Listen("tcp", n.Config.Addr)
	if err != nil {
		return "", err
	}
	guard := newHeaderGuard(ln, n.Config.HeaderConnsPerAddress, n.Config.TrustedProxies)
	ln = guard
	n.listener = ln
	n.httpSrv = &http.Server{Handler: n.Handler(), ReadHeaderTimeout: n.Config.ReadHeaderTimeout,
		ReadTimeout: n.Config.ReadTimeout, WriteTimeout: n.Config.WriteTimeout, IdleTimeout: 120 * time.Second,
		ConnState: guard.connState}
	// Answered long-polls come back for their next request (httpapi wait_parked.go).
	resumed := newResumeListener(ln.Addr())
	n.httpSrv.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return httpapi.WithResume(ctx, resumed.Resume)
	}
	go func() { _ = n.httpSrv.Serve(resumed) }()
	go func() {
		if err := n.httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.Config.Log.Error("http server stopped", slog.Any("err", err))
		}
	}()
	return ln.Addr().String(), nil
}

// Close drains in-flight requests (up to the context's deadline), stops the
// background loops and the actors, and closes the store cleanly. It is idempotent.
func (n *Node) Close(ctx context.Context) error {
	n.closeOnce.Do(func() { n.closeErr = n.close(ctx) })
	return n.closeErr
}

func (n *Node) close(ctx context.Context) error {
	n.API.SetReady(false)
	var first error
	if n.httpSrv != nil {
		if err := n.httpSrv.Shutdown(ctx); err != nil {
			first = err
		}
	}
	close(n.stop)
	n.bg.Wait()
	for _, a := range n.areas {
		if a.close != nil {
			a.close()
		}
	}
	n.System.Shutdown()
	if err := n.Store.Close(); err != nil && first == nil {
		first = err
	}
	return first
}
