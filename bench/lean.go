package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// leanClient sends the harness's request-reply calls over pooled keep-alive
// HTTP/1.1 connections: the request is one write from the calling goroutine and the
// reply is read by the same goroutine with the standard parser (http.ReadResponse).
//
// It exists because net/http's client hands every request between three goroutines
// (caller, writeLoop, readLoop). At thousands of requests per second those hand-offs
// cost the harness ~64 µs of CPU per request, on the same cores as the server it
// measures; the lean path costs about a third of that. Streams (SSE, WebSocket) and
// https targets keep using net/http.
type leanClient struct {
	addr    string // host:port to dial
	host    string // Host header
	idle    chan *leanConn
	timeout time.Duration // per call, like http.Client.Timeout
}

// leanConn is one keep-alive connection, owned by one call at a time.
type leanConn struct {
	nc   net.Conn
	r    *bufio.Reader
	buf  []byte
	used time.Time // when it last went back to the pool
}

// maxIdleAge is how long a pooled connection may wait before it is discarded rather
// than reused: well inside the server's idle timeout (120 s), so a reused connection
// is never one the server is closing.
const maxIdleAge = 30 * time.Second

// newLeanClient serves plain http:// targets; nil for anything else.
func newLeanClient(base string, timeout time.Duration) *leanClient {
	rest, ok := strings.CutPrefix(base, "http://")
	if !ok {
		return nil
	}
	host, _, _ := strings.Cut(rest, "/")
	addr := host
	if _, _, err := net.SplitHostPort(host); err != nil {
		addr = net.JoinHostPort(host, "80")
	}
	return &leanClient{addr: addr, host: host, idle: make(chan *leanConn, 4096), timeout: timeout}
}

// get takes a pooled connection young enough to reuse, or dials a new one.
func (l *leanClient) get(ctx context.Context) (*leanConn, error) {
	for {
		select {
		case c := <-l.idle:
			if time.Since(c.used) < maxIdleAge {
				return c, nil
			}
			_ = c.nc.Close()
			continue
		default:
		}
		var d net.Dialer
		nc, err := d.DialContext(ctx, "tcp", l.addr)
		if err != nil {
			return nil, err
		}
		return &leanConn{nc: nc, r: bufio.NewReaderSize(nc, 16<<10)}, nil
	}
}

// put returns a connection whose reply was read to the end.
func (l *leanClient) put(c *leanConn) {
	c.used = time.Now()
	select {
	case l.idle <- c:
	default:
		_ = c.nc.Close()
	}
}

// do sends one request and returns the status and the whole reply body.
func (l *leanClient) do(ctx context.Context, method, path, key string, body []byte) (int, []byte, error) {
	c, err := l.get(ctx)
	if err != nil {
		return 0, nil, err
	}
	_ = c.nc.SetDeadline(time.Now().Add(l.timeout))
	// A cancelled or expired context ends the call at once, as it does with net/http
	// (through this callback, which runs once ctx.Err() is set, so a caller that sees
	// the error also sees its context done). The connection goes back to the pool only
	// if that can no longer happen to it.
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Unix(1, 0)) })
	status, raw, reusable, err := l.exchange(c, method, path, key, body)
	if stopped := stop(); reusable && stopped {
		l.put(c)
	} else {
		_ = c.nc.Close()
	}
	if err != nil {
		return status, nil, l.callErr(ctx, err)
	}
	return status, raw, nil
}

// exchange writes the request and reads the whole reply; reusable tells whether the
// connection is ready for another request.
func (l *leanClient) exchange(c *leanConn, method, path, key string, body []byte) (status int, raw []byte, reusable bool, err error) {
	b := append(c.buf[:0], method...)
	b = append(append(append(b, ' '), path...), " HTTP/1.1\r\nHost: "...)
	b = append(append(b, l.host...), "\r\nUser-Agent: folio-bench\r\nAccept: application/json\r\n"...)
	if key != "" {
		b = append(append(append(b, "Authorization: Bearer "...), key...), "\r\n"...)
	}
	if body != nil {
		b = append(b, "Content-Type: application/json\r\n"...)
	}
	if body != nil || method == "POST" || method == "PUT" || method == "PATCH" {
		b = append(strconv.AppendInt(append(b, "Content-Length: "...), int64(len(body)), 10), "\r\n"...)
	}
	b = append(append(b, "\r\n"...), body...)
	c.buf = b
	if _, err := c.nc.Write(b); err != nil {
		return 0, nil, false, err
	}
	res, err := http.ReadResponse(c.r, &http.Request{Method: method})
	if err != nil {
		return 0, nil, false, err
	}
	raw, err = io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return res.StatusCode, nil, false, err
	}
	return res.StatusCode, raw, !res.Close, nil
}

// callErr names a cancelled call by its context's error, as net/http does.
func (l *leanClient) callErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("no reply within %v: %w", l.timeout, err)
	}
	return err
}

// close drops every pooled connection.
func (l *leanClient) close() {
	for {
		select {
		case c := <-l.idle:
			_ = c.nc.Close()
		default:
			return
		}
	}
}
