package stream

// The clients of the WebSocket conformance tests (ws_conformance_test.go): a
// gorilla/websocket client, and a raw socket that writes frames by hand.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"folio/actors/model/frame"
)

// wsWait bounds every wait for something the server should do.
const wsWait = 5 * time.Second

// newWSHub is a hub closed when the test ends.
func newWSHub(t *testing.T, opt Options) *Hub {
	t.Helper()
	h := NewHub(opt)
	t.Cleanup(h.Close)
	return h
}

// wsServer starts an HTTP server whose handler serves one Conn per request with
// ServeWS; conns receives each Conn before it is served. setup, when given, names
// the Conn's connected message and replay.
func wsServer(t *testing.T, h *Hub, setup func(c *Conn) (*frame.Frame, Replay)) (*httptest.Server, chan *Conn) {
	t.Helper()
	conns := make(chan *Conn, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := h.NewConn()
		conns <- c
		var connected *frame.Frame
		var replay Replay
		if setup != nil {
			connected, replay = setup(c)
		}
		c.ServeWS(w, r, connected, replay)
	}))
	t.Cleanup(srv.Close)
	return srv, conns
}

func wsURL(srv *httptest.Server) string { return "ws" + strings.TrimPrefix(srv.URL, "http") }

// dialWS opens a gorilla client (d nil: the default dialer); it fails the test when
// the handshake does not succeed.
func dialWS(t *testing.T, srv *httptest.Server, d *websocket.Dialer, header http.Header) (*websocket.Conn, *http.Response) {
	t.Helper()
	if d == nil {
		d = &websocket.Dialer{HandshakeTimeout: wsWait}
	}
	ws, res, err := d.Dial(wsURL(srv), header)
	if err != nil {
		t.Fatalf("handshake: %v (response %v)", err, res)
	}
	t.Cleanup(func() { _ = ws.Close() })
	return ws, res
}

// nextConn is the server side of the latest handshake.
func nextConn(t *testing.T, conns chan *Conn) *Conn {
	t.Helper()
	select {
	case c := <-conns:
		return c
	case <-time.After(wsWait):
		t.Fatal("no request reached the handler")
		return nil
	}
}

// readText reads one message, which must be a text message.
func readText(t *testing.T, ws *websocket.Conn) []byte {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(wsWait))
	typ, b, err := ws.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.TextMessage {
		t.Fatalf("message type %d, want text", typ)
	}
	return b
}

// expectCloseCode reads the server's close frame, which must carry code.
func expectCloseCode(t *testing.T, ws *websocket.Conn, code int) *websocket.CloseError {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(wsWait))
	_, b, err := ws.ReadMessage()
	if err == nil {
		t.Fatalf("message %.60q where close %d was expected", b, code)
	}
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		t.Fatalf("read: %v, want close %d", err, code)
	}
	if ce.Code != code {
		t.Fatalf("close %d %q, want %d", ce.Code, ce.Text, code)
	}
	return ce
}

// expectEOF checks that the server has closed the TCP connection: a read returns EOF
// (RFC 6455 §7.1.1: after the closing handshake the server closes TCP first).
func expectEOF(t *testing.T, r io.Reader, nc net.Conn) {
	t.Helper()
	_ = nc.SetReadDeadline(time.Now().Add(wsWait))
	var buf [64]byte
	n, err := r.Read(buf[:])
	if n != 0 || err != io.EOF {
		t.Fatalf("after the close frame: read %d bytes %q, %v; want EOF", n, buf[:n], err)
	}
}

// expectEnd checks that the connection ends (EOF or a reset) rather than stays open.
func expectEnd(t *testing.T, nc net.Conn) {
	t.Helper()
	_ = nc.SetReadDeadline(time.Now().Add(wsWait))
	var buf [64]byte
	n, err := nc.Read(buf[:])
	var ne net.Error
	if n != 0 || err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("after the close frame: read %d bytes %q, %v; want the connection closed", n, buf[:n], err)
	}
}

// jsonPayload is a JSON document of exactly n bytes (n >= 8).
func jsonPayload(n int) []byte {
	return []byte(`{"n":"` + strings.Repeat("x", n-8) + `"}`)
}

// rawClient speaks WebSocket with frames written and parsed by hand.
type rawClient struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

// dialRaw opens a TCP connection and performs a valid handshake; extra is written
// in the same write as the request (frames a client sends right behind it).
func dialRaw(t *testing.T, srv *httptest.Server, extra []byte) *rawClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", srv.Listener.Addr().String(), wsWait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	req := "GET / HTTP/1.1\r\nHost: " + srv.Listener.Addr().String() + "\r\n" +
		"Upgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	_ = nc.SetDeadline(time.Now().Add(wsWait))
	if _, err := nc.Write(append([]byte(req), extra...)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	// RFC 6455 §1.3: the accept value for the sample nonce.
	if res.StatusCode != http.StatusSwitchingProtocols || res.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("handshake: %s %v", res.Status, res.Header)
	}
	_ = nc.SetDeadline(time.Time{})
	return &rawClient{t: t, nc: nc, br: br}
}

func (r *rawClient) write(frames ...[]byte) {
	r.t.Helper()
	_ = r.nc.SetWriteDeadline(time.Now().Add(wsWait))
	if _, err := r.nc.Write(bytes.Join(frames, nil)); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// rawFrame is a frame as the server sent it.
type rawFrame struct {
	b0      byte // FIN, RSV1-3, opcode
	lenCode byte // the 7-bit length field: the length itself, or 126 / 127
	payload []byte
}

// next reads one frame; a server frame must not be masked (RFC 6455 §5.1).
func (r *rawClient) next() (rawFrame, error) {
	_ = r.nc.SetReadDeadline(time.Now().Add(wsWait))
	var h [2]byte
	if _, err := io.ReadFull(r.br, h[:]); err != nil {
		return rawFrame{}, err
	}
	if h[1]&0x80 != 0 {
		r.t.Fatalf("the server sent a masked frame (header % x)", h)
	}
	f := rawFrame{b0: h[0], lenCode: h[1] & 0x7f}
	n := uint64(f.lenCode)
	switch f.lenCode {
	case 126:
		var ext [2]byte
		if _, err := io.ReadFull(r.br, ext[:]); err != nil {
			return f, err
		}
		n = uint64(binary.BigEndian.Uint16(ext[:]))
	case 127:
		var ext [8]byte
		if _, err := io.ReadFull(r.br, ext[:]); err != nil {
			return f, err
		}
		n = binary.BigEndian.Uint64(ext[:])
	}
	f.payload = make([]byte, n)
	_, err := io.ReadFull(r.br, f.payload)
	return f, err
}

// nextSkippingPings reads the next frame other than a keepalive ping.
func (r *rawClient) nextSkippingPings() rawFrame {
	r.t.Helper()
	for {
		f, err := r.next()
		if err != nil {
			r.t.Fatalf("read: %v", err)
		}
		if f.b0 != 0x80|frame.OpPing {
			return f
		}
	}
}

// expectClose reads the server's close frame, which must carry code (-1: no body),
// then checks that the server closes the TCP connection.
func (r *rawClient) expectClose(code int) {
	r.t.Helper()
	r.closeFrame(code)
	expectEOF(r.t, r.br, r.nc)
}

// closeFrame reads the server's close frame, which must carry code (-1: no body).
func (r *rawClient) closeFrame(code int) {
	r.t.Helper()
	f := r.nextSkippingPings()
	if f.b0 != 0x80|frame.OpClose {
		r.t.Fatalf("frame %#x %.60q, want close %d", f.b0, f.payload, code)
	}
	got := -1
	if len(f.payload) >= 2 {
		got = int(binary.BigEndian.Uint16(f.payload))
	}
	if got != code || len(f.payload) == 1 {
		r.t.Fatalf("close % x (code %d %q), want code %d", f.payload, got, f.payload[min(2, len(f.payload)):], code)
	}
}

// maskedFrame is a client frame (RFC 6455 §5.2): b0 is FIN, RSV and opcode; the
// payload is masked, its length in the shortest form.
func maskedFrame(b0 byte, payload []byte) []byte {
	key := [4]byte{0x37, 0xfa, 0x21, 0x3d}
	b := appendLen([]byte{b0}, 0x80, uint64(len(payload)))
	b = append(b, key[:]...)
	for i, p := range payload {
		b = append(b, p^key[i%4])
	}
	return b
}

// appendLen appends the length byte (or bytes), with the mask bit of maskBit.
func appendLen(b []byte, maskBit byte, n uint64) []byte {
	switch {
	case n < 126:
		return append(b, maskBit|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, maskBit|126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(b, maskBit|127), n)
	}
}

func closeBody(code uint16, reason string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, code), reason...)
}
