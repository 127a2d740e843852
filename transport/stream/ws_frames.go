package stream

import (
	"github.com/gobwas/ws"

	"folio/actors/model/frame"
)

// The control frames a WebSocket stream sends (RFC 6455 §5.5), built like the
// events' frames: once, final and unmasked, with only WS set, so the writer pool
// sends them as it sends events (an SSE connection never gets them).
var (
	// wsPing is the keepalive: a ping without payload (0x89 0x00).
	wsPing = wsControl(frame.OpPing, nil)
	// closeAccessEnded follows End's final frame: the credential that opened the
	// stream no longer allows it.
	closeAccessEnded = wsClose(ws.StatusPolicyViolation, "access ended: reconnect with a valid credential")
	// closeTryAgainLater says goodbye to a client dropped for falling behind, or
	// because the node shuts down.
	closeTryAgainLater = wsClose(statusTryAgainLater, "stream ended (too far behind or shutting down): reconnect")
)

// statusTryAgainLater is close status 1013, registered with IANA after RFC 6455.
const statusTryAgainLater ws.StatusCode = 1013

// wsControl frames a control payload (at most 125 bytes).
func wsControl(op byte, payload []byte) *frame.Frame {
	b := frame.AppendWSHeader(make([]byte, 0, 2+len(payload)), op, len(payload))
	return &frame.Frame{WS: append(b, payload...)}
}

// wsClose frames a close with its status code and reason (cut to fit 125 bytes).
func wsClose(code ws.StatusCode, reason string) *frame.Frame {
	return wsControl(frame.OpClose, ws.NewCloseFrameBody(code, reason))
}
