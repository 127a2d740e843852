package stream

import (
	"bytes"
	"unicode/utf8"

	"github.com/gobwas/ws"

	"folio/actors/model/frame"
)

// wsReadLimit is the largest message a WebSocket client may send: a longer one
// ends the stream with 1009 (message too big). The stream speaks from server to
// client only, so what a client sends is read and dropped, control frames apart.
const wsReadLimit = 4 << 10

// wsInput is where reading one WebSocket client stands. Invariant: it holds bytes
// only while a frame header (at most 14 bytes) or a control frame (at most 6 + 125)
// is incomplete, so an idle connection holds no buffer; data payloads are skipped
// as they arrive, never kept.
type wsInput struct {
	partial   []byte // an incomplete header or control frame
	skip      int64  // bytes of a data payload still to drop
	message   int64  // bytes of the current data message so far (all its frames)
	inMessage bool   // a data message is begun and its final frame not yet seen
	done      bool   // the stream's close frame is decided: the rest is dropped
}

// onInput consumes bytes a WebSocket client sent, in order: a ping is answered by a
// pong queued ahead of the events, a close is echoed and ends the stream, pongs and
// data messages are dropped, and a protocol violation (RFC 6455 §5: an unmasked
// frame, reserved bits or opcodes, a fragmented or oversized control frame, a
// continuation out of place) ends it with 1002, a message over wsReadLimit with
// 1009. Only the connection's one reader calls it; b is its own to modify.
func (c *Conn) onInput(b []byte) {
	in := &c.in
	if in.done {
		return
	}
	if len(in.partial) > 0 {
		b = append(in.partial, b...)
		in.partial = nil
	}
	for len(b) > 0 {
		if in.skip > 0 {
			n := min(in.skip, int64(len(b)))
			in.skip -= n
			b = b[n:]
			continue
		}
		n := wsHeaderSize(b)
		if n == 0 {
			break // the header is incomplete
		}
		h, err := ws.ReadHeader(bytes.NewReader(b[:n]))
		if err == nil {
			state := ws.StateServerSide
			if in.inMessage {
				state = state.Set(ws.StateFragmented)
			}
			err = ws.CheckHeader(h, state)
		}
		if err != nil {
			c.failWS(ws.StatusProtocolError, err.Error())
			return
		}
		if !h.OpCode.IsControl() {
			in.message += h.Length
			if in.message > wsReadLimit {
				c.failWS(ws.StatusMessageTooBig, "messages are limited to 4096 bytes")
				return
			}
			in.inMessage = !h.Fin
			if h.Fin {
				in.message = 0
			}
			in.skip = h.Length
			b = b[n:]
			continue
		}
		end := n + int(h.Length) // at most 125 bytes of payload: CheckHeader
		if len(b) < end {
			break // the control frame is incomplete
		}
		payload := b[n:end]
		ws.Cipher(payload, h.Mask, 0)
		b = b[end:]
		switch h.OpCode {
		case ws.OpPing:
			c.enqueue(wsControl(frame.OpPong, payload), true)
		case ws.OpClose:
			in.done = true
			c.closeWith(wsCloseReply(payload))
			return
		}
	}
	if len(b) > 0 {
		in.partial = bytes.Clone(b)
	}
}

// failWS ends the stream with a close frame naming what the client did wrong.
func (c *Conn) failWS(code ws.StatusCode, reason string) {
	c.in.done = true
	c.closeWith(wsClose(code, reason))
}

// wsHeaderSize is the size of the frame header at the start of b, from its first
// two bytes, or 0 while b does not hold all of it.
func wsHeaderSize(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	n := 2
	if b[1]&0x80 != 0 {
		n += 4 // the mask
	}
	switch b[1] & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if len(b) < n {
		return 0
	}
	return n
}

// wsCloseReply answers a client's close (RFC 6455 §5.5.1): with the same status
// code, or an empty close when it gave none; a malformed one (a 1-byte body, a code
// no endpoint may send, a reason not UTF-8) is a protocol error.
func wsCloseReply(payload []byte) *frame.Frame {
	switch len(payload) {
	case 0:
		return wsControl(frame.OpClose, nil)
	case 1:
		return wsClose(ws.StatusProtocolError, "malformed close frame")
	}
	code, reason := ws.ParseCloseFrameData(payload)
	err := ws.CheckCloseFrameData(code, reason)
	switch {
	case code > 4999: // §7.4.2 defines no code past the private range (gobwas/ws lets them through)
		err = ws.ErrProtocolStatusCodeUnknown
	case code >= 1012 && code <= 1014 && utf8.ValidString(reason):
		// Registered with IANA since RFC 6455 (service restart, try again later,
		// bad gateway): clients may send them.
		err = nil
	}
	if err != nil {
		return wsClose(ws.StatusProtocolError, err.Error())
	}
	return wsClose(code, "")
}
