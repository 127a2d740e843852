package stream

import (
	"net"
	"syscall"
)

// Parking a connection outside the stream machinery: a handler that hijacked an
// HTTP/1.1 request to answer it later (the long-poll GET /v1/pages/:id/wait) keeps
// only its socket and a small struct, and learns from the poller (one goroutine for
// every connection) when the client leaves.

// WatchHangup calls gone once, on the poller goroutine (it must not block), when
// nc's client hangs up. Call stop before closing nc or handing it on; gone may
// still run once if the hangup was being reported meanwhile, so it must tolerate
// that. ok is false where nothing can watch nc (not Linux, the hub closed, a socket
// without a file descriptor): the caller then learns of a departed client only
// when it writes.
func (h *Hub) WatchHangup(nc net.Conn, gone func()) (stop func(), ok bool) {
	if h.poller == nil {
		return nil, false
	}
	sc, isSys := nc.(syscall.Conn)
	if !isSys {
		return nil, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, false
	}
	return h.poller.watch(raw, gone)
}

// CanWatch tells whether WatchHangup can work on this system at all.
func (h *Hub) CanWatch() bool { return h.poller != nil }

// WriteNow writes as much of b to nc as its socket takes at once, never waiting:
// n < len(b) with a nil error means the rest must be written with a blocking
// write (a deadline set). Where no non-blocking write exists it writes nothing.
func WriteNow(nc net.Conn, b []byte) (n int, err error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return 0, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, nil
	}
	return writeNonblocking(raw, [][]byte{b})
}
