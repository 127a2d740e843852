package foliomcp

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
)

// handlerTransport is an http.RoundTripper that serves each request with an
// http.Handler in this process: the MCP endpoint mounted on a node reaches the
// node's own API without a network hop, through exactly the routes an agent calls.
// Responses stream (a wait that holds for minutes answers when it answers).
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, body: pw, pr: pr, ready: make(chan struct{}), req: req}
	go func() {
		defer func() { _ = pw.Close() }()
		defer w.writeHeaderOnce(http.StatusOK) // a handler that wrote nothing answered 200
		in := req.Clone(req.Context())
		if addr := callerOf(req.Context()); addr != "" {
			// The request is the caller's own (a tool call of their /mcp
			// session): the API's per-address limits count it under their
			// address, not under this process's.
			in.RemoteAddr = remoteAddrOf(addr)
		}
		t.h.ServeHTTP(w, in)
	}()
	select {
	case <-w.ready:
		return w.res, nil
	case <-req.Context().Done():
		_ = pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
}

// pipeWriter is the handler's side: the status and headers become the response
// once written, the body streams through the pipe.
type pipeWriter struct {
	header http.Header
	body   *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
	res    *http.Response
	req    *http.Request
	pr     *io.PipeReader
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) { w.writeHeaderOnce(status) }

func (w *pipeWriter) writeHeaderOnce(status int) {
	w.once.Do(func() {
		w.res = &http.Response{StatusCode: status, Status: http.StatusText(status), Header: w.header.Clone(),
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Request: w.req, ContentLength: -1, Body: w.pr}
		close(w.ready)
	})
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.writeHeaderOnce(http.StatusOK)
	return w.body.Write(b)
}

// Flush is a no-op: every Write already reaches the reader.
func (w *pipeWriter) Flush() {}

// remoteAddrOf is a RemoteAddr (host:port) for a caller address: an address as it
// is, a prefix (an IPv6 client's /64) as its first address, which the API's
// per-address key maps back onto the same prefix.
func remoteAddrOf(caller string) string {
	if p, err := netip.ParsePrefix(caller); err == nil {
		caller = p.Masked().Addr().String()
	}
	return net.JoinHostPort(caller, "0")
}
