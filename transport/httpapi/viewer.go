package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
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
	d RealtimeDeps
}

// MountRealtime registers the area's routes.
func (s *Server) MountRealtime(d RealtimeDeps) {
	if d.MaxUpload <= 0 {
		d.MaxUpload = 25 << 20
	}
	if d.DownloadTTL <= 0 {
		d.DownloadTTL = 5 * time.Minute
	}
	rt := &realtime{Server: s, d: d}

	s.Handle("GET", "/v1/pages/:id/events", rt.pageEvents)
	s.Handle("GET", "/v1/pages/:id/comments/stream", rt.commentStream)
	s.Handle("GET", "/v1/agent/events", s.requireKey(rt.agentEvents))
	s.Handle("GET", "/v1/agent/inbox", s.requireKey(rt.agentInbox))
	s.Handle("GET", "/v1/agent/inbox/count", s.requireKey(rt.agentInboxCount))
	s.Handle("POST", "/v1/events/:id/ack", s.requireKey(rt.ack))
	s.Handle("GET", "/v1/pages/:id/agent-events", s.requireKey(rt.pageAgentEvents))

	s.Handle("POST", "/v1/pages/:id/comments", rt.addComment)
	s.Handle("GET", "/v1/pages/:id/comments", rt.listComments)
	s.Handle("PATCH", "/v1/pages/:id/comments/:commentId", rt.editComment)
	s.Handle("DELETE", "/v1/pages/:id/comments/:commentId", rt.deleteComment)

	s.Handle("POST", "/v1/pages/:id/files/presign", rt.presign)
	s.Handle("PUT", "/v1/storage/upload/*path", rt.upload)
	s.Handle("POST", "/v1/pages/:id/files/complete", rt.completeUpload)
	s.Handle("GET", "/v1/pages/:id/files", rt.listFiles)
	s.Handle("GET", "/v1/pages/:id/files/:fileId/download", rt.download)
	s.Handle("GET", "/v1/storage/download/*path", rt.serveBlob)
	s.Handle("DELETE", "/v1/pages/:id/files/:fileId", s.requireKey(rt.deleteFile))

	s.Handle("POST", "/internal/pages/:id/view", rt.countView)
	s.Handle("GET", "/v1/pages/:id/analytics", s.requireKey(rt.analytics))
}

// ViewerOf is viewerOf for the pages people open (transport/web).
func (s *Server) ViewerOf(r *http.Request) (page.Viewer, error) { return s.viewerOf(r) }

// viewerOf reads the optional API key of a route open to people holding the page
// link: none is an anonymous viewer; one that is present but invalid is 401.
func (s *Server) viewerOf(r *http.Request) (page.Viewer, error) {
	token, ok := bearer(r)
	if !ok {
		return page.Viewer{}, nil
	}
	who, ok := principalFrom(r)
	if !ok {
		who, ok = s.keys.Authenticate(token)
	}
	if !ok {
		return page.Viewer{}, fault.New(fault.Unauthorized, "the API key is invalid or was revoked", nil)
	}
	return page.Viewer{TenantID: who.TenantID, Agent: who.Agent(), KeyID: who.KeyID}, nil
}

// askPageAs sends a message to a page actor and expects a reply of type T.
func askPageAs[T any](s *Server, id string, msg any) (T, error) {
	var zero T
	if id == "" || len(id) > 64 {
		return zero, fault.Missing("page", id)
	}
	return ask[T](s, s.pages, id, msg)
}

// pageParams reads limit (1..max, default def) and offset.
func pageParams(r *http.Request, def, maxLimit int) (limit, offset int, err error) {
	q := r.URL.Query()
	if limit, err = intParam(q.Get("limit"), "limit", def, 1, maxLimit); err != nil {
		return 0, 0, err
	}
	offset, err = intParam(q.Get("offset"), "offset", 0, 0, 1<<31-1)
	return limit, offset, err
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// viewerWithBody reads who is asking (viewerOf) and decodes the JSON body into dst
// (which may be absent when optional). On failure it has answered with the error and
// ok is false.
func (rt *realtime) viewerWithBody(w http.ResponseWriter, r *http.Request, dst any, optional bool) (page.Viewer, bool) {
	v, err := rt.viewerOf(r)
	if err == nil {
		err = rt.decode(w, r, dst, optional)
	}
	if err != nil {
		rt.writeError(w, r, err)
		return page.Viewer{}, false
	}
	return v, true
}
