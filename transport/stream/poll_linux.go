//go:build linux

package stream

import (
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// poller is one epoll instance, and one goroutine, for every pooled connection: it
// ends the stream of a client that hangs up (EPOLLRDHUP, EPOLLHUP, EPOLLERR) at once
// instead of at the next failed write, and reads what WebSocket clients send
// (EPOLLIN) without a goroutine or a buffer per connection.
//
// Invariants: every socket is registered with EPOLLONESHOT, so once epoll has
// reported it, it says nothing more about it until the poller re-arms it
// (EPOLL_CTL_MOD), which the poller does only after reading what the socket held:
// the poller goroutine is the one reader of a registered socket. Registering,
// re-arming and removing run inside RawConn.Control, while the descriptor is
// certainly open, so none of them can reach a socket that reused the descriptor of a
// closed one; tokens are never reused, so a stale event finds no connection.
type poller struct {
	epfd  int
	wake  int // eventfd registered with token 0: close wakes the loop at once
	mu    sync.Mutex
	conns map[uint64]*Conn
	// watches are the sockets parked outside the stream machinery (WatchHangup):
	// what runs, once, when their client hangs up.
	watches map[uint64]func()
	next    uint64
	stop    chan struct{}
	done    chan struct{}
	buf     []byte // the read buffer: only the poller goroutine uses it
}

// pollReadBurst bounds how much the poller reads from one socket before it turns
// to the others (a client that sends without pause cannot starve them): the socket
// is re-armed, and epoll reports it again at once if more is waiting.
const pollReadBurst = 16

func newPoller() *poller {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		_ = unix.Close(fd)
		return nil
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN}
	if err := unix.EpollCtl(fd, unix.EPOLL_CTL_ADD, wake, &ev); err != nil {
		_ = unix.Close(fd)
		_ = unix.Close(wake)
		return nil
	}
	p := &poller{epfd: fd, wake: wake, conns: map[uint64]*Conn{}, watches: map[uint64]func(){}, stop: make(chan struct{}), done: make(chan struct{}),
		buf: make([]byte, 4<<10)}
	go p.run()
	return p
}

// interest is what the poller watches: hangups, and for WebSocket what the client
// sends (an SSE client has nothing to say).
func interest(ws bool, tok uint64) *unix.EpollEvent {
	ev := &unix.EpollEvent{Events: unix.EPOLLRDHUP | unix.EPOLLONESHOT, Fd: int32(tok), Pad: int32(tok >> 32)}
	if ws {
		ev.Events |= unix.EPOLLIN
	}
	return ev
}

// add registers c's socket (c.raw must be set); false when it could not be
// registered (nothing then watches it).
func (p *poller) add(c *Conn) bool {
	p.mu.Lock()
	p.next++
	tok := p.next
	p.conns[tok] = c
	p.mu.Unlock()
	c.mu.Lock()
	c.token = tok
	ws := c.ws
	c.mu.Unlock()
	var err error
	cerr := c.raw.Control(func(fd uintptr) {
		err = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, int(fd), interest(ws, tok))
	})
	if err != nil || cerr != nil {
		p.mu.Lock()
		delete(p.conns, tok)
		p.mu.Unlock()
		return false
	}
	c.mu.Lock()
	gone := c.state == closed
	c.mu.Unlock()
	if gone { // closed while registering: undo
		p.mu.Lock()
		delete(p.conns, tok)
		p.mu.Unlock()
	}
	return true
}

// remove unregisters c; call it before closing the socket.
func (p *poller) remove(c *Conn) {
	c.mu.Lock()
	tok := c.token
	c.token = 0
	c.mu.Unlock()
	if tok == 0 {
		return
	}
	p.mu.Lock()
	delete(p.conns, tok)
	p.mu.Unlock()
	_ = c.raw.Control(func(fd uintptr) {
		_ = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, int(fd), nil)
	})
}

func (p *poller) run() {
	defer close(p.done)
	events := make([]unix.EpollEvent, 128)
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		n, err := unix.EpollWait(p.epfd, events, -1)
		if err != nil && err != unix.EINTR {
			return
		}
		for i := 0; i < n; i++ {
			tok := uint64(uint32(events[i].Fd)) | uint64(uint32(events[i].Pad))<<32
			if tok == 0 {
				continue // the wake-up: stop is checked above
			}
			p.mu.Lock()
			c := p.conns[tok]
			gone, watched := p.watches[tok]
			delete(p.watches, tok)
			p.mu.Unlock()
			if watched {
				gone()
				continue
			}
			if c == nil {
				continue
			}
			if events[i].Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 || !c.ws {
				c.hangUp()
				continue
			}
			if p.read(c) {
				_ = c.raw.Control(func(fd uintptr) {
					_ = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_MOD, int(fd), interest(true, tok)) // ENOENT once removed
				})
			}
		}
	}
}

// read hands what c's socket holds to the WebSocket reader; false once the stream
// has ended.
func (p *poller) read(c *Conn) bool {
	for range pollReadBurst {
		n, err := readNonblocking(c.raw, p.buf)
		if err != nil {
			c.hangUp()
			return false
		}
		if n == 0 {
			return true
		}
		c.onInput(p.buf[:n])
		if n < len(p.buf) {
			return true // drained (re-arming reports anything that arrived since)
		}
	}
	return true
}

// watch registers raw for its hangup alone: gone runs once, on the poller
// goroutine, when the peer closes or resets; stop unregisters it (call stop before
// the socket is closed or handed on; gone may still run once if the hangup was
// being reported at that moment). ok is false when it could not be registered.
func (p *poller) watch(raw syscall.RawConn, gone func()) (stop func(), ok bool) {
	p.mu.Lock()
	p.next++
	tok := p.next
	p.watches[tok] = gone
	p.mu.Unlock()
	var err error
	cerr := raw.Control(func(fd uintptr) {
		err = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, int(fd), interest(false, tok))
	})
	if err != nil || cerr != nil {
		p.mu.Lock()
		delete(p.watches, tok)
		p.mu.Unlock()
		return nil, false
	}
	return func() {
		p.mu.Lock()
		delete(p.watches, tok)
		p.mu.Unlock()
		_ = raw.Control(func(fd uintptr) {
			_ = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, int(fd), nil)
		})
	}, true
}

func (p *poller) close() {
	close(p.stop)
	one := [8]byte{1}
	_, _ = unix.Write(p.wake, one[:])
	<-p.done
	_ = unix.Close(p.epfd)
	_ = unix.Close(p.wake)
}
