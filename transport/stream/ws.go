package stream

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"

	"folio/actors/model/frame"
)

// IsWebSocket tells whether r asks for a WebSocket upgrade.
func IsWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// ServeWS serves c over WebSocket: one text message per frame, the same JSON bytes
// as the SSE data line (first, the connected message when given, then replay's
// frames, then every frame sent to c). Pings keep the connection alive every
// keepalive interval; a client that does not answer within the write timeout, or
// falls behind, is disconnected. It returns when the stream ends.
func (c *Conn) ServeWS(w http.ResponseWriter, r *http.Request, connected *frame.Frame, replay Replay) {
	if !c.hub.track(c, true) {
		c.Close()
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		c.Close() // Accept has answered the request
		return
	}
	// The request's context must not be used after the upgrade.
	ctx := ws.CloseRead(context.Background())
	status, reason := websocket.StatusNormalClosure, ""
	defer func() {
		c.Close()
		_ = ws.Close(status, reason)
	}()
	write := func(b []byte) error {
		wctx, cancel := context.WithTimeout(ctx, c.hub.opt.WriteTimeout)
		defer cancel()
		return ws.Write(wctx, websocket.MessageText, b)
	}
	if connected != nil {
		if write(connected.JSON) != nil {
			return
		}
	}
	if replay != nil {
		if err := replay(func(f *frame.Frame) error { return write(f.JSON) }); err != nil {
			return
		}
	}
	c.goLive()
	t := time.NewTicker(c.hub.opt.Keepalive)
	defer t.Stop()
	for {
		select {
		case <-c.closed:
			status, reason = websocket.StatusTryAgainLater, "stream ended (too far behind or shutting down): reconnect"
			return
		case <-ctx.Done():
			return
		case <-t.C:
			pctx, cancel := context.WithTimeout(ctx, c.hub.opt.WriteTimeout)
			err := ws.Ping(pctx)
			cancel()
			if err != nil {
				return
			}
		case <-c.wake:
			frames := c.take()
			for _, f := range frames {
				if f.JSON == nil {
					continue
				}
				if write(f.JSON) != nil {
					return
				}
			}
			c.hub.delivered.Add(uint64(len(frames)))
			if c.finished() {
				status, reason = websocket.StatusPolicyViolation, "access ended: reconnect with a valid credential"
				return
			}
		}
	}
}
