package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"

	"folio/transport/web/render"
)

// policy is the Content-Security-Policy of every HTML page. Scripts and styles come
// only from this origin's hashed assets: no inline script, no inline style, no eval,
// so anything an agent manages to put into the markup is inert. Images and media may
// come from https: (agents link them); frames only from the video players the embed
// block frames, sandboxed (render.FrameOrigins); the page may not be framed itself. Forms post only to this origin,
// and may be redirected on to the sign-in providers this node has configured (the
// "Continue with …" buttons): formTargets are their origins.
func policy(formTargets []string) string {
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https:; media-src 'self' https:; " +
		"frame-src " + strings.Join(render.FrameOrigins, " ") + "; connect-src 'self'; font-src 'self'; form-action " + strings.Join(append([]string{"'self'"}, formTargets...), " ") +
		"; base-uri 'none'; frame-ancestors 'none'"
}

// pageHeaders are the headers of every HTML response. The page address is a
// capability (the link lets its holder read and act), so it must never leave in a
// Referer; a page's content is the viewer's own, never cached by a shared cache.
func (s *Site) pageHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", s.csp)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	if h.Get("Cache-Control") == "" { // a page may ask for more (no-store: a secret shown once)
		h.Set("Cache-Control", "private, no-cache")
	}
	h.Set("Vary", "Accept-Encoding, Cookie")
}

var gzipPool = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return w }}

// writeHTML sends a rendered page: with an ETag of its bytes (304 when the browser
// has them already) and gzipped when the browser accepts it.
func (s *Site) writeHTML(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	s.pageHeaders(w.Header())
	if status == http.StatusOK {
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:12]) + `"`
		w.Header().Set("ETag", etag)
		if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	if len(body) > 1024 && acceptsGzip(r) {
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(status)
		zw := gzipPool.Get().(*gzip.Writer)
		zw.Reset(w)
		_, _ = zw.Write(body)
		_ = zw.Close()
		gzipPool.Put(zw)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// bufPool holds the buffers pages are rendered into.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuf() *bytes.Buffer {
	b := bufPool.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		bufPool.Put(b)
	}
}
