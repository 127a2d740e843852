package node

import (
	"net"
	"sync"
)

// resumeListener hands the HTTP server connections that were hijacked and are
// given back (a parked long-poll, answered: httpapi.Server.SetResume): served by
// the same http.Server as the node's listener, each as a new connection, so the
// client's next request on it is read and answered as any other.
//
// Invariant: once Close has run (http.Server.Shutdown closes every listener it
// serves), Resume refuses every connection, and its caller closes it.
type resumeListener struct {
	addr net.Addr
	ch   chan net.Conn
	once sync.Once
	done chan struct{}
}

func newResumeListener(addr net.Addr) *resumeListener {
	return &resumeListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

// Resume queues c for the server; false once the listener is closed.
func (l *resumeListener) Resume(c net.Conn) bool {
	select {
	case <-l.done:
		return false
	default:
	}
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *resumeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *resumeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *resumeListener) Addr() net.Addr { return l.addr }
