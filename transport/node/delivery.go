package node

import (
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/callback"
	"folio/actors/inbox"
	"folio/actors/maillink"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/slack"
	"folio/persistence"
	"folio/transport/httpapi"
	"folio/transport/web"
)

// deliveryArea wires callbacks and notifications into the node: the outbox outlet (delivery rows
// in each event's commit), the callback dispatcher (re-armed from bbolt before the
// node reports healthy), and the routes of approval chains and the delivery log.
// The mailer is returned too: sign-in mails go through it (signin.go).
func (n *Node) deliveryArea(pd *page.Deps) (area, callback.Mailer) {
	cfg := n.Config
	pd.Limits.AllowPrivateCallbacks = cfg.AllowPrivateCallbacks
	pd.Limits.Deadlines = cfg.Deadlines
	from := cfg.SMTPFrom
	if from == "" {
		from = "Folio <folio@localhost>"
	}
	var mailer callback.Mailer = &callback.FileMailer{Dir: filepath.Join(cfg.DataDir, "outbox", "mail"), From: from, Log: cfg.Log}
	if cfg.SMTPAddr != "" {
		mailer = &callback.SMTPMailer{Addr: cfg.SMTPAddr, From: from, User: cfg.SMTPUser, Password: cfg.SMTPPassword}
	}
	outbox := &callback.Outbox{
		PageURL:  func(id string) string { return cfg.PageBaseURL + "/p/" + id },
		Schedule: cfg.CallbackSchedule,
	}
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "folio_delivery_attempts_total",
		Help: "Callback and notification attempts by channel and result (succeeded, failed: no more attempts, retry)."}, []string{"channel", "result"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "folio_delivery_attempt_seconds",
		Help: "Duration of one delivery attempt.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 9)}, []string{"channel"})
	n.Registry.MustRegister(attempts)
	n.Registry.MustRegister(latency)
	observe := func(d *callback.Delivery, a callback.Attempt) {
		result := "retry"
		if d.Status != callback.StatusPending {
			result = d.Status
		}
		attempts.WithLabelValues(d.Channel, result).Inc()
		latency.WithLabelValues(d.Channel).Observe(a.LatencyMS / 1000)
		if d.Status != callback.StatusPending { // the workspace's failed count may have moved
			n.bell.Ring(inbox.TenantKey(d.TenantID))
		}
	}
	sl := slackClient(cfg, n.Store)
	d, err := callback.Start(n.System, callback.Config{
		Store: n.Store, Pages: n.Pages, Clock: callback.RealClock(cfg.Now), AllowPrivate: cfg.AllowPrivateCallbacks,
		Timeout: cfg.CallbackTimeout, Mailer: mailer, Slack: sl,
		LinkURL: func(token string) string { return cfg.PageBaseURL + "/a/" + token },
		PageURL: func(id string) string { return cfg.PageBaseURL + "/p/" + id }, Log: cfg.Log.With(slog.String("component", "callback")), Observe: observe,
	})
	if err != nil {
		// Rows are still written with their events; they are sent after the next start.
		cfg.Log.Error("callback dispatcher did not start; deliveries wait for the next start", slog.Any("err", err))
		return area{outlets: []page.Outlet{outbox}}, mailer
	}
	outbox.Dispatcher = d
	for _, g := range []struct {
		name, help string
		read       func() float64
	}{
		{"folio_delivery_pending", "Deliveries held by the dispatcher (waiting, due or in flight).", func() float64 { p, _, _ := d.Stats(); return float64(p) }},
		{"folio_delivery_due_backlog", "Deliveries whose time has come but whose attempt has not started.", func() float64 { _, r, _ := d.Stats(); return float64(r) }},
		{"folio_delivery_in_flight", "Delivery attempts in flight.", func() float64 { _, _, f := d.Stats(); return float64(f) }},
	} {
		n.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: g.name, Help: g.help}, g.read))
	}
	return area{
		outlets: []page.Outlet{outbox},
		mount: func(api *httpapi.Server) {
			api.MountDelivery(httpapi.DeliveryDeps{Store: n.Store, Dispatcher: d})
			api.MountSlack(httpapi.SlackDeps{Store: n.Store, MaxBody: cfg.SlackMaxBody, Interactions: &slack.Service{
				API: sl, Pages: n.Pages, PageURL: outbox.PageURL, Now: cfg.Now, Log: cfg.Log.With(slog.String("component", "slack"))}})
		},
		site: func(c *web.Config) { c.Deliveries = d },
		// Decision links are forgotten a month after they expire (maillink.Kept),
		// swept hourly on every node (deleting is idempotent).
		run: func(stop <-chan struct{}) {
			registry.Every(time.Hour, stop, func() {
				if err := maillink.SweepAll(n.Store, cfg.Now(), 500); err != nil {
					cfg.Log.Warn("decision links not swept; the next sweep tries again", slog.Any("err", err))
				}
			})
		},
		close: d.Stop,
	}, mailer
}

// slackClient is the Slack Web API client of notifications and interactions: with
// --slack-api-url (a fake Slack in tests) a plain client; otherwise the dispatcher
// gives it the SSRF-guarded client of every delivery.
func slackClient(cfg Config, store *persistence.Store) *slack.Client {
	c := &slack.Client{BaseURL: cfg.SlackAPIURL, Store: store}
	if cfg.SlackAPIURL != "" {
		c.HTTP = &http.Client{Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return c
}
