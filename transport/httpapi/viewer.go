package httpapi

import (
	"net/http"
	"time"

	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
	"folio/transport/feed"
	"folio/transport/stream"
)

// RealtimeDeps wire the real-time routes: the page, comment and agent streams, the agent
// inbox, comments, files and views.
type RealtimeDeps struct {
	Hub       *stream.Hub
	Mailboxes *registry.Registry // one MailboxActor per tenant
	Blobs     *persistence.Blobs
	// MaxUpload is the largest file accepted (bytes; default 25 MiB).
	MaxUpload int64
	// DownloadTTL is the lifetime of a signed download address (default 5 minutes);
	// upload addresses live as long as the page's reservation (page.FileLimits).
	DownloadTTL time.Duration
	// ViewSalt salts the hash of client address + user agent that counts unique
	// viewers (no address is stored).
	ViewSalt []byte
}

// realtime is the mounted area; its handlers are methods so they share the deps.
type realtime struct {
	*Server
	d    RealtimeDeps
	feed *feed.Tenant // the agent stream (streams.go)
}

// MountRealtime registers the area's routes (routes.go).
func (s *Server) MountRealtime(d RealtimeDeps) {
	if d.MaxUpload <= 0 {
		d.MaxUpload = 25 << 20
	}
	if d.DownloadTTL <= 0 {
		d.DownloadTTL = 5 * time.Minute
	}
	s.rt = &realtime{Server: s, d: d, feed: &feed.Tenant{Hub: d.Hub, Mailboxes: d.Mailboxes, Store: s.store}}
	s.rt.routes()
}

// viewerWithBody reads who is asking (viewerOf), then decodes the JSON body into dst
// (which may be absent when optional); the first failure is the error.
func (rt *realtime) viewerWithBody(w http.ResponseWriter, r *http.Request, dst any, optional bool) (page.Viewer, error) {
	v, err := rt.viewerOf(r)
	if err != nil {
		return page.Viewer{}, err
	}
	if err := rt.decode(w, r, dst, optional); err != nil {
		return page.Viewer{}, err
	}
	return v, nil
}
