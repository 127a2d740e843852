package stream

import (
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"folio/actors/model/frame"
)

// Conn is one client's stream; it implements page.Subscriber. It starts pending
// (frames queue while the handler writes headers, the first event and any replay),
// then goes live, and ends closed. Invariants: frames are written in the order Send
// accepted them, each exactly once; at most one writer (pool or catch-up goroutine)
// owns the socket at a time (writing); the queue never exceeds its bounds.
type Conn struct {
	hub *Hub

	mu        sync.Mutex
	state     uint8
	queue     []*frame.Frame
	spare     []*frame.Frame
	qbytes    int
	scheduled bool // on a writer's ready list
	writing   bool // a writer owns the socket
	onClose   []func()
	skip      uint64 // frames with 0 < Seq <= skip were replayed already
	// ending: End queued the stream's last frame; nothing more is accepted, and the
	// stream closes once the queue has been written.
	ending bool
	// ws: a WebSocket stream (set before it is served): the pool writes f.WS, not
	// f.Chunk. closing: a WebSocket close frame is queued as the last frame (then
	// ending is true too), so no other close frame is ever sent.
	ws, closing bool

	// Pooled (hijacked HTTP/1.1 SSE, and WebSocket): written by the pool.
	nc     net.Conn
	raw    syscall.RawConn // nil: no non-blocking I/O (every flush takes the catch-up path)
	w      *writer
	token  uint64 // poller registration (0: none)
	iov    [][]byte
	closed chan struct{}

	// in is what a WebSocket client sent that is not yet consumed; only the
	// connection's one reader (the poller, or its fallback goroutine) touches it.
	in wsInput

	// The SSE fallback (HTTP/2: not hijackable) is woken here.
	wake chan struct{}
}

const (
	pending uint8 = iota
	live
	closed
)

// NewConn makes a pending subscriber. Pass it to the actor that publishes (which
// may Send at once), then serve it with ServeSSE or ServeWS.
func (h *Hub) NewConn() *Conn {
	return &Conn{hub: h, closed: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// OnClose registers fn to run once when the stream ends (for any reason). Functions
// run on whichever goroutine ends it and must not block.
func (c *Conn) OnClose(fn func()) {
	c.mu.Lock()
	if c.state == closed {
		c.mu.Unlock()
		fn()
		return
	}
	c.onClose = append(c.onClose, fn)
	c.mu.Unlock()
}

// Done is closed when the stream has ended.
func (c *Conn) Done() <-chan struct{} { return c.closed }

// Send implements page.Subscriber: it queues f without blocking and reports false
// once the stream is closed or f would overflow the queue (the stream is then
// closed: its client reconnects, and agents replay with Last-Event-ID).
func (c *Conn) Send(f *frame.Frame) bool { return c.enqueue(f, false) }

// enqueue queues f behind the queued frames, or ahead of them when front is set
// (a WebSocket pong: the queue holds whole frames only, none of them partly
// written, so a control frame put first never lands inside a message).
func (c *Conn) enqueue(f *frame.Frame, front bool) bool {
	c.mu.Lock()
	if c.state == closed || c.ending {
		c.mu.Unlock()
		return false
	}
	if f.Seq != 0 && f.Seq <= c.skip {
		// Replayed already: the replay can read an event from the log before the
		// actor that committed it has handed it to its subscribers.
		c.mu.Unlock()
		return true
	}
	limitFrames, limitBytes := c.hub.opt.QueueFrames, c.hub.opt.QueueBytes
	if c.state == pending {
		limitFrames, limitBytes = limitFrames*4, limitBytes*2 // room for a replay in progress
	}
	if len(c.queue) > 0 && (len(c.queue) >= limitFrames || c.qbytes+len(f.SSE) > limitBytes) {
		c.mu.Unlock()
		c.hub.dropped.Add(1)
		c.Close()
		return false
	}
	if front {
		c.queue = append(c.queue, nil)
		copy(c.queue[1:], c.queue)
		c.queue[0] = f
	} else {
		c.queue = append(c.queue, f)
	}
	c.qbytes += len(f.SSE)
	c.scheduleLocked()
	return true
}

// scheduleLocked hands a live stream with queued frames to its writer (pool, or the
// fallback goroutine) unless one has it already; it unlocks c.mu.
func (c *Conn) scheduleLocked() {
	if c.state != live || c.writing || c.scheduled || len(c.queue) == 0 {
		c.mu.Unlock()
		return
	}
	if c.nc != nil {
		c.scheduled = true
		w := c.w
		c.mu.Unlock()
		w.push(c)
		return
	}
	c.mu.Unlock()
	c.signal()
}

// End implements page.Subscriber: final is the last frame the client gets (a
// `reset` naming why the stream ends: credential revoked, access changed); then the
// stream closes (WebSocket: status 1008, policy violation). Events sent after End
// are refused, so nothing follows the final frame. It never blocks.
func (c *Conn) End(final *frame.Frame) {
	c.mu.Lock()
	if c.state == closed || c.ending {
		c.mu.Unlock()
		return
	}
	c.ending = true
	c.queue = append(c.queue, final)
	c.qbytes += len(final.SSE)
	if c.ws {
		c.queue = append(c.queue, closeAccessEnded)
		c.closing = true
	}
	c.scheduleLocked() // written (then closed) when the stream goes live or its write ends
}

// closeWith makes a WebSocket close frame the stream's last: what is queued and not
// yet being written is dropped (the client is told the stream ends, not what it
// missed), nothing more is accepted, and the socket closes once it is written.
// Nothing happens when a close frame is queued already.
func (c *Conn) closeWith(f *frame.Frame) {
	c.mu.Lock()
	if c.state == closed || c.closing {
		c.mu.Unlock()
		return
	}
	clear(c.queue)
	c.queue = append(c.queue[:0], f)
	c.qbytes = 0
	c.ending, c.closing = true, true
	c.scheduleLocked()
}

// finished reports whether End's final frame has been written: the stream should
// close now.
func (c *Conn) finished() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ending && len(c.queue) == 0
}

func (c *Conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// take removes every queued frame (for goroutine-driven writers).
func (c *Conn) take() []*frame.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.queue
	c.queue, c.qbytes = nil, 0
	return q
}

// SkipThrough makes the stream drop every frame with a sequence number up to seq,
// queued already or sent later: a replay that read the log up to seq has written
// them. Frames arrive in commit order, so what remains follows the replay with no
// gap and no duplicate. Call it from a Replay.
func (c *Conn) SkipThrough(seq uint64) {
	c.mu.Lock()
	c.skip = max(c.skip, seq)
	c.mu.Unlock()
}

// goLive switches a pending stream to live: what queued meanwhile is written next.
func (c *Conn) goLive() {
	c.mu.Lock()
	if c.state != pending {
		c.mu.Unlock()
		return
	}
	if c.skip > 0 {
		kept := c.queue[:0]
		for _, f := range c.queue {
			if f.Seq != 0 && f.Seq <= c.skip {
				c.qbytes -= len(f.SSE)
				continue
			}
			kept = append(kept, f)
		}
		clear(c.queue[len(kept):])
		c.queue = kept
	}
	c.state = live
	c.scheduleLocked()
}

// pooled tells whether the writer pool serves this connection.
func (c *Conn) pooled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nc != nil && c.state == live
}

// Close ends the stream (idempotent): the socket closes, queued frames are
// discarded and the OnClose functions run. A live WebSocket client whose socket
// nobody is writing and that was sent no close frame yet gets one first, status
// 1013 (try again later: it fell behind, or the node is shutting down), written
// only if the socket takes it at once.
func (c *Conn) Close() { c.close(true) }

// hangUp ends a stream whose client has gone: nobody is left to say goodbye to.
func (c *Conn) hangUp() { c.close(false) }

func (c *Conn) close(goodbye bool) {
	c.mu.Lock()
	if c.state == closed {
		c.mu.Unlock()
		return
	}
	// No writer owns the socket (writing is false) and none will once the state is
	// closed, so the goodbye cannot land inside another frame.
	goodbye = goodbye && c.ws && c.state == live && !c.writing && !c.closing && c.raw != nil
	// A WebSocket that said goodbye (its close frame is written) closes cleanly:
	// unread bytes from the client would make the kernel reset the connection, and
	// the client could lose the close frame with it (RFC 6455 §7.1.1).
	linger := c.ws && (goodbye || c.closing)
	c.state = closed
	clear(c.queue)
	c.queue, c.spare, c.qbytes = nil, nil, 0
	fns := c.onClose
	c.onClose = nil
	nc := c.nc
	c.mu.Unlock()
	c.hub.forget(c)
	if nc != nil {
		if c.hub.poller != nil {
			c.hub.poller.remove(c)
		}
		if goodbye {
			_, _ = writeNonblocking(c.raw, [][]byte{closeTryAgainLater.WS})
		}
		if linger {
			go lingerClose(nc, c.hub.opt.WriteTimeout)
		} else {
			_ = nc.Close()
		}
	}
	close(c.closed)
	for _, fn := range fns {
		fn()
	}
}

// flushPooled runs on a pool writer: it writes everything queued with one
// non-blocking write(v) (each frame its own HTTP chunk) and returns how many frames
// it handed to the socket. What the socket does not take at once is finished by a
// catch-up goroutine, so the pool never waits for a client.
func (c *Conn) flushPooled() int {
	c.mu.Lock()
	c.scheduled = false
	if c.state != live || c.writing || len(c.queue) == 0 {
		c.mu.Unlock()
		return 0
	}
	frames := c.queue
	c.queue, c.spare, c.qbytes = c.spare[:0], nil, 0 // the spare array now belongs to the queue
	c.writing = true
	c.mu.Unlock()

	bufs := c.chunk(frames)
	total := 0
	for _, b := range bufs {
		total += len(b)
	}
	n, err := 0, error(nil)
	if c.raw != nil {
		n, err = writeNonblocking(c.raw, bufs)
	}
	if err != nil {
		c.Close()
		return 0
	}
	delivered := len(frames)
	if n < total {
		rest := advance(bufs, n)
		go c.catchUp(rest, frames)
		return delivered
	}
	c.release(frames)
	return delivered
}

// release ends a write: the frame slice is kept for reuse and, when more frames
// queued meanwhile, the connection goes back on its writer's ready list.
func (c *Conn) release(frames []*frame.Frame) {
	clear(frames)
	c.mu.Lock()
	c.writing = false
	if c.state != live {
		c.mu.Unlock()
		return
	}
	if c.ending && len(c.queue) == 0 {
		c.mu.Unlock()
		c.Close()
		return
	}
	if cap(frames) <= 64 {
		c.spare = frames[:0]
	}
	if len(c.queue) > 0 && !c.scheduled {
		c.scheduled = true
		w := c.w
		c.mu.Unlock()
		w.push(c)
		return
	}
	c.mu.Unlock()
}

// catchUp finishes a write the socket could not take at once, then writes whatever
// queued meanwhile, with blocking writes bounded by the write timeout; once the
// queue is empty the pool takes over again.
func (c *Conn) catchUp(rest [][]byte, frames []*frame.Frame) {
	buffers := net.Buffers(rest)
	for {
		_ = c.nc.SetWriteDeadline(time.Now().Add(c.hub.opt.WriteTimeout))
		if _, err := buffers.WriteTo(c.nc); err != nil {
			c.mu.Lock()
			stillLive := c.state == live // timed out or failed, not closed by someone else meanwhile
			c.mu.Unlock()
			if stillLive {
				c.hub.dropped.Add(1)
			}
			c.Close()
			return
		}
		clear(frames)
		c.mu.Lock()
		if c.state != live || len(c.queue) == 0 {
			c.writing = false
			done := c.ending && c.state == live
			c.mu.Unlock()
			_ = c.nc.SetWriteDeadline(time.Time{})
			if done {
				c.Close()
			}
			return
		}
		frames = c.queue
		c.queue, c.qbytes = nil, 0
		c.mu.Unlock()
		buffers = net.Buffers(c.chunk(frames))
		c.hub.delivered.Add(uint64(len(frames)))
	}
}

// chunk lays frames out for one writev: each frame is its own HTTP/1.1 chunk (SSE)
// or WebSocket frame, built once with the frame and shared by every subscriber. The
// returned slice aliases c.iov (one writer at a time). c.ws is set before the
// stream goes live and never changes, so the writer reads it without the lock.
func (c *Conn) chunk(frames []*frame.Frame) [][]byte {
	bufs := c.iov[:0]
	for _, f := range frames {
		if c.ws {
			bufs = append(bufs, f.WS) // nil for SSE-only lines: writev skips it
		} else {
			bufs = append(bufs, f.Chunk)
		}
	}
	if cap(bufs) <= 64 {
		c.iov = bufs
	}
	return bufs
}

// advance drops the first n bytes of bufs.
func advance(bufs [][]byte, n int) [][]byte {
	out := make([][]byte, 0, len(bufs))
	for _, b := range bufs {
		if n >= len(b) {
			n -= len(b)
			continue
		}
		out = append(out, b[n:])
		n = 0
	}
	return out
}

// lingerClose closes a socket the way RFC 6455 §7.1.1 asks of a server: it shuts
// its sending side (the client reads the close frame, then end of stream), drops
// what the client still sends until it closes too or timeout passes, then closes.
// One short-lived goroutine per WebSocket that ends with a close frame.
func lingerClose(nc net.Conn, timeout time.Duration) {
	if cw, ok := nc.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
		_ = nc.SetReadDeadline(time.Now().Add(timeout))
		_, _ = io.Copy(io.Discard, nc)
	}
	_ = nc.Close()
}

// adopt takes a hijacked or upgraded socket into the writer pool: one writer,
// chosen in turn, writes it from now on, without blocking when the socket has
// a descriptor (raw), through the catch-up path otherwise.
func (c *Conn) adopt(nc net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nc, c.w = nc, c.hub.writers[int(c.hub.next.Add(1))%len(c.hub.writers)]
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			c.raw = raw
		}
	}
}
