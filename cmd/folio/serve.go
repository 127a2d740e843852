package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"folio/actors/page"
	"folio/actors/tenant"
	"folio/persistence"
	"folio/transport/httpapi"
	"folio/transport/mcp"
	"folio/transport/node"
)

// env returns the environment twin of a flag, or def.
func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// envErrors collects environment values that did not parse. A command refuses to
// start while it holds any (envCheck): a mistyped FOLIO_IDLE_AFTER=2x must not
// quietly become the default.
var envErrors []error

// envCheck reports every unparsable environment value at once.
func envCheck() error { return errors.Join(envErrors...) }

func envParse[T any](name string, def T, parse func(string) (T, error), want string) T {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def
	}
	x, err := parse(v)
	if err != nil {
		envErrors = append(envErrors, fmt.Errorf("%s=%q is not %s; fix or unset it", name, v, want))
		return def
	}
	return x
}

func envDuration(name string, def time.Duration) time.Duration {
	return envParse(name, def, time.ParseDuration, "a duration (e.g. 90s, 2m, 1h30m)")
}

func envInt(name string, def int) int {
	return envParse(name, def, strconv.Atoi, "a whole number")
}

func envBool(name string, def bool) bool {
	return envParse(name, def, strconv.ParseBool, "true or false")
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c node.Config
	fs.StringVar(&c.Addr, "addr", env("FOLIO_ADDR", "127.0.0.1:8080"), "listen address (FOLIO_ADDR)")
	fs.StringVar(&c.DataDir, "data", env("FOLIO_DATA", "./data"), "data directory (FOLIO_DATA)")
	fs.StringVar(&c.Store, "store", env("FOLIO_STORE", ""), "where records are kept: bolt://DIR (default: bbolt in --data) or postgres://… for a PostgreSQL database, migrated at start (FOLIO_STORE)")
	fs.DurationVar(&c.PGLaterWait, "pg-later-wait", envDuration("FOLIO_PG_LATER_WAIT", persistence.DefaultPGLaterWait), "on a postgres:// --store, how long a write after the first of its group commit waits for a row another node holds before the group commits the writes before it and runs that one first in the next transaction (counted as busy in folio_store_retries_total); longer waits fewer splits but holds the group's locks longer; at least 1ms (FOLIO_PG_LATER_WAIT)")
	fs.StringVar(&c.Bus.URL, "nats", env("FOLIO_NATS", ""), "an external NATS cluster (nats://host:port,…) through which nodes sharing --store tell each other of commits (FOLIO_NATS); empty: --nats-listen's embedded server, or the periodic check alone")
	fs.StringVar(&c.Bus.Listen, "nats-listen", env("FOLIO_NATS_LISTEN", ""), "run a NATS server in this node and take routes from the other nodes on this host:port (FOLIO_NATS_LISTEN)")
	fs.StringVar(&c.Bus.Routes, "nats-routes", env("FOLIO_NATS_ROUTES", ""), "the other nodes' --nats-listen addresses, nats://host:port,… (FOLIO_NATS_ROUTES)")
	fs.DurationVar(&c.Bus.Check, "peer-check", envDuration("FOLIO_PEER_CHECK", 2*time.Second), "on a shared --store, how often open streams look in the store for events other nodes committed, in case a NATS doorbell was lost (FOLIO_PEER_CHECK)")
	fs.StringVar(&c.BaseURL, "base-url", env("FOLIO_BASE_URL", ""), "public base URL (FOLIO_BASE_URL; default http://<addr>)")
	fs.StringVar(&c.PageBaseURL, "page-base-url", env("FOLIO_PAGE_BASE_URL", ""), "base of pageUrl (FOLIO_PAGE_BASE_URL; default base-url)")
	fs.StringVar(&c.ShortURLBase, "short-url-base", env("FOLIO_SHORT_URL_BASE", ""), "base of shortUrl (FOLIO_SHORT_URL_BASE; default base-url)")
	fs.StringVar(&c.AppURL, "app-url", env("FOLIO_APP_URL", ""), "base of sign-in and claim links (FOLIO_APP_URL; default base-url)")
	fs.StringVar(&c.DefaultPlan, "default-plan", env("FOLIO_DEFAULT_PLAN", "free"), "plan of new tenants: free, pro, enterprise (FOLIO_DEFAULT_PLAN)")
	fs.DurationVar(&c.DefaultTTL, "default-ttl", envDuration("FOLIO_DEFAULT_TTL", 7*24*time.Hour), "default page lifetime (FOLIO_DEFAULT_TTL)")
	fs.DurationVar(&c.Deadlines.RemindFloor, "remind-min-interval", envDuration("FOLIO_REMIND_MIN_INTERVAL", page.DefaultDeadlineLimits.RemindFloor), "shortest remind.every_seconds a page may ask for; reminders are messages to people (FOLIO_REMIND_MIN_INTERVAL)")
	fs.IntVar(&c.Deadlines.RemindMax, "remind-max", envInt("FOLIO_REMIND_MAX", page.DefaultDeadlineLimits.RemindMax), "most reminders one deadline may ask for (remind.max) (FOLIO_REMIND_MAX)")
	fs.IntVar(&c.Deadlines.EscalateMax, "escalate-max", envInt("FOLIO_ESCALATE_MAX", page.DefaultDeadlineLimits.EscalateMax), "most identities one on_timeout.escalate_to may name (FOLIO_ESCALATE_MAX)")
	fs.BoolVar(&c.AllowPrivateCallbacks, "allow-private-callbacks", envBool("FOLIO_ALLOW_PRIVATE_CALLBACKS", false), "allow callbacks to private and loopback addresses (FOLIO_ALLOW_PRIVATE_CALLBACKS)")
	fs.DurationVar(&c.CallbackTimeout, "callback-timeout", envDuration("FOLIO_CALLBACK_TIMEOUT", 30*time.Second), "how long one callback attempt may take; on a shared --store another node takes over a delivery whose node died mid-attempt after twice this (FOLIO_CALLBACK_TIMEOUT)")
	fs.StringVar(&c.SMTPAddr, "smtp-addr", env("FOLIO_SMTP_ADDR", ""), "SMTP server host:port for e-mail notifications; empty: log them and write <data>/outbox/mail (FOLIO_SMTP_ADDR)")
	fs.StringVar(&c.SMTPFrom, "smtp-from", env("FOLIO_SMTP_FROM", "Folio <folio@localhost>"), "From address of e-mail notifications (FOLIO_SMTP_FROM)")
	fs.StringVar(&c.SMTPUser, "smtp-user", env("FOLIO_SMTP_USER", ""), "SMTP user name; AUTH PLAIN when set (FOLIO_SMTP_USER)")
	fs.StringVar(&c.SMTPPassword, "smtp-password", env("FOLIO_SMTP_PASSWORD", ""), "SMTP password (FOLIO_SMTP_PASSWORD)")
	fs.StringVar(&c.SlackAPIURL, "slack-api-url", env("FOLIO_SLACK_API_URL", ""), "base URL of the Slack Web API for slack notifications to a channel id and button clicks (chat.postMessage, chat.update, users.info); empty: https://slack.com/api through the callback address guard. Set it only to a fake Slack in tests: it is then reached without the guard, and response_url must share its origin (FOLIO_SLACK_API_URL)")
	fs.Int64Var(&c.SlackMaxBody, "slack-max-body", int64(envInt("FOLIO_SLACK_MAX_BODY", 256<<10)), "largest body of a Slack interaction (POST /v1/integrations/slack/interactions) in bytes; larger is 413 (FOLIO_SLACK_MAX_BODY)")
	fs.IntVar(&c.EditBytes, "max-edit-bytes", envInt("FOLIO_MAX_EDIT_BYTES", page.DefaultEditBytes), "most bytes of data a block may hold after a reviewer's edit sent with an approval; an editable block published over it is stored not editable (FOLIO_MAX_EDIT_BYTES)")
	fs.Int64Var(&c.MaxBody, "max-body", int64(envInt("FOLIO_MAX_BODY", 1<<20)), "largest request body in bytes (FOLIO_MAX_BODY)")
	fs.BoolVar(&c.EnforceLimits, "enforce-limits", envBool("FOLIO_ENFORCE_LIMITS", true), "enforce plan request rates, per-address limits, monthly page quotas and storage quotas (FOLIO_ENFORCE_LIMITS)")
	planSpecs := fs.String("plan", env("FOLIO_PLANS", ""), "override plans: name=requests_per_minute/pages_per_month[/storage][,…], 0 = unlimited, storage in bytes or KiB/MiB/GiB/TiB (files and agent event log; built-in: free 1GiB, pro 50GiB, enterprise unlimited), e.g. enterprise=6000/100000,free=60/100/2GiB (FOLIO_PLANS)")
	fs.IntVar(&c.AnonPerMinute, "anon-rpm", envInt("FOLIO_ANON_RPM", 120), "unauthenticated requests per minute per client address (FOLIO_ANON_RPM)")
	fs.IntVar(&c.RegisterPerMinute, "register-rpm", envInt("FOLIO_REGISTER_RPM", 10), "agent registrations per minute per client address (FOLIO_REGISTER_RPM)")
	fs.DurationVar(&c.MCPSessions.Idle, "mcp-session-idle", envDuration("FOLIO_MCP_SESSION_IDLE", 30*time.Minute), "an MCP session on /mcp with no request for this long ends (a tool call still running is not idle); its client starts a new one (FOLIO_MCP_SESSION_IDLE)")
	fs.IntVar(&c.MCPSessions.PerCaller, "mcp-sessions-per-caller", envInt("FOLIO_MCP_SESSIONS_PER_CALLER", 50), "MCP sessions on /mcp one client address holds open at once; past it a new session is refused with 429 and Retry-After (FOLIO_MCP_SESSIONS_PER_CALLER)")
	fs.IntVar(&c.MCPSessions.Max, "mcp-sessions", envInt("FOLIO_MCP_SESSIONS", 2000), "MCP sessions on /mcp this node holds open at once; past it a new session is refused with 503 and Retry-After (FOLIO_MCP_SESSIONS)")
	fs.StringVar(&c.MCPSessions.Node, "node-name", env("FOLIO_NODE_NAME", ""), "this node's name among the nodes behind one balancer (letters, digits, - or _): its MCP session ids start with it and a dot, so the balancer sends a session's requests to this node (docs/nginx/folio.conf); empty: random ids (FOLIO_NODE_NAME)")
	trusted := fs.String("trusted-proxies", env("FOLIO_TRUSTED_PROXIES", ""), "comma-separated CIDRs of the proxies in front of this node (e.g. 10.0.0.0/8,fd00::/8): from a connection out of them the client address is read from X-Forwarded-For (from the right, skipping trusted hops) and the scheme from X-Forwarded-Proto; empty: no header is believed, the client is the TCP peer (FOLIO_TRUSTED_PROXIES)")
	fs.IntVar(&c.PersonPerMinute, "person-rpm", envInt("FOLIO_PERSON_RPM", 600), "requests per minute of one signed-in person (FOLIO_PERSON_RPM)")
	fs.IntVar(&c.LimiterEntries, "limiter-entries", envInt("FOLIO_LIMITER_ENTRIES", 100000), "buckets each request-rate limiter keeps in memory at most (FOLIO_LIMITER_ENTRIES)")
	fs.IntVar(&c.LinksPerEmail, "signin-links-per-email", envInt("FOLIO_SIGNIN_LINKS_PER_EMAIL", 5), "sign-in mails per e-mail address per --signin-window, always on (FOLIO_SIGNIN_LINKS_PER_EMAIL)")
	fs.IntVar(&c.LinksPerClient, "signin-links-per-address", envInt("FOLIO_SIGNIN_LINKS_PER_ADDRESS", 20), "sign-in mails requested per client address per --signin-window, always on (FOLIO_SIGNIN_LINKS_PER_ADDRESS)")
	fs.IntVar(&c.ClaimsPerClient, "claims-per-address", envInt("FOLIO_CLAIMS_PER_ADDRESS", 10), "attempts to claim an agent's account per client address per --signin-window, always on (FOLIO_CLAIMS_PER_ADDRESS)")
	fs.IntVar(&c.ClaimsPerPerson, "claims-per-person", envInt("FOLIO_CLAIMS_PER_PERSON", 10), "attempts to claim an agent's account per signed-in person per --signin-window, always on (FOLIO_CLAIMS_PER_PERSON)")
	fs.DurationVar(&c.SignInWindow, "signin-window", envDuration("FOLIO_SIGNIN_WINDOW", 15*time.Minute), "the window the sign-in mail and claim limits count over (FOLIO_SIGNIN_WINDOW)")
	fs.IntVar(&c.StreamsPerAddress, "streams-per-address", envInt("FOLIO_STREAMS_PER_ADDRESS", 500), "event streams (SSE, WebSocket) one client address may hold open; past it 429 (with --enforce-limits; -1: no bound) (FOLIO_STREAMS_PER_ADDRESS)")
	fs.IntVar(&c.StreamsPerCredential, "streams-per-credential", envInt("FOLIO_STREAMS_PER_CREDENTIAL", 500), "event streams one API key or session may hold open; past it 429 (with --enforce-limits; -1: no bound) (FOLIO_STREAMS_PER_CREDENTIAL)")
	fs.IntVar(&c.WaitsPerAddress, "waits-per-address", envInt("FOLIO_WAITS_PER_ADDRESS", 500), "GET /v1/pages/:id/wait one client address may hold open; past it 429 (with --enforce-limits; -1: no bound) (FOLIO_WAITS_PER_ADDRESS)")
	fs.IntVar(&c.WaitsPerCredential, "waits-per-credential", envInt("FOLIO_WAITS_PER_CREDENTIAL", 500), "GET /v1/pages/:id/wait one API key may hold open; past it 429 (with --enforce-limits; -1: no bound) (FOLIO_WAITS_PER_CREDENTIAL)")
	fs.IntVar(&c.MaxOpen, "max-open-streams", envInt("FOLIO_MAX_OPEN_STREAMS", 0), "event streams and waits this node holds open at most, past it 503; 0: the descriptor limit (ulimit -n) less a quarter of it (at least 256, at most half) kept so /healthz and the API still answer; -1: no bound (FOLIO_MAX_OPEN_STREAMS)")
	fs.IntVar(&c.HeaderConnsPerAddress, "header-conns-per-address", envInt("FOLIO_HEADER_CONNS_PER_ADDRESS", 256), "connections of one client address still sending a request's headers or idle between requests; a new one past it is answered 429 and closed (trusted proxies exempt; -1: no bound) (FOLIO_HEADER_CONNS_PER_ADDRESS)")
	fs.DurationVar(&c.ReadHeaderTimeout, "read-header-timeout", envDuration("FOLIO_READ_HEADER_TIMEOUT", 10*time.Second), "a request's headers must arrive within this long (FOLIO_READ_HEADER_TIMEOUT)")
	fs.DurationVar(&c.MCPWait, "mcp-wait", envDuration("FOLIO_MCP_WAIT", foliomcp.DefaultDecisionWait), "one request_approval or wait_for_decision call on /mcp waits at most this long, then answers status pending (the agent calls wait_for_decision again); keep it below the MCP clients' request timeout, 60s by default in the official TypeScript SDK (FOLIO_MCP_WAIT)")
	fs.StringVar(&c.AuditKeyFile, "audit-key-file", env("FOLIO_AUDIT_KEY_FILE", ""), "the Ed25519 signed-note key (PRIVATE+KEY+name+hash+key) that signs audit checkpoints; must exist. Empty: <data>/audit.key, created at first start (0600) with its public key in audit.key.pub; nodes sharing --store must be given the same file (FOLIO_AUDIT_KEY_FILE)")
	fs.StringVar(&c.AdminToken, "admin-token", env("FOLIO_ADMIN_TOKEN", ""), "enable the /v1/admin endpoints for this bearer token (FOLIO_ADMIN_TOKEN)")
	fs.DurationVar(&c.IdleAfter, "idle-after", envDuration("FOLIO_IDLE_AFTER", 2*time.Minute), "an entity actor (page, tenant, mailbox) with no message and no live subscriber for this long is passivated; it reloads from storage on its next message (FOLIO_IDLE_AFTER)")
	fs.DurationVar(&c.IdleAfterDone, "idle-after-done", envDuration("FOLIO_IDLE_AFTER_DONE", 5*time.Second), "a completed, revoked or expired page with no message and no live viewer for this long is passivated (at most --idle-after; 0: --idle-after) (FOLIO_IDLE_AFTER_DONE)")
	fs.IntVar(&c.MaxLivePages, "max-live-pages", envInt("FOLIO_MAX_LIVE_PAGES", 10000), "page actors kept in memory at most; past it the least recently used page without live subscribers is passivated and reloads from storage on its next message; -1: no bound (FOLIO_MAX_LIVE_PAGES)")
	fs.DurationVar(&c.NeedsRefresh, "needs-refresh", envDuration("FOLIO_NEEDS_REFRESH", 15*time.Second), "how often a signed-in person's stream (GET /decide/stream: browser notifications and navigation counts on every screen) reads their \"Needs my decision\" list and counts again when nothing rang on this node; a change committed on this node is sent at once, one on another node of a shared --store within this (FOLIO_NEEDS_REFRESH)")
	fs.IntVar(&c.RenderMaxPageBytes, "render-max-page-bytes", envInt("FOLIO_RENDER_MAX_PAGE_BYTES", 4<<20), "bytes of HTML the blocks of one review page draw at most (each block also at most 8× its stored data + 32 KiB, charts and heatmaps 64×); past it the page says \"Content truncated\" and how many blocks it left out (FOLIO_RENDER_MAX_PAGE_BYTES)")
	fs.DurationVar(&c.Keepalive, "keepalive", envDuration("FOLIO_KEEPALIVE", 30*time.Second), "SSE keepalive comment and WebSocket ping interval (FOLIO_KEEPALIVE)")
	fs.IntVar(&c.AgentRetention, "agent-retention", envInt("FOLIO_AGENT_RETENTION", 10000), "agent events kept per tenant for replay and the inbox (FOLIO_AGENT_RETENTION)")
	fs.DurationVar(&c.AgentRetentionAge, "agent-retention-age", envDuration("FOLIO_AGENT_RETENTION_AGE", 30*24*time.Hour), "agent events older than this are dropped (FOLIO_AGENT_RETENTION_AGE)")
	fs.Int64Var(&c.MaxUpload, "max-upload", int64(envInt("FOLIO_MAX_UPLOAD", 25<<20)), "largest file upload in bytes (FOLIO_MAX_UPLOAD)")
	fs.Int64Var(&c.PageUploadBudget, "page-upload-budget", int64(envInt("FOLIO_PAGE_UPLOAD_BUDGET", 100<<20)),
		"bytes of files one page may hold, presigned uploads included (FOLIO_PAGE_UPLOAD_BUDGET)")
	fs.DurationVar(&c.FileRetention, "file-retention", envDuration("FOLIO_FILE_RETENTION", 30*24*time.Hour), "a page's files are deleted this long after the page ends (completed, revoked or expired), and stop counting against the storage quota (FOLIO_FILE_RETENTION)")
	fs.DurationVar(&c.PresenceEvery, "presence-every", envDuration("FOLIO_PRESENCE_EVERY", page.DefaultPresenceEvery), "shortest interval between two presence frames of one page (who else has it open), however many people come and go (FOLIO_PRESENCE_EVERY)")
	fs.IntVar(&c.SeenPerPage, "seen-per-page", envInt("FOLIO_SEEN_PER_PAGE", page.DefaultSeenPerPage), "signed-in people whose last seen version of a page is kept, per page, to mark what changed since on their next visit; past it the record written longest ago is forgotten (FOLIO_SEEN_PER_PAGE)")
	fs.IntVar(&c.PageAnonComments, "page-anon-comments", envInt("FOLIO_PAGE_ANON_COMMENTS", 1000), "comments one page takes from people who are not its own (anonymous, signed in but not named by its access, other workspaces' keys); the rest of its 10,000 stay for its own people (FOLIO_PAGE_ANON_COMMENTS)")
	fs.IntVar(&c.AnonCommentsPerHour, "anon-comments-per-hour", envInt("FOLIO_ANON_COMMENTS_PER_HOUR", 60), "comments without a credential per client address per hour, across all pages, with --enforce-limits (FOLIO_ANON_COMMENTS_PER_HOUR)")
	fs.Int64Var(&c.AnonUploadBytesPerHour, "anon-upload-bytes-per-hour", int64(envInt("FOLIO_ANON_UPLOAD_BYTES_PER_HOUR", 256<<20)), "bytes of uploads presigned without a credential per client address per hour, across all pages, with --enforce-limits (FOLIO_ANON_UPLOAD_BYTES_PER_HOUR)")
	fs.StringVar(&c.GitHub.ClientID, "github-client-id", env("FOLIO_GITHUB_CLIENT_ID", ""), "OAuth client id of the GitHub app people sign in with; empty: GitHub sign-in off (FOLIO_GITHUB_CLIENT_ID)")
	fs.StringVar(&c.GitHub.ClientSecret, "github-client-secret", env("FOLIO_GITHUB_CLIENT_SECRET", ""), "its client secret (FOLIO_GITHUB_CLIENT_SECRET)")
	fs.StringVar(&c.GitHub.AuthURL, "github-auth-url", env("FOLIO_GITHUB_AUTH_URL", ""), "GitHub's authorize endpoint (FOLIO_GITHUB_AUTH_URL; default https://github.com/login/oauth/authorize)")
	fs.StringVar(&c.GitHub.TokenURL, "github-token-url", env("FOLIO_GITHUB_TOKEN_URL", ""), "GitHub's token endpoint (FOLIO_GITHUB_TOKEN_URL; default https://github.com/login/oauth/access_token)")
	fs.StringVar(&c.GitHub.APIURL, "github-api-url", env("FOLIO_GITHUB_API_URL", ""), "GitHub's REST API (FOLIO_GITHUB_API_URL; default https://api.github.com)")
	fs.StringVar(&c.Google.ClientID, "google-client-id", env("FOLIO_GOOGLE_CLIENT_ID", ""), "OAuth client id for Google sign-in; empty: Google sign-in off (FOLIO_GOOGLE_CLIENT_ID)")
	fs.StringVar(&c.Google.ClientSecret, "google-client-secret", env("FOLIO_GOOGLE_CLIENT_SECRET", ""), "its client secret (FOLIO_GOOGLE_CLIENT_SECRET)")
	fs.StringVar(&c.Google.Issuer, "google-issuer", env("FOLIO_GOOGLE_ISSUER", ""), "the OpenID Connect issuer (FOLIO_GOOGLE_ISSUER; default https://accounts.google.com)")
	fs.DurationVar(&c.SessionTTL, "session-ttl", envDuration("FOLIO_SESSION_TTL", 30*24*time.Hour), "a person's session ends after this long unused (FOLIO_SESSION_TTL)")
	fs.DurationVar(&c.LinkTTL, "link-ttl", envDuration("FOLIO_LINK_TTL", 15*time.Minute), "an e-mailed sign-in link works once, within this long (FOLIO_LINK_TTL)")
	fs.IntVar(&c.ClaimFailureBudget, "claim-failure-budget", envInt("FOLIO_CLAIM_FAILURE_BUDGET", 100), "failed claim attempts (wrong claim code and token, or key) allowed per 15 minutes across all clients; once spent every claim by code or key is refused (429) until it refills, and folio_claim_budget_exhausted is 1; -1: no budget (FOLIO_CLAIM_FAILURE_BUDGET)")
	fs.IntVar(&c.RegisterMailsPerRecipient, "register-mails-per-recipient", envInt("FOLIO_REGISTER_MAILS_PER_RECIPIENT", 3), "claim mails sent at agent registration (owner_email) to one address per --register-mail-window; past it the registration succeeds without the mail (FOLIO_REGISTER_MAILS_PER_RECIPIENT)")
	fs.IntVar(&c.RegisterMailsPerClient, "register-mails-per-client", envInt("FOLIO_REGISTER_MAILS_PER_CLIENT", 10), "claim mails sent at agent registration on behalf of one client address per --register-mail-window (FOLIO_REGISTER_MAILS_PER_CLIENT)")
	fs.DurationVar(&c.RegisterMailWindow, "register-mail-window", envDuration("FOLIO_REGISTER_MAIL_WINDOW", 24*time.Hour), "the window of --register-mails-per-recipient and --register-mails-per-client (FOLIO_REGISTER_MAIL_WINDOW)")
	logLevel := fs.String("log-level", env("FOLIO_LOG_LEVEL", "info"), "debug, info, warn, error (FOLIO_LOG_LEVEL)")
	pprofAddr := fs.String("pprof", env("FOLIO_PPROF", ""), "serve net/http/pprof on this loopback address, e.g. 127.0.0.1:6060 (FOLIO_PPROF)")
	gcPercent := fs.Int("gc-percent", envInt("FOLIO_GC_PERCENT", 100), "how far the heap grows over its live part between collections, in percent: Go's GOGC (FOLIO_GC_PERCENT; GOGC, when set, wins). 400 takes 18-36% more writes/s on a saturated node for about twice the memory under load; -1: no collection but what --memory-limit-mib forces")
	memLimit := fs.Int("memory-limit-mib", envInt("FOLIO_MEMORY_LIMIT_MIB", 0), "a soft ceiling on the process's memory in MiB: near it the collector runs more often; 0: none. Go's GOMEMLIMIT (FOLIO_MEMORY_LIMIT_MIB; GOMEMLIMIT, when set, wins)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := envCheck(); err != nil {
		return err
	}
	if err := foliomcp.CheckNodeName(c.MCPSessions.Node); err != nil {
		return fmt.Errorf("--node-name: %w", err)
	}
	if c.PGLaterWait < time.Millisecond {
		return fmt.Errorf("--pg-later-wait is %v: give at least 1ms (PostgreSQL's lock_timeout counts in milliseconds, and 0 would wait for ever)", c.PGLaterWait)
	}
	proxies, err := httpapi.ParseTrustedProxies(*trusted)
	if err != nil {
		return fmt.Errorf("--trusted-proxies: %w", err)
	}
	c.TrustedProxies = proxies
	c.Bus.DieBeforeRing = os.Getenv("FOLIO_TEST_FAULT") == "die-before-doorbell" // for the chaos test only
	setCollector(*gcPercent, *memLimit)
	if *planSpecs != "" {
		plans, err := tenant.ParsePlanSpecs(*planSpecs)
		if err != nil {
			return fmt.Errorf("--plan: %w", err)
		}
		c.PlanLimits = plans
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	c.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	node, err := node.Open(c)
	if err != nil {
		return err
	}
	addr, err := node.Listen()
	if err != nil {
		_ = node.Close(context.Background())
		return err
	}
	c.Log.Info("folio listening", slog.String("addr", addr), slog.String("data", node.Config.DataDir), slog.String("base_url", node.Config.BaseURL))
	if *pprofAddr != "" {
		if err := servePprof(*pprofAddr, c.Log); err != nil {
			_ = node.Close(context.Background())
			return err
		}
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	c.Log.Info("shutting down: draining requests")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := node.Close(ctx); err != nil {
		return err
	}
	c.Log.Info("stopped cleanly")
	return nil
}
