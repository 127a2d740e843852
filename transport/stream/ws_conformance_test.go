package stream

// Conformance of the WebSocket server side (ws.go, ws_read.go, ws_frames.go) with
// RFC 6455, in the manner of the Autobahn test suite but limited to what applies to
// a server→client stream. The client is github.com/gorilla/websocket, an
// implementation independent of the server's, or a raw TCP connection where the
// frame to send is one gorilla refuses to produce (bytes written by hand). Every
// case asserts what a client would notice on the wire; conditions are awaited with
// read deadlines, never with sleeps.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"folio/actors/model/frame"
)

// TestWSFraming (RFC 6455 §5.2, §5.6): the connected message, then the replayed
// frames, then every frame given to Send arrive as text messages, in order, each
// exactly the frame's JSON payload, whatever its length encoding (7-bit, 16-bit
// from 126 bytes, 64-bit from 65,536); a frame the replay wrote already is not sent
// twice.
func TestWSFraming(t *testing.T) {
	sizes := []int{8, 125, 126, 127, 1000, 65535, 65536, 70000, 1 << 20}
	connected := frame.Control("connected", map[string]string{"transport": "ws"})
	replayed := []*frame.Frame{testFrame(1, "replayed-1"), testFrame(2, "replayed-2")}
	setup := func(c *Conn) (*frame.Frame, Replay) {
		return connected, func(emit func(*frame.Frame) error) error {
			for _, f := range replayed {
				if err := emit(f); err != nil {
					return err
				}
			}
			c.SkipThrough(2)
			return nil
		}
	}
	events := make([]*frame.Frame, len(sizes))
	for i, n := range sizes {
		events[i] = frame.New(uint64(3+i), "t", fmt.Sprint(3+i), jsonPayload(n))
	}
	want := [][]byte{connected.JSON, replayed[0].JSON, replayed[1].JSON}
	for _, f := range events {
		want = append(want, f.JSON)
	}

	t.Run("gorilla", func(t *testing.T) {
		h := newWSHub(t, Options{QueueBytes: 16 << 20})
		srv, conns := wsServer(t, h, setup)
		type dialed struct {
			ws  *websocket.Conn
			err error
		}
		done := make(chan dialed, 1)
		go func() {
			ws, _, err := (&websocket.Dialer{HandshakeTimeout: wsWait}).Dial(wsURL(srv), nil)
			done <- dialed{ws, err}
		}()
		c := nextConn(t, conns)
		// Sent while the handshake and replay may still be under way: they follow
		// the replay all the same, and the replayed one is dropped.
		c.Send(testFrame(2, "replayed-2"))
		for _, f := range events {
			if !c.Send(f) {
				t.Fatal("send refused")
			}
		}
		d := <-done
		if d.err != nil {
			t.Fatal(d.err)
		}
		defer d.ws.Close()
		for i, w := range want {
			if got := readText(t, d.ws); !bytes.Equal(got, w) {
				t.Fatalf("message %d: %d bytes %.40q, want %d bytes %.40q", i, len(got), got, len(w), w)
			}
		}
	})

	// The length field as sent: the minimal encoding (§5.2 "the minimal number of
	// bytes MUST be used"), FIN set, no RSV bit, opcode text, unmasked.
	t.Run("raw", func(t *testing.T) {
		h := newWSHub(t, Options{QueueBytes: 16 << 20})
		srv, conns := wsServer(t, h, setup)
		r := dialRaw(t, srv, nil)
		c := nextConn(t, conns)
		for _, f := range events {
			c.Send(f)
		}
		for i, w := range want {
			f := r.nextSkippingPings()
			wantLen := byte(len(w))
			switch {
			case len(w) > 0xffff:
				wantLen = 127
			case len(w) >= 126:
				wantLen = 126
			}
			if f.b0 != 0x80|frame.OpText || f.lenCode != wantLen || !bytes.Equal(f.payload, w) {
				t.Fatalf("frame %d: b0 %#x, length code %d (want %d), %d bytes (want %d)", i, f.b0, f.lenCode, wantLen, len(f.payload), len(w))
			}
		}
	})
}

// pingReader runs gorilla's read loop (which is what calls its ping, pong and close
// handlers) on ws: messages go to msgs, the final error to errc.
func pingReader(ws *websocket.Conn) (msgs chan []byte, errc chan error) {
	msgs, errc = make(chan []byte, 1<<16), make(chan error, 1)
	go func() {
		for {
			_ = ws.SetReadDeadline(time.Now().Add(wsWait))
			_, b, err := ws.ReadMessage()
			if err != nil {
				errc <- err
				return
			}
			msgs <- b
		}
	}()
	return msgs, errc
}

// TestWSPingPong (RFC 6455 §5.5.2, §5.5.3, §5.4): a client's ping is answered by a
// pong with the same application data, between messages (a control frame may be
// injected between frames, never inside one), even in the middle of a fragmented
// message the client sends; the server pings every keepalive interval.
func TestWSPingPong(t *testing.T) {
	t.Run("answered", func(t *testing.T) {
		h := newWSHub(t, Options{})
		srv, _ := wsServer(t, h, nil)
		ws, _ := dialWS(t, srv, nil, nil)
		pongs := make(chan string, 4)
		ws.SetPongHandler(func(s string) error { pongs <- s; return nil })
		_, errc := pingReader(ws)
		for _, p := range []string{"hello", "", strings.Repeat("p", 125)} {
			if err := ws.WriteControl(websocket.PingMessage, []byte(p), time.Now().Add(wsWait)); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-pongs:
				if got != p {
					t.Fatalf("pong %q, want %q", got, p)
				}
			case err := <-errc:
				t.Fatalf("read: %v", err)
			case <-time.After(wsWait):
				t.Fatalf("no pong for ping %.10q", p)
			}
		}
	})

	t.Run("amid events", func(t *testing.T) {
		h := newWSHub(t, Options{QueueFrames: 1 << 20, QueueBytes: 1 << 30})
		srv, conns := wsServer(t, h, nil)
		ws, _ := dialWS(t, srv, nil, nil)
		c := nextConn(t, conns)
		pongs := make(chan string, 64)
		ws.SetPongHandler(func(s string) error { pongs <- s; return nil })
		msgs, errc := pingReader(ws)
		const rounds, perRound = 50, 40
		var want [][]byte
		for i := range rounds {
			for j := range perRound {
				f := frame.New(uint64(i*perRound+j+1), "t", "", jsonPayload(200+(i*perRound+j)%3000))
				want = append(want, f.JSON)
				c.Send(f)
			}
			if err := ws.WriteControl(websocket.PingMessage, []byte(fmt.Sprint("ping-", i)), time.Now().Add(wsWait)); err != nil {
				t.Fatal(err)
			}
		}
		got := map[string]bool{}
		for n := 0; n < len(want) || len(got) < rounds; {
			select {
			case b := <-msgs:
				if !bytes.Equal(b, want[n]) {
					t.Fatalf("message %d: %.40q, want %.40q", n, b, want[n])
				}
				n++
			case p := <-pongs:
				got[p] = true
			case err := <-errc:
				t.Fatalf("after %d messages and %d pongs: %v", n, len(got), err)
			}
		}
		for i := range rounds {
			if !got[fmt.Sprint("ping-", i)] {
				t.Fatalf("no pong for ping-%d", i)
			}
		}
	})

	// Autobahn 2.10: ten pings in one write get ten pongs (order is not required:
	// §5.5.3 even allows answering only the latest).
	t.Run("ten pings at once", func(t *testing.T) {
		h := newWSHub(t, Options{})
		srv, _ := wsServer(t, h, nil)
		r := dialRaw(t, srv, nil)
		var pings [][]byte
		var want []string
		for i := range 10 {
			want = append(want, fmt.Sprint("payload-", i))
			pings = append(pings, maskedFrame(0x80|frame.OpPing, []byte(want[i])))
		}
		r.write(pings...)
		var got []string
		for range want {
			f := r.nextSkippingPings()
			if f.b0 != 0x80|frame.OpPong {
				t.Fatalf("frame %#x %q, want a pong", f.b0, f.payload)
			}
			got = append(got, string(f.payload))
		}
		if !slices.Equal(got, want) {
			t.Logf("pongs arrive in another order than the pings: %q", got)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("pongs %q, want %q", got, want)
		}
	})

	// A ping written a byte at a time (Autobahn 1.x/2.x "chopped"), and a ping
	// written right behind the handshake request, are answered.
	t.Run("chopped and early", func(t *testing.T) {
		h := newWSHub(t, Options{})
		srv, _ := wsServer(t, h, nil)
		r := dialRaw(t, srv, maskedFrame(0x80|frame.OpPing, []byte("early")))
		if f := r.nextSkippingPings(); f.b0 != 0x80|frame.OpPong || string(f.payload) != "early" {
			t.Fatalf("frame %#x %q, want pong \"early\"", f.b0, f.payload)
		}
		for _, b := range maskedFrame(0x80|frame.OpPing, []byte("chopped")) {
			r.write([]byte{b})
		}
		if f := r.nextSkippingPings(); f.b0 != 0x80|frame.OpPong || string(f.payload) != "chopped" {
			t.Fatalf("frame %#x %q, want pong \"chopped\"", f.b0, f.payload)
		}
	})

	// Autobahn 5.6: a ping between the fragments of a client's message is answered,
	// and the message (ignored) does not end the stream.
	t.Run("inside a fragmented message", func(t *testing.T) {
		h := newWSHub(t, Options{})
		srv, conns := wsServer(t, h, nil)
		r := dialRaw(t, srv, nil)
		c := nextConn(t, conns)
		r.write(maskedFrame(frame.OpText, []byte("frag")), maskedFrame(0x80|frame.OpPing, []byte("between")),
			maskedFrame(0x80, []byte("ment")))
		if f := r.nextSkippingPings(); f.b0 != 0x80|frame.OpPong || string(f.payload) != "between" {
			t.Fatalf("frame %#x %q, want pong \"between\"", f.b0, f.payload)
		}
		ev := testFrame(1, "after")
		c.Send(ev)
		if f := r.nextSkippingPings(); f.b0 != 0x80|frame.OpText || !bytes.Equal(f.payload, ev.JSON) {
			t.Fatalf("frame %#x %q, want the event", f.b0, f.payload)
		}
	})

	// The keepalive: a ping (no payload) every Keepalive; the client's pongs are
	// dropped and the stream goes on.
	t.Run("keepalive", func(t *testing.T) {
		h := newWSHub(t, Options{Keepalive: 50 * time.Millisecond})
		srv, conns := wsServer(t, h, nil)
		ws, _ := dialWS(t, srv, nil, nil)
		c := nextConn(t, conns)
		pings := make(chan string, 64)
		ws.SetPingHandler(func(s string) error {
			pings <- s
			return ws.WriteControl(websocket.PongMessage, []byte(s), time.Now().Add(wsWait))
		})
		msgs, errc := pingReader(ws)
		for i := range 3 {
			select {
			case p := <-pings:
				if p != "" {
					t.Fatalf("keepalive ping with payload %q", p)
				}
			case err := <-errc:
				t.Fatalf("read: %v", err)
			case <-time.After(wsWait):
				t.Fatalf("%d keepalive pings in %v with a 50ms interval", i, wsWait)
			}
		}
		ev := testFrame(1, "still here")
		c.Send(ev)
		select {
		case b := <-msgs:
			if !bytes.Equal(b, ev.JSON) {
				t.Fatalf("message %q", b)
			}
		case err := <-errc:
			t.Fatalf("read: %v", err)
		}
	})
}

// TestWSCloseHandshake (RFC 6455 §5.5.1, §7.1, §7.4): a client's close is answered
// with a close carrying the same status code, then the server closes TCP; a close
// with a malformed body or a status code an endpoint may not send is a protocol
// error (1002); End sends the final frame, then close 1008.
func TestWSCloseHandshake(t *testing.T) {
	t.Run("client close echoed", func(t *testing.T) {
		h := newWSHub(t, Options{})
		srv, conns := wsServer(t, h, nil)
		ws, _ := dialWS(t, srv, nil, nil)
		c := nextConn(t, conns)
		// The client started the handshake: it does not answer the server's close.
		ws.SetCloseHandler(func(int, string) error { return nil })
		if err := ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye now"), time.Now().Add(wsWait)); err != nil {
			t.Fatal(err)
		}
		expectCloseCode(t, ws, websocket.CloseNormalClosure)
		expectEOF(t, ws.NetConn(), ws.NetConn())
		select {
		case <-c.Done():
		case <-time.After(wsWait):
			t.Fatal("the stream outlived the closing handshake")
		}
		if c.Send(testFrame(1, "late")) {
			t.Fatal("send accepted after the close")
		}
	})

	// What the server answers to each close body (raw: the exact bytes it sends).
	// §7.4.1 defines 1000-1011 (1004 reserved; 1005, 1006, 1015 never sent), IANA
	// 1012-1014; 1016-2999 are for future revisions, 3000-4999 for applications and
	// private use; "status codes in the range 0-999 are not used" and no code above
	// 4999 is defined (§7.4.2): Autobahn 7.9 expects 1002 for 5000 and 65535.
	for _, tc := range []struct {
		name string
		body []byte
		want int // -1: a close without body
	}{
		{"empty", nil, -1},
		{"1000 with reason", closeBody(1000, "bye"), 1000},
		{"1001", closeBody(1001, ""), 1001},
		{"1011", closeBody(1011, "oops"), 1011},
		{"1013", closeBody(1013, ""), 1013},
		{"3000", closeBody(3000, "app"), 3000},
		{"4999", closeBody(4999, "private"), 4999},
		{"1-byte body", []byte{0x03}, 1002},
		{"invalid UTF-8 reason", closeBody(1000, "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80"), 1002},
		{"0", closeBody(0, ""), 1002},
		{"999", closeBody(999, ""), 1002},
		{"1004", closeBody(1004, ""), 1002},
		{"1005", closeBody(1005, ""), 1002},
		{"1006", closeBody(1006, ""), 1002},
		{"1015", closeBody(1015, ""), 1002},
		{"1016", closeBody(1016, ""), 1002},
		{"2999", closeBody(2999, ""), 1002},
		{"5000", closeBody(5000, ""), 1002},
		{"65535", closeBody(65535, ""), 1002},
	} {
		t.Run("close "+tc.name, func(t *testing.T) {
			h := newWSHub(t, Options{})
			srv, _ := wsServer(t, h, nil)
			r := dialRaw(t, srv, nil)
			r.write(maskedFrame(0x80|frame.OpClose, tc.body))
			r.expectClose(tc.want)
		})
	}

	// End: the final frame, then close 1008 (policy violation), then TCP closes;
	// nothing sent afterwards is accepted. Called once the stream is live, and at
	// once (possibly before the stream is served).
	for _, early := range []bool{false, true} {
		t.Run(fmt.Sprintf("End early=%v", early), func(t *testing.T) {
			h := newWSHub(t, Options{})
			srv, conns := wsServer(t, h, nil)
			type dialed struct {
				ws  *websocket.Conn
				err error
			}
			done := make(chan dialed, 1)
			go func() {
				ws, _, err := (&websocket.Dialer{HandshakeTimeout: wsWait}).Dial(wsURL(srv), nil)
				done <- dialed{ws, err}
			}()
			c := nextConn(t, conns)
			first := testFrame(1, "first")
			final := frame.Control("reset", map[string]string{"reason": "access revoked"})
			c.Send(first)
			if early {
				c.End(final)
			}
			d := <-done
			if d.err != nil {
				t.Fatal(d.err)
			}
			ws := d.ws
			defer ws.Close()
			if got := readText(t, ws); !bytes.Equal(got, first.JSON) {
				t.Fatalf("first message %q", got)
			}
			if !early {
				c.End(final)
			}
			if c.Send(testFrame(2, "after End")) {
				t.Fatal("send accepted after End")
			}
			if got := readText(t, ws); !bytes.Equal(got, final.JSON) {
				t.Fatalf("final message %q, want %q", got, final.JSON)
			}
			ws.SetCloseHandler(func(int, string) error { return nil })
			ce := expectCloseCode(t, ws, websocket.ClosePolicyViolation)
			if !strings.Contains(ce.Text, "access ended") {
				t.Fatalf("close reason %q", ce.Text)
			}
			expectEOF(t, ws.NetConn(), ws.NetConn())
		})
	}
}

// TestWSClientFramesRefused (RFC 6455 §5.1-§5.5, §7.4.1): what the client sends is
// read and dropped, but a message over 4096 bytes ends the stream with 1009 and a
// protocol violation with 1002, then TCP closes; a smaller message is ignored and
// the stream goes on.
func TestWSClientFramesRefused(t *testing.T) {
	// Through gorilla: a message is split into frames of about its write buffer size.
	gorillaCases := []struct {
		name     string
		bufSize  int // the client's write buffer: the size of its frames
		typ      int
		size     int
		want     int // 0: ignored, the stream goes on
		messages int
	}{
		{"5000-byte text in one frame", 8192, websocket.TextMessage, 5000, websocket.CloseMessageTooBig, 1},
		{"5000-byte text in 1 KiB fragments", 1024, websocket.TextMessage, 5000, websocket.CloseMessageTooBig, 1},
		{"4097-byte binary", 8192, websocket.BinaryMessage, 4097, websocket.CloseMessageTooBig, 1},
		{"100-byte text", 0, websocket.TextMessage, 100, 0, 1},
		{"4096-byte text in 1 KiB fragments", 1024, websocket.TextMessage, 4096, 0, 1},
		{"4096-byte binary, 20 times", 8192, websocket.BinaryMessage, 4096, 0, 20},
	}
	for _, tc := range gorillaCases {
		t.Run(tc.name, func(t *testing.T) {
			h := newWSHub(t, Options{})
			srv, conns := wsServer(t, h, nil)
			ws, _ := dialWS(t, srv, &websocket.Dialer{HandshakeTimeout: wsWait, WriteBufferSize: tc.bufSize}, nil)
			c := nextConn(t, conns)
			msg := bytes.Repeat([]byte("m"), tc.size)
			for range tc.messages {
				_ = ws.SetWriteDeadline(time.Now().Add(wsWait))
				if err := ws.WriteMessage(tc.typ, msg); err != nil {
					t.Fatal(err)
				}
			}
			if tc.want != 0 {
				ws.SetCloseHandler(func(int, string) error { return nil })
				expectCloseCode(t, ws, tc.want)
				// How TCP then ends (FIN, or a reset when the server closed with
				// part of the message unread) depends on timing here; the case
				// "clean close ..." below checks it over repeated attempts.
				expectEnd(t, ws.NetConn())
				return
			}
			ev := testFrame(1, "still streaming")
			if !c.Send(ev) {
				t.Fatal("send refused")
			}
			if got := readText(t, ws); !bytes.Equal(got, ev.JSON) {
				t.Fatalf("message %q", got)
			}
		})
	}

	// §7.1.1: "An endpoint SHOULD use a method that cleanly closes the TCP
	// connection [...] discarding any trailing bytes that may have been received."
	// A client still sending a 1 MiB message when it is refused gets close 1009,
	// then FIN (EOF): not a reset, which some TCP stacks answer by discarding what
	// the client has not read yet, the close frame included. Whether the server
	// still holds unread bytes when it closes is a matter of timing, so the case is
	// repeated: any attempt ending in a reset fails it.
	t.Run("clean close after refusing a 1 MiB message", func(t *testing.T) {
		h := newWSHub(t, Options{})
		srv, conns := wsServer(t, h, nil)
		msg := maskedFrame(0x80|frame.OpText, bytes.Repeat([]byte("m"), 1<<20))
		const attempts = 40
		resets := 0
		for range attempts {
			r := dialRaw(t, srv, nil)
			nextConn(t, conns)
			go func() {
				_ = r.nc.SetWriteDeadline(time.Now().Add(wsWait))
				_, _ = r.nc.Write(msg) // fails once the server has gone: that is the point
			}()
			r.closeFrame(websocket.CloseMessageTooBig)
			_ = r.nc.SetReadDeadline(time.Now().Add(wsWait))
			n, err := r.br.Read(make([]byte, 64))
			switch {
			case errors.Is(err, syscall.ECONNRESET):
				resets++
			case n != 0 || err != io.EOF:
				t.Fatalf("after the close frame: read %d bytes, %v; want EOF", n, err)
			}
			_ = r.nc.Close()
		}
		if resets > 0 {
			t.Errorf("%d of %d connections ended in a reset after close 1009, not FIN", resets, attempts)
		}
	})

	// Raw: frames gorilla will not produce.
	long := bytes.Repeat([]byte("c"), 126)
	rawCases := []struct {
		name string
		send [][]byte
		want int
		rfc  string // what RFC 6455 says of it
	}{
		{"ping with a 126-byte payload", [][]byte{maskedFrame(0x80|frame.OpPing, long)}, 1002, "§5.5 control payload <= 125"},
		{"close with a 126-byte payload", [][]byte{maskedFrame(0x80|frame.OpClose, append(closeBody(1000, ""), long[:124]...))}, 1002, "§5.5"},
		{"fragmented ping", [][]byte{maskedFrame(frame.OpPing, []byte("a")), maskedFrame(0x80, []byte("b"))}, 1002, "§5.5 control frames MUST NOT be fragmented"},
		{"unmasked text", [][]byte{{0x81, 0x05, 'h', 'e', 'l', 'l', 'o'}}, 1002, "§5.1 a server MUST close on an unmasked frame"},
		{"unmasked ping", [][]byte{{0x89, 0x01, 'p'}}, 1002, "§5.1"},
		{"RSV1 set", [][]byte{maskedFrame(0x80|0x40|frame.OpText, []byte("hi"))}, 1002, "§5.2 RSV without an extension"},
		{"RSV3 set on a ping", [][]byte{maskedFrame(0x80|0x10|frame.OpPing, []byte("hi"))}, 1002, "§5.2"},
		{"opcode 0x3", [][]byte{maskedFrame(0x80|0x3, []byte("hi"))}, 1002, "§5.2 reserved non-control opcode"},
		{"opcode 0xB", [][]byte{maskedFrame(0x80|0xB, nil)}, 1002, "§5.2 reserved control opcode"},
		{"continuation without a start", [][]byte{maskedFrame(0x80, []byte("orphan"))}, 1002, "§5.4"},
		{"text inside a fragmented message", [][]byte{maskedFrame(frame.OpText, []byte("a")), maskedFrame(0x80|frame.OpText, []byte("b"))}, 1002, "§5.4"},
		{"close with a 1-byte body", [][]byte{maskedFrame(0x80|frame.OpClose, []byte{0x03})}, 1002, "§5.5.1"},
		{"64-bit length with its top bit set", [][]byte{{0x81, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4}}, 1002, "§5.2 the MSB MUST be 0"},
		{"announced 1 TiB text", [][]byte{{0x81, 0x80 | 127, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4}}, 1009, "§7.4.1 too big to process"},
	}
	for _, tc := range rawCases {
		t.Run(tc.name, func(t *testing.T) {
			h := newWSHub(t, Options{})
			srv, _ := wsServer(t, h, nil)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("RFC 6455 %s", tc.rfc)
				}
			})
			r := dialRaw(t, srv, nil)
			r.write(tc.send...)
			r.expectClose(tc.want)
		})
	}
}

// TestWSHandshake (RFC 6455 §4.2): refusals with the statuses checkUpgrade declares
// (426 without the upgrade headers, 400 with Sec-WebSocket-Version: 13 for another
// version, 403 for an Origin from another host), and no extension accepted: a
// client offering permessage-deflate gets none (§9.1) and plain text frames.
func TestWSHandshake(t *testing.T) {
	h := newWSHub(t, Options{})
	srv, conns := wsServer(t, h, nil)

	refused := func(t *testing.T, res *http.Response, status int) {
		t.Helper()
		if res.StatusCode != status {
			t.Fatalf("status %s, want %d", res.Status, status)
		}
		c := nextConn(t, conns)
		select {
		case <-c.Done():
		case <-time.After(wsWait):
			t.Fatal("a refused stream is not closed")
		}
	}
	get := func(t *testing.T, header map[string]string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		return res
	}
	upgrade := map[string]string{
		"Connection":            "Upgrade",
		"Upgrade":               "websocket",
		"Sec-WebSocket-Key":     "dGhlIHNhbXBsZSBub25jZQ==",
		"Sec-WebSocket-Version": "13",
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for k, v := range upgrade {
			m[k] = v
		}
		m[k] = v
		return m
	}

	t.Run("version 8", func(t *testing.T) {
		res := get(t, with("Sec-WebSocket-Version", "8"))
		refused(t, res, http.StatusBadRequest)
		if v := res.Header.Get("Sec-WebSocket-Version"); v != "13" {
			t.Fatalf("Sec-WebSocket-Version %q, want 13 (§4.4)", v)
		}
	})
	t.Run("no upgrade headers", func(t *testing.T) {
		res := get(t, map[string]string{"Sec-WebSocket-Key": upgrade["Sec-WebSocket-Key"], "Sec-WebSocket-Version": "13"})
		refused(t, res, http.StatusUpgradeRequired)
		if res.Header.Get("Upgrade") != "websocket" {
			t.Fatalf("426 without Upgrade: websocket: %v", res.Header)
		}
	})
	t.Run("malformed key", func(t *testing.T) {
		refused(t, get(t, with("Sec-WebSocket-Key", "short")), http.StatusBadRequest)
	})
	t.Run("Origin from another host", func(t *testing.T) {
		_, res, err := (&websocket.Dialer{HandshakeTimeout: wsWait}).Dial(wsURL(srv), http.Header{"Origin": {"https://elsewhere.example"}})
		if err == nil || res == nil {
			t.Fatalf("handshake with a foreign Origin: %v", err)
		}
		refused(t, res, http.StatusForbidden)
	})
	t.Run("same Origin", func(t *testing.T) {
		dialWS(t, srv, nil, http.Header{"Origin": {srv.URL}})
		nextConn(t, conns)
	})
	t.Run("no compression", func(t *testing.T) {
		ws, res := dialWS(t, srv, &websocket.Dialer{HandshakeTimeout: wsWait, EnableCompression: true}, nil)
		if ext := res.Header.Values("Sec-WebSocket-Extensions"); len(ext) != 0 {
			t.Fatalf("extensions negotiated: %q", ext)
		}
		if p := res.Header.Get("Sec-WebSocket-Protocol"); p != "" {
			t.Fatalf("subprotocol %q chosen though none was offered", p)
		}
		c := nextConn(t, conns)
		ev := frame.New(1, "t", "1", jsonPayload(10000))
		c.Send(ev)
		if got := readText(t, ws); !bytes.Equal(got, ev.JSON) { // RSV1 set would fail the read
			t.Fatalf("message %.40q", got)
		}
	})
}

// streamEnded tells whether c's stream has ended.
func streamEnded(c *Conn) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

// TestWSSlowClientDisconnected: a client that never reads while large events are
// sent is disconnected (its queue overflows, or a write times out) without Send
// ever waiting for it: another client, served in lockstep by the same goroutine,
// gets every event meanwhile. The slow client then sees its stream end.
func TestWSSlowClientDisconnected(t *testing.T) {
	h := newWSHub(t, Options{QueueFrames: 8, WriteTimeout: 2 * time.Second})
	srv, conns := wsServer(t, h, nil)
	slowWS, _ := dialWS(t, srv, nil, nil)
	slow := nextConn(t, conns)
	fastWS, _ := dialWS(t, srv, nil, nil)
	fast := nextConn(t, conns)
	fastMsgs, fastErr := pingReader(fastWS)

	big := frame.New(0, "t", "", jsonPayload(256<<10))
	deadline := time.Now().Add(20 * time.Second)
	var slowest time.Duration
	sent := 0
	for !streamEnded(slow) {
		if time.Now().After(deadline) {
			t.Fatalf("the slow client is still connected after %d events of 256 KiB", sent)
		}
		start := time.Now()
		slow.Send(big)
		ev := testFrame(uint64(sent+1), fmt.Sprint(sent))
		if !fast.Send(ev) {
			// What ended it, should this recur (once in CI, never reproduced): a
			// closed stream, a queue overflow (counted as dropped), or the client.
			var cerr error
			select {
			case cerr = <-fastErr:
			default:
			}
			t.Fatalf("the fast client was refused event %d (its stream ended: %v; dropped so far: %d; its reader: %v)", sent, streamEnded(fast), h.Dropped(), cerr)
		}
		slowest = max(slowest, time.Since(start))
		select {
		case b := <-fastMsgs:
			if !bytes.Equal(b, ev.JSON) {
				t.Fatalf("fast client: %q, want %q", b, ev.JSON)
			}
		case err := <-fastErr:
			t.Fatalf("fast client after %d events: %v", sent, err)
		}
		sent++
	}
	if slowest > time.Second {
		t.Fatalf("Send took %v", slowest)
	}
	if h.Dropped() == 0 {
		t.Fatal("the slow client was not counted as dropped")
	}
	t.Logf("slow client dropped after %d events; slowest Send pair %v", sent, slowest)

	// The slow client now reads what its socket holds, then sees the stream end
	// (EOF, or a message cut short): never a hang.
	for n := 0; ; n++ {
		_ = slowWS.SetReadDeadline(time.Now().Add(wsWait))
		_, b, err := slowWS.ReadMessage()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the slow client's connection is still open after %d messages", n)
			}
			break
		}
		if !bytes.Equal(b, big.JSON) {
			t.Fatalf("slow client: message %d is %d bytes", n, len(b))
		}
	}
}
