package stream

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"folio/actors/model/frame"
)

// Replay writes events a client missed before the stream goes live (the agent
// stream's Last-Event-ID); emit writes one frame and may be called many times.
type Replay func(emit func(f *frame.Frame) error) error

// sseHeader is the response head of every SSE stream (specification §6.1, plus
// X-Accel-Buffering so proxies do not hold events back).
const sseHeader = "HTTP/1.1 200 OK\r\n" +
	"Content-Type: text/event-stream\r\n" +
	"Cache-Control: no-cache\r\n" +
	"Connection: keep-alive\r\n" +
	"X-Accel-Buffering: no\r\n" +
	"X-Content-Type-Options: nosniff\r\n" +
	"Transfer-Encoding: chunked\r\n"

// ServeSSE serves c as a server-sent event stream: the headers and preamble (the
// `connected` event or `: heartbeat`) go out first, then replay's frames, then every
// frame sent to c. On HTTP/1.1 the connection is hijacked and handed to the writer
// pool, and ServeSSE returns at once; otherwise it writes from this goroutine until
// the stream ends. The caller must not touch w afterwards.
func (c *Conn) ServeSSE(w http.ResponseWriter, r *http.Request, preamble []byte, replay Replay) {
	if !c.hub.track(c, false) {
		c.Close()
		return
	}
	if r.ProtoMajor == 1 && r.ProtoMinor >= 1 {
		if nc, brw, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = brw // anything a client sent after its request is ignored
			c.adopt(nc)
			c.serveHijacked(preamble, replay)
			return
		}
	}
	c.serveFallback(w, r, preamble, replay)
}

func (c *Conn) serveHijacked(preamble []byte, replay Replay) {
	var head bytes.Buffer
	head.WriteString(sseHeader)
	head.WriteString("Date: " + time.Now().UTC().Format(http.TimeFormat) + "\r\n\r\n")
	writeChunk(&head, preamble)
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.hub.opt.WriteTimeout))
	if _, err := c.nc.Write(head.Bytes()); err != nil {
		c.Close()
		return
	}
	if replay != nil {
		var buf bytes.Buffer
		flush := func() error {
			if buf.Len() == 0 {
				return nil
			}
			_ = c.nc.SetWriteDeadline(time.Now().Add(c.hub.opt.WriteTimeout))
			_, err := c.nc.Write(buf.Bytes())
			buf.Reset()
			return err
		}
		var batch bytes.Buffer
		err := replay(func(f *frame.Frame) error {
			batch.Write(f.SSE)
			if batch.Len() >= 64<<10 {
				writeChunk(&buf, batch.Bytes())
				batch.Reset()
				return flush()
			}
			return nil
		})
		if err == nil {
			writeChunk(&buf, batch.Bytes())
			err = flush()
		}
		if err != nil {
			c.Close()
			return
		}
	}
	_ = c.nc.SetWriteDeadline(time.Time{})
	if c.hub.poller != nil && c.raw != nil {
		c.hub.poller.add(c)
	}
	c.goLive()
}

func writeChunk(b *bytes.Buffer, data []byte) {
	if len(data) == 0 {
		return
	}
	b.WriteString(strconv.FormatInt(int64(len(data)), 16))
	b.WriteString("\r\n")
	b.Write(data)
	b.WriteString("\r\n")
}

// serveFallback streams through the ResponseWriter (HTTP/2, or a writer that cannot
// be hijacked) from the handler's goroutine.
func (c *Conn) serveFallback(w http.ResponseWriter, r *http.Request, preamble []byte, replay Replay) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(c.hub.opt.WriteTimeout))
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
	}
	defer c.Close()
	if err := write(preamble); err != nil {
		return
	}
	if replay != nil {
		if err := replay(func(f *frame.Frame) error { return write(f.SSE) }); err != nil {
			return
		}
	}
	c.goLive()
	t := time.NewTicker(c.hub.opt.Keepalive)
	defer t.Stop()
	var buf bytes.Buffer
	for {
		select {
		case <-c.closed:
			return
		case <-r.Context().Done():
			return
		case <-t.C:
			if write(keepaliveFrame.SSE) != nil {
				return
			}
		case <-c.wake:
			frames := c.take()
			buf.Reset()
			for _, f := range frames {
				buf.Write(f.SSE)
			}
			if buf.Len() > 0 {
				if write(buf.Bytes()) != nil {
					return // the client is gone or too slow for the write timeout
				}
				c.hub.delivered.Add(uint64(len(frames)))
			}
			if c.finished() {
				return
			}
		}
	}
}
