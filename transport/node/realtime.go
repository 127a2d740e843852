package node

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/mailbox"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
	"folio/transport/bus"
	"folio/transport/feed"
	"folio/transport/httpapi"
	"folio/transport/stream"
	"folio/transport/web"
)

// realtimeArea wires the real-time area into the node: the agent mailbox (its outlet
// writes every page event to the tenant's log inside the page's commit, and one
// MailboxActor per tenant pushes them to agent-stream subscribers), the stream hub
// (SSE and WebSocket writers for the page, comment and agent streams), the blob
// store for files, and the routes for comments, files and views. The retention
// sweep runs every minute; the hub closes every stream when the node closes.
func (n *Node) realtimeArea(pd *page.Deps) (area, error) {
	cfg := n.Config
	blobs, err := persistence.OpenBlobs(n.Store, cfg.DataDir)
	if err != nil {
		return area{}, fmt.Errorf("open the file store under %s: %w", cfg.DataDir, err)
	}
	salt, err := n.Store.Secret("view-salt")
	if err != nil {
		return area{}, fmt.Errorf("read the view salt: %w", err)
	}
	retention := mailbox.DefaultRetention
	if cfg.AgentRetention > 0 {
		retention.MaxEvents = cfg.AgentRetention
	}
	if cfg.AgentRetentionAge > 0 {
		retention.MaxAge = cfg.AgentRetentionAge
	}
	pd.Blobs = blobs // a page removes the bytes of files past their retention
	listening := mailbox.NewListening()
	md := &mailbox.Deps{Store: n.Store, Now: cfg.Now, Retention: retention, Idle: cfg.IdleAfter, Log: cfg.Log, Listening: listening}
	mailboxes := registry.Start(n.System, "mailboxes", mailbox.NewProducer(md), registry.Options{Timeout: 10 * time.Second})
	if n.bus != nil { // other nodes' commits of the tenant (cluster.go)
		md.Watch = bus.WatchTenant(n.bus, mailboxes)
	}
	hub := stream.NewHub(stream.Options{Keepalive: cfg.Keepalive})
	n.Registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "folio_stream_subscribers", Help: "Open stream connections by transport.", ConstLabels: prometheus.Labels{"transport": "sse"}},
			func() float64 { sse, _ := hub.SubscribersByTransport(); return float64(sse) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "folio_stream_subscribers", Help: "Open stream connections by transport.", ConstLabels: prometheus.Labels{"transport": "ws"}},
			func() float64 { _, ws := hub.SubscribersByTransport(); return float64(ws) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "folio_stream_frames_delivered_total", Help: "Event frames written to stream clients."},
			func() float64 { return float64(hub.Delivered()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "folio_stream_dropped_total", Help: "Stream clients disconnected for falling behind."},
			func() float64 { return float64(hub.Dropped()) }),
	)
	return area{
		outlets: []page.Outlet{&mailbox.Outlet{Retention: retention, Mailboxes: mailboxes, Listening: listening}},
		mount: func(api *httpapi.Server) {
			api.MountRealtime(httpapi.RealtimeDeps{Hub: hub, Mailboxes: mailboxes, Blobs: blobs, MaxUpload: cfg.MaxUpload, ViewSalt: salt})
		},
		// The dashboard follows the workspace's stream as the agent stream is served.
		site: func(c *web.Config) { c.Feed = &feed.Tenant{Hub: hub, Mailboxes: mailboxes, Store: n.Store} },
		run: func(stop <-chan struct{}) {
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); page.RunBlobSweep(pd, blobs, 5*time.Minute, stop) }()
			go func() {
				defer wg.Done()
				page.RunFileRetention(pd, n.Pages, fileRetentionEvery(cfg.FileRetention), stop)
			}()
			mailbox.RunRetention(md, time.Minute, stop)
			wg.Wait()
		},
		close: hub.Close,
	}, nil
}

// fileRetentionEvery is how often the files' due index is scanned: a tenth of the
// retention, at least every minute and at most every 250 ms.
func fileRetentionEvery(retention time.Duration) time.Duration {
	if retention <= 0 {
		retention = page.DefaultFileLimits.Retention
	}
	return min(max(retention/10, 250*time.Millisecond), time.Minute)
}
