package client

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"strconv"
	"time"
)

// Reconnection pacing of an event stream: after a lost or refused connection the
// next attempt waits a jittered backoff (minBackoff doubling up to maxBackoff, or the
// server's Retry-After when longer). A connection that lasted healthyAfter, or
// delivered an event, counts as healthy and resets the backoff.
const (
	minBackoff   = 100 * time.Millisecond
	maxBackoff   = 10 * time.Second
	healthyAfter = 30 * time.Second
)

// EventStream is the agent's event stream, resumed across dropped connections.
//
// Invariant: last is the stream id of the last event Next returned (or the position
// a reset or the first connection set), and every connection after the first asks
// for the events after last (Last-Event-ID). The server replays exactly those
// before going live, and Next drops any event whose id is not above last, so across
// reconnects every event is returned once, in order, and none is skipped.
//
// Next and LastEventID belong to one goroutine; Close may be called from any.
type EventStream struct {
	c      *Client
	ctx    context.Context
	cancel context.CancelFunc

	last     string        // see the invariant
	pinned   bool          // last is set: given to Events, or told by a connected event
	conn     *streamConn   // the open connection; nil between connections
	failures int           // connections lost or refused since the last healthy one
	wait     time.Duration // the Retry-After of the last refusal, waited before the next attempt
	err      error         // a refusal that reconnecting cannot cure (401, 404…): every later Next returns it
	early    []*Event      // events received by Events before the connected event (none from this server)
}

// streamConn is one HTTP connection of a stream.
type streamConn struct {
	body   io.ReadCloser
	sse    *sseReader
	cancel context.CancelFunc // ends this connection (the idle watchdog's way too)
	idle   *time.Timer        // nil without a watchdog
	opened time.Time
}

// Events opens the agent's event stream (GET /v1/agent/events): every event of the
// tenant's pages. lastEventID says where to begin: "" with the events after this
// call returns, "0" with every event still retained, or the LastEventID of an
// earlier stream to go on where it stopped. The first connection's refusal (401, a
// non-numeric id: 400…) is returned here; later drops are reconnected by Next.
func (c *Client) Events(ctx context.Context, lastEventID string) (*EventStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	s := &EventStream{c: c, ctx: ctx, cancel: cancel, last: lastEventID, pinned: lastEventID != ""}
	if err := s.connect(); err != nil {
		cancel()
		return nil, err
	}
	// Without a position, live events begin after the server's latest id, which
	// the connected event tells: read it before returning, so that a connection
	// lost before then cannot move the start past an event published meanwhile.
	for !s.pinned {
		ev, err := s.receive()
		if err != nil {
			cancel()
			return nil, err
		}
		if ev != nil {
			s.early = append(s.early, ev)
		}
	}
	return s, nil
}

// Next blocks until the next event and returns it. A dropped connection is
// reconnected (with backoff, while the context lasts) and resumed after the last
// event returned. Reset control events are returned too (Type EventReset, Data a
// ResetData). The error is the context's once it ends or Close is called, or the
// server's refusal of a reconnection that retrying cannot cure (the key was
// deleted: 401).
func (s *EventStream) Next() (*Event, error) {
	if len(s.early) > 0 {
		ev := s.early[0]
		s.early = s.early[1:]
		return ev, nil
	}
	for {
		ev, err := s.receive()
		if err != nil || ev != nil {
			return ev, err
		}
	}
}

// receive reads one event from the open connection, connecting first when there
// is none: the event to hand out, nil for one that is not (the connected event, an
// event already returned, a lost connection), or the error that ends the stream.
func (s *EventStream) receive() (*Event, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := s.ctx.Err(); err != nil {
		s.hangUp()
		return nil, err
	}
	if s.conn == nil {
		if !s.pause() {
			return nil, nil // the context ended: the next call reports it
		}
		if err := s.connect(); err != nil {
			if !retryable(err) && s.ctx.Err() == nil {
				s.err = err
				s.cancel()
				return nil, err
			}
			s.failures++
			s.wait, _ = RetryAfter(err)
			return nil, nil
		}
	}
	raw, err := s.conn.sse.next()
	if err != nil {
		s.hangUp()
		return nil, nil
	}
	return s.accept(raw), nil
}

// LastEventID is the stream id to resume from: give it to Events to go on after the
// last event Next returned (for instance after a restart).
func (s *EventStream) LastEventID() string { return s.last }

// Close ends the stream; a Next in progress returns.
func (s *EventStream) Close() error {
	s.cancel()
	return nil
}

// accept applies one received event to the stream's position and returns what
// Next hands out: nil for the connected event and for an event already returned.
func (s *EventStream) accept(raw sseEvent) *Event {
	var ev Event
	if json.Unmarshal(raw.data, &ev) != nil {
		return nil // not an event of this API
	}
	switch ev.Type {
	case "connected":
		// Without a position the server sends live events only: they begin after
		// its latest id, which is where a reconnection must resume.
		if !s.pinned {
			var hello struct {
				LatestID    string `json:"latestId"`
				LastEventID string `json:"lastEventId"`
			}
			_ = json.Unmarshal(raw.data, &hello)
			s.last, s.pinned = cmp.Or(hello.LatestID, hello.LastEventID), true
		}
		return nil
	case EventReset:
		// The events owed are not all retained: the server goes on from its oldest
		// retained event, or from its latest one when none follows.
		var r ResetData
		_ = json.Unmarshal(ev.Data, &r)
		if oldest, ok := seq(r.OldestID); ok && oldest > 0 {
			s.last, s.pinned = strconv.FormatUint(oldest-1, 10), true
		} else if _, ok := seq(r.LatestID); ok {
			s.last, s.pinned = r.LatestID, true
		}
		ev.ID = ""
		s.failures = 0
		return &ev
	}
	id := cmp.Or(raw.id, ev.ID)
	n, ok := seq(id)
	if !ok {
		return &ev // an event without a stream id is not a position
	}
	if last, known := seq(s.last); known && n <= last {
		return nil // already returned before a reconnection
	}
	s.last, s.pinned, ev.ID = id, true, id
	s.failures = 0
	return &ev
}

// connect opens one connection, asking for the events after s.last. The idle
// watchdog runs from the request on, so a server that never answers is given up
// on too.
func (s *EventStream) connect() error {
	ctx, cancel := context.WithCancel(s.ctx)
	conn := &streamConn{cancel: cancel, opened: time.Now()}
	if d := s.c.streamIdle; d > 0 {
		conn.idle = time.AfterFunc(d, cancel)
	}
	fail := func(err error) error {
		if conn.idle != nil {
			conn.idle.Stop()
		}
		cancel()
		return err
	}
	req, err := s.c.newRequest(ctx, "GET", "/v1/agent/events", nil)
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	if s.last != "" {
		req.Header.Set("Last-Event-ID", s.last)
	}
	s.c.authorize(req)
	res, err := s.c.hc.Do(req)
	if err != nil {
		return fail(err)
	}
	if res.StatusCode != http.StatusOK {
		defer res.Body.Close()
		return fail(errorOf(res))
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "text/event-stream" {
		res.Body.Close()
		return fail(fmt.Errorf("client: /v1/agent/events answered %q, not an event stream", res.Header.Get("Content-Type")))
	}
	conn.body = res.Body
	conn.sse = &sseReader{r: bufio.NewReaderSize(res.Body, 32<<10)}
	if conn.idle != nil {
		d := s.c.streamIdle
		conn.sse.onLine = func() { conn.idle.Reset(d) }
	}
	s.conn = conn
	return nil
}

// hangUp closes the open connection, if any, and counts it as lost unless it was
// healthy for long enough.
func (s *EventStream) hangUp() {
	conn := s.conn
	if conn == nil {
		return
	}
	s.conn = nil
	if conn.idle != nil {
		conn.idle.Stop()
	}
	conn.cancel()
	_ = conn.body.Close()
	if time.Since(conn.opened) >= healthyAfter {
		s.failures = 0
	}
	s.failures++
}

// pause waits before a reconnection: nothing after a healthy connection's loss, a
// jittered backoff after repeated failures, at least the server's Retry-After. It
// reports false when the context ended first.
func (s *EventStream) pause() bool {
	d := s.wait
	s.wait = 0
	if s.failures > 1 {
		b := min(maxBackoff, minBackoff<<min(s.failures-2, 10))
		d = max(d, b/2+rand.N(b/2))
	}
	if d <= 0 {
		return s.ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// retryable tells a failure worth reconnecting after: the network, 429 and 5xx.
func retryable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Status == http.StatusTooManyRequests || e.Status >= 500
	}
	return true
}

// seq reads a stream id.
func seq(id string) (uint64, bool) {
	n, err := strconv.ParseUint(id, 10, 64)
	return n, err == nil
}
