package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gobwas/ws"
)

// Message is one event received from a stream: its id (SSE `id:` line or the JSON
// `id` field) and its JSON payload.
type Message struct {
	ID   string
	Type string
	Data json.RawMessage // the whole payload {"type":…, "data":…}
}

// Subscribe opens an SSE or WebSocket stream at path and calls fn for every event
// until ctx ends, fn returns false, or the server closes the stream. lastID, when
// set, asks for replay after it.
func (n *Node) Subscribe(ctx context.Context, transport, path, key, lastID string, fn func(Message) bool) error {
	if transport == "ws" {
		return n.subscribeWS(ctx, path, key, lastID, fn)
	}
	return n.subscribeSSE(ctx, path, key, lastID, fn)
}

func (n *Node) subscribeSSE(ctx context.Context, path, key, lastID string, fn func(Message) bool) error {
	req, err := http.NewRequestWithContext(ctx, "GET", n.URL+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	cli := &http.Client{Transport: n.Client.Transport} // no overall timeout on a stream
	res, err := cli.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("stream %s: status %d", path, res.StatusCode)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var id string
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if data.Len() > 0 {
				m := Message{ID: id, Data: append(json.RawMessage(nil), data.Bytes()...)}
				m.Type = typeOf(m.Data)
				if !fn(m) {
					return nil
				}
			}
			id = ""
			data.Reset()
		case line[0] == ':':
		case bytes.HasPrefix(line, []byte("id:")):
			id = strings.TrimSpace(string(line[3:]))
		case bytes.HasPrefix(line, []byte("data:")):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(bytes.TrimPrefix(line[5:], []byte(" ")))
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return sc.Err()
}

// subscribeWS reads a WebSocket stream as lean as subscribeSSE reads SSE (one
// buffered reader, frames parsed in place, pings answered), so that the two
// transports cost the harness alike and a comparison between them measures the
// server: on two cores the clients' CPU is taken from the server it measures.
func (n *Node) subscribeWS(ctx context.Context, path, key, lastID string, fn func(Message) bool) error {
	u := "ws" + strings.TrimPrefix(n.URL, "http") + path
	if lastID != "" {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + "last_event_id=" + lastID
	}
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	conn, br, _, err := ws.Dialer{Header: ws.HandshakeHeaderHTTP(h), Timeout: 60 * time.Second}.Dial(ctx, u)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	r := io.Reader(conn)
	if br != nil { // the server spoke right behind its handshake
		r = io.MultiReader(br, conn)
	}
	rd := bufio.NewReaderSize(r, 4<<10)
	var msg []byte
	for {
		hd, err := ws.ReadHeader(rd)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if hd.Length > 4<<20 {
			return fmt.Errorf("stream %s: a %d-byte frame", path, hd.Length)
		}
		payload := make([]byte, hd.Length)
		if _, err := io.ReadFull(rd, payload); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		switch hd.OpCode {
		case ws.OpPing:
			if err := ws.WriteFrame(conn, ws.MaskFrameInPlace(ws.NewPongFrame(payload))); err != nil {
				return err
			}
			continue
		case ws.OpClose:
			code, reason := ws.ParseCloseFrameData(payload)
			return fmt.Errorf("stream %s: closed by the server: %d %s", path, code, reason)
		case ws.OpPong:
			continue
		}
		msg = append(msg, payload...)
		if !hd.Fin {
			continue
		}
		m := Message{Data: msg, Type: typeOf(msg), ID: idOf(msg)}
		msg = nil
		if !fn(m) {
			return nil
		}
	}
}

// typeOf reads an event's type. Folio writes `"type":"…"` near the start of every
// payload and types never need escaping, so a scan finds it without parsing the
// payload (5,000 viewers parse every event: the harness must stay cheaper than the
// server it measures); anything else falls back to JSON.
func typeOf(b []byte) string {
	if v, ok := plainField(b, `"type":"`); ok {
		return v
	}
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(b, &head)
	return head.Type
}

// idOf reads a WebSocket message's stream id, the field Folio writes first
// (`{"id":"…"`), without parsing the payload, as typeOf does (the SSE reader takes
// it from the id line, for free: both transports must cost the harness alike);
// anything else falls back to JSON.
func idOf(b []byte) string {
	if bytes.HasPrefix(b, []byte(`{"id":"`)) {
		if v, ok := plainField(b, `{"id":"`); ok {
			return v
		}
	}
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(b, &head) != nil {
		return ""
	}
	return strings.Trim(string(head.ID), `"`)
}

// plainField returns the string after key up to the next quote when it holds no
// escape.
func plainField(b []byte, key string) (string, bool) {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return "", false
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return "", false
	}
	return string(rest[:j]), true
}
