package stream

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gobwas/ws"

	"folio/actors/model/frame"
)

// The handshake is gobwas/ws's, not coder/websocket's (which the project uses
// elsewhere, and its tests use as a client). coder/websocket v1.8 cannot hand an
// accepted connection to the writer pool through its documented API: its Conn has
// no method that returns the socket (NetConn wraps messages, it does not expose the
// connection), its own reader and writer own the framing state, and Accept sets a
// finalizer on the Conn that closes the socket once the Conn is unreachable, so a
// socket taken from under it (by wrapping the ResponseWriter's Hijack) would be
// closed by the collector unless the Conn, its buffers and its framing state were
// kept alive for every viewer: the memory this design removes. gobwas/ws upgrades
// through net/http and returns the socket; from then on this package does the
// framing: one prebuilt frame per event (actors/model/frame) and the control frames
// (ws_frames.go) written by the pool, what the client sends parsed by the poller
// (ws_read.go). What gobwas/ws does for us: the handshake's checks (method, version,
// key) and the accept nonce, header and close-frame parsing, and masking.

// IsWebSocket tells whether r asks for a WebSocket upgrade.
func IsWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// ServeWS serves c over WebSocket: one text message per frame, the same JSON bytes
// as the SSE data line (first, the connected message when given, then replay's
// frames, then every frame sent to c). The upgraded connection is written by the
// writer pool exactly as a hijacked SSE one, with the frames' WS form; what the
// client sends is read by the poller (pings answered, a close echoed, anything else
// dropped). Pings keep it alive every keepalive interval; a client that falls behind
// or does not take a write within the write timeout is disconnected (close status
// 1013 when the socket can take it), and End closes with 1008 after the final frame.
// ServeWS returns once the stream is live.
func (c *Conn) ServeWS(w http.ResponseWriter, r *http.Request, connected *frame.Frame, replay Replay) {
	if !c.hub.track(c, true) {
		c.Close()
		return
	}
	c.mu.Lock()
	c.ws = true
	if c.ending && !c.closing { // End came before the stream was served
		c.queue = append(c.queue, closeAccessEnded)
		c.closing = true
	}
	c.mu.Unlock()
	if status, err := checkUpgrade(w, r); err != nil {
		http.Error(w, err.Error(), status)
		c.Close()
		return
	}
	// No Negotiate: no extension (so no compression) is accepted; no Protocol: no
	// subprotocol. The fields set for the response so far (rate limits) go with the
	// 101, as they would through net/http.
	head := w.Header().Clone()
	for _, k := range []string{"Connection", "Upgrade", "Content-Length", "Content-Type", "Transfer-Encoding"} {
		head.Del(k)
	}
	nc, rw, _, err := ws.HTTPUpgrader{Timeout: c.hub.opt.WriteTimeout, Header: head}.Upgrade(r, w)
	if err != nil { // answered already, by net/http or on the hijacked connection
		if nc != nil {
			_ = nc.Close()
		}
		c.Close()
		return
	}
	c.adopt(nc)

	var buf bytes.Buffer
	flush := func() error {
		if buf.Len() == 0 {
			return nil
		}
		_ = nc.SetWriteDeadline(time.Now().Add(c.hub.opt.WriteTimeout))
		_, err := nc.Write(buf.Bytes())
		buf.Reset()
		return err
	}
	if connected != nil {
		buf.Write(connected.WS)
	}
	if replay != nil {
		err = replay(func(f *frame.Frame) error {
			buf.Write(f.WS)
			if buf.Len() >= 64<<10 {
				return flush()
			}
			return nil
		})
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		c.Close()
		return
	}
	_ = nc.SetWriteDeadline(time.Time{})

	// What the client sent right behind its request is in the handshake's buffer.
	if n := rw.Reader.Buffered(); n > 0 {
		b, _ := rw.Reader.Peek(n)
		c.onInput(b)
	}
	if c.raw == nil || c.hub.poller == nil || !c.hub.poller.add(c) {
		go c.readLoop()
	}
	c.goLive()
}

// readLoop reads the client from a goroutine of its own where the poller cannot
// (not Linux, or a socket without a descriptor): blocking reads, the same parsing.
// It ends when the socket closes.
func (c *Conn) readLoop() {
	buf := make([]byte, 512)
	for {
		n, err := c.nc.Read(buf)
		if n > 0 {
			c.onInput(buf[:n])
		}
		if err != nil {
			c.hangUp()
			return
		}
	}
}

// checkUpgrade refuses a handshake with the statuses the OpenAPI document declares
// (transport/httpapi/openapi.json, the stream routes), which coder/websocket's
// Accept answered before: 426 when the request is not an HTTP/1.1 upgrade to
// websocket, 400 for a version other than 13 or a malformed key, 403 for an Origin
// from another host. gobwas/ws checks the same again as it upgrades.
func checkUpgrade(w http.ResponseWriter, r *http.Request) (int, error) {
	if !r.ProtoAtLeast(1, 1) {
		return http.StatusUpgradeRequired, fmt.Errorf("WebSocket protocol violation: handshake request must be at least HTTP/1.1: %q", r.Proto)
	}
	if !headerHasToken(r.Header, "Connection", "upgrade") || !headerHasToken(r.Header, "Upgrade", "websocket") {
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "websocket")
		return http.StatusUpgradeRequired, errors.New("WebSocket protocol violation: a handshake needs Connection: Upgrade and Upgrade: websocket")
	}
	if r.Header.Get("Sec-WebSocket-Version") != "13" {
		w.Header().Set("Sec-WebSocket-Version", "13")
		return http.StatusBadRequest, fmt.Errorf("unsupported WebSocket protocol version (only 13 is supported): %q", r.Header.Get("Sec-WebSocket-Version"))
	}
	keys := r.Header.Values("Sec-WebSocket-Key")
	if len(keys) != 1 {
		return http.StatusBadRequest, errors.New("WebSocket protocol violation: exactly one Sec-WebSocket-Key is needed")
	}
	if k, err := base64.StdEncoding.DecodeString(keys[0]); err != nil || len(k) != 16 {
		return http.StatusBadRequest, fmt.Errorf("WebSocket protocol violation: invalid Sec-WebSocket-Key %q, must be a 16 byte base64 encoded string", keys[0])
	}
	if err := sameOrigin(r); err != nil {
		return http.StatusForbidden, err
	}
	return 0, nil
}

// sameOrigin is the rule for browsers, whose WebSocket requests cross sites without
// any CORS check (a page elsewhere could otherwise open a stream with the viewer's
// cookie): a request without Origin (not from a browser) is allowed, and one whose
// Origin names the request's Host; any other Origin, "null" included, is refused.
func sameOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil {
		return fmt.Errorf("failed to parse Origin header %q: %w", origin, err)
	}
	if strings.EqualFold(r.Host, u.Host) {
		return nil
	}
	if u.Host == "" {
		return fmt.Errorf("request Origin %q is not a valid URL with a host", origin)
	}
	return fmt.Errorf("request Origin %q is not authorized for Host %q", u.Host, r.Host)
}

// headerHasToken tells whether a comma-separated header holds token (any case).
func headerHasToken(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
