package node

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"folio/transport/httpapi"
)

// headerGuard wraps the node's listener and bounds, per client address, the
// connections that are waiting for a request's headers: new ones that have not
// finished sending their first request, and keep-alive ones between requests.
// A client that opens connections and sends its headers slowly (or never) holds a
// descriptor each until ReadHeaderTimeout (or IdleTimeout) ends it; past perAddress
// such connections, a new one from that address is answered 429 and closed at
// once, before net/http spends a goroutine or a buffer on it.
//
// Invariant: waiting[c] is set exactly while c is in the state net/http calls New
// or Idle, and count[a] is the number of waiting connections from a (a key with no
// connection is deleted). Connections from trusted proxies are not bounded here:
// behind a proxy the TCP peer is the proxy, and the proxy bounds its clients.
//
// The connections are passed to net/http unwrapped (the stream pool needs the
// *net.TCPConn for its non-blocking writes), so the guard follows them through
// http.Server.ConnState.
type headerGuard struct {
	net.Listener
	perAddress int
	trusted    httpapi.TrustedProxies
	refused    atomic.Uint64

	mu      sync.Mutex
	waiting map[net.Conn]string
	count   map[string]int
}

func newHeaderGuard(ln net.Listener, perAddress int, trusted httpapi.TrustedProxies) *headerGuard {
	return &headerGuard{Listener: ln, perAddress: perAddress, trusted: trusted, waiting: map[net.Conn]string{}, count: map[string]int{}}
}

// headerRefusal is what a connection over the bound is told before it is closed:
// the API's envelope, as a complete HTTP/1.1 response.
var headerRefusal = func() []byte {
	body := `{"error":{"code":"RATE_LIMITED","message":"too many connections from this address are still sending their request headers; finish or close them, or retry in 10 s",` +
		`"details":{"limit":"connections_reading_headers","scope":"address","retry_after":10}}}`
	return []byte(fmt.Sprintf("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 10\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
}()

// Accept returns the next connection whose address is under its bound; it closes
// the others itself.
func (g *headerGuard) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key, bounded := g.keyOf(c)
		if !bounded {
			return c, nil
		}
		g.mu.Lock()
		if g.count[key] >= g.perAddress {
			g.mu.Unlock()
			g.refuse(c)
			continue
		}
		g.waiting[c] = key
		g.count[key]++
		g.mu.Unlock()
		return c, nil
	}
}

// keyOf is the address c is counted under (httpapi.AddressKey); bounded is false
// when it is not counted at all (no bound, a trusted proxy, not an IP peer).
func (g *headerGuard) keyOf(c net.Conn) (key string, bounded bool) {
	if g.perAddress <= 0 {
		return "", false
	}
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil || g.trusted.Trusts(ap.Addr()) {
		return "", false
	}
	return httpapi.AddressKey(ap.Addr()), true
}

// refuse answers c 429 without reading it and closes it. A fresh socket's send
// buffer takes the few bytes at once; the deadline covers a peer that never reads.
func (g *headerGuard) refuse(c net.Conn) {
	g.refused.Add(1)
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = c.Write(headerRefusal)
	_ = c.Close()
}

// connState follows every connection net/http serves (http.Server.ConnState).
func (g *headerGuard) connState(c net.Conn, s http.ConnState) {
	switch s {
	case http.StateNew: // counted in Accept
	case http.StateIdle: // between requests: waiting for the next one's headers
		key, bounded := g.keyOf(c)
		if !bounded {
			return
		}
		g.mu.Lock()
		if _, ok := g.waiting[c]; !ok {
			g.waiting[c] = key
			g.count[key]++
		}
		g.mu.Unlock()
	default: // Active (headers read), Hijacked (a stream), Closed
		g.mu.Lock()
		if key, ok := g.waiting[c]; ok {
			delete(g.waiting, c)
			if g.count[key] <= 1 {
				delete(g.count, key)
			} else {
				g.count[key]--
			}
		}
		g.mu.Unlock()
	}
}
