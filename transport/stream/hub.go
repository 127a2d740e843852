// Package stream writes live events to clients over SSE and WebSocket. Both share one
// event encoding (frame.Frame: the SSE event as an HTTP/1.1 chunk, and the same JSON
// as a WebSocket message), built once per event by whoever publishes it and shared
// by every subscriber.
//
// Fan-out cost is kept to the bare minimum per delivery, and is the same for both
// transports. An SSE connection is hijacked after its headers, a WebSocket one by
// its upgrade (net/http's per-connection buffers and goroutine are released), and a
// small pool of writer goroutines (one per CPU) writes frames to the sockets with
// non-blocking writev calls: an idle subscriber costs no goroutine and no buffer,
// only its socket and a small struct. A socket that cannot take a write at once gets
// a goroutine of its own that writes with a deadline until it has caught up;
// meanwhile frames queue, and a subscriber whose queue exceeds its bound (or whose
// write times out) is disconnected without delaying anyone else. Queued frames are
// written with one writev. On Linux one epoll goroutine (the poller) notices clients
// that hang up, so their subscriptions end at once rather than at the next write,
// and reads what WebSocket clients send (pongs, pings, close) without a goroutine or
// a buffer per connection.
//
// SSE on HTTP/2, where hijacking is impossible, runs one goroutine per connection;
// so does reading a WebSocket client where the poller is unavailable (not Linux, or
// a socket without a file descriptor).
package stream

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"folio/actors/model/frame"
)

// Options tune a Hub; zero fields take the defaults.
type Options struct {
	// Keepalive is the interval of `: keepalive` comments (SSE) and pings (WebSocket);
	// default 30 s (specification §8).
	Keepalive time.Duration
	// QueueFrames bounds a live subscriber's queue of unwritten frames (default 256);
	// QueueBytes bounds their size (default 4 MiB, at least one frame always fits).
	QueueFrames int
	QueueBytes  int
	// WriteTimeout is how long a subscriber may leave a write pending before it is
	// disconnected (default 10 s).
	WriteTimeout time.Duration
	// Writers is the number of writer goroutines (default GOMAXPROCS).
	Writers int
}

func (o *Options) defaults() {
	if o.Keepalive <= 0 {
		o.Keepalive = 30 * time.Second
	}
	if o.QueueFrames <= 0 {
		o.QueueFrames = 256
	}
	if o.QueueBytes <= 0 {
		o.QueueBytes = 4 << 20
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.Writers <= 0 {
		o.Writers = runtime.GOMAXPROCS(0)
	}
}

// Hub owns every live stream connection of a node.
type Hub struct {
	opt     Options
	writers []*writer
	next    atomic.Uint32
	poller  *poller // nil where unsupported

	mu     sync.Mutex
	conns  map[*Conn]bool // value: the connection is a WebSocket
	ws     int            // WebSocket connections among conns
	closed bool
	stop   chan struct{}
	wg     sync.WaitGroup

	delivered atomic.Uint64
	dropped   atomic.Uint64
}

// NewHub starts the writer pool and the keepalive timer.
func NewHub(opt Options) *Hub {
	opt.defaults()
	h := &Hub{opt: opt, conns: map[*Conn]bool{}, stop: make(chan struct{})}
	for i := 0; i < opt.Writers; i++ {
		w := &writer{wake: make(chan struct{}, 1)}
		h.writers = append(h.writers, w)
		h.wg.Add(1)
		go func() { defer h.wg.Done(); w.run(h.stop, &h.delivered) }()
	}
	h.poller = newPoller()
	h.wg.Add(1)
	go func() { defer h.wg.Done(); h.keepalive() }()
	return h
}

// Keepalive is the configured keepalive interval.
func (h *Hub) Keepalive() time.Duration { return h.opt.Keepalive }

// Subscribers is the number of open stream connections.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

// SubscribersByTransport is the number of open SSE and WebSocket connections.
func (h *Hub) SubscribersByTransport() (sse, ws int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns) - h.ws, h.ws
}

// Delivered counts frames written to clients; Dropped counts clients disconnected
// because they could not keep up.
func (h *Hub) Delivered() uint64 { return h.delivered.Load() }

// Dropped counts subscribers disconnected for falling behind.
func (h *Hub) Dropped() uint64 { return h.dropped.Load() }

// Close ends every stream and stops the writers.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	conns := make([]*Conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	close(h.stop)
	h.wg.Wait()
	if h.poller != nil {
		h.poller.close()
	}
}

func (h *Hub) track(c *Conn, ws bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	if _, ok := h.conns[c]; !ok && ws {
		h.ws++
	}
	h.conns[c] = ws
	return true
}

func (h *Hub) forget(c *Conn) {
	h.mu.Lock()
	if ws, ok := h.conns[c]; ok {
		if ws {
			h.ws--
		}
		delete(h.conns, c)
	}
	h.mu.Unlock()
}

// keepaliveFrame is the SSE comment sent on idle and busy streams alike.
var keepaliveFrame = frame.Raw(len(": keepalive\n\n"), func(b []byte) []byte { return append(b, ": keepalive\n\n"...) })

// keepalive queues `: keepalive` to every pooled SSE connection and a ping to every
// pooled WebSocket one each interval, behind their events (fallback SSE keeps its
// own time). A client that stops reading is found by its write timeout, as for SSE:
// pongs are not awaited.
func (h *Hub) keepalive() {
	t := time.NewTicker(h.opt.Keepalive)
	defer t.Stop()
	type target struct {
		c  *Conn
		ws bool
	}
	var batch []target
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		batch = batch[:0]
		h.mu.Lock()
		for c, ws := range h.conns {
			batch = append(batch, target{c, ws})
		}
		h.mu.Unlock()
		for _, b := range batch {
			if !b.c.pooled() {
				continue
			}
			if b.ws {
				b.c.enqueue(wsPing, false)
			} else {
				b.c.enqueue(keepaliveFrame, false)
			}
		}
		clear(batch)
	}
}

// writer is one goroutine of the pool: it writes the queued frames of the
// connections put on its ready list, never blocking on any of them.
type writer struct {
	mu    sync.Mutex
	ready []*Conn
	spare []*Conn
	wake  chan struct{}
}

func (w *writer) push(c *Conn) {
	w.mu.Lock()
	w.ready = append(w.ready, c)
	first := len(w.ready) == 1
	w.mu.Unlock()
	if first {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

func (w *writer) run(stop <-chan struct{}, delivered *atomic.Uint64) {
	for {
		select {
		case <-stop:
			return
		case <-w.wake:
		}
		for {
			w.mu.Lock()
			batch := w.ready
			w.ready = w.spare[:0]
			w.mu.Unlock()
			if len(batch) == 0 {
				w.spare = batch
				break
			}
			n := 0
			for _, c := range batch {
				n += c.flushPooled()
			}
			delivered.Add(uint64(n)) // once per batch: no shared cache line per delivery
			clear(batch)
			w.spare = batch[:0]
		}
	}
}
