//go:build linux

package stream

import (
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// writeNonblocking writes bufs with one writev without ever waiting: it returns how
// many bytes the socket took (possibly 0 when its buffer is full).
//
// The call is a raw system call: the socket is non-blocking, so it never parks the
// thread, and the runtime need not be told (syscall.Syscall would mark the P as in a
// system call at every write; with thousands of writes in a row, sysmon then keeps
// waking at short intervals to consider handing the P off: 6% of fan-out CPU in perf).
func writeNonblocking(raw syscall.RawConn, bufs [][]byte) (int, error) {
	if len(bufs) > 512 { // stay well under IOV_MAX; the rest goes to the catch-up path
		bufs = bufs[:512]
	}
	var n int
	var werr error
	err := raw.Write(func(fd uintptr) bool {
		for {
			n, werr = rawWritev(fd, bufs)
			if werr != unix.EINTR {
				return true // never wait for the socket: the caller falls back to catching up
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if werr == unix.EAGAIN {
		return 0, nil
	}
	if n < 0 {
		n = 0
	}
	return n, werr
}

// rawWritev is write(2) for one buffer (the common case: one frame) and writev(2)
// for several, as raw system calls (see writeNonblocking).
func rawWritev(fd uintptr, bufs [][]byte) (int, error) {
	var r uintptr
	var e syscall.Errno
	if len(bufs) == 1 {
		b := bufs[0]
		if len(b) == 0 {
			return 0, nil
		}
		r, _, e = unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	} else {
		var stack [16]unix.Iovec
		iov := stack[:0]
		for _, b := range bufs {
			if len(b) == 0 {
				continue
			}
			v := unix.Iovec{Base: &b[0]}
			v.SetLen(len(b))
			iov = append(iov, v)
		}
		if len(iov) == 0 {
			return 0, nil
		}
		r, _, e = unix.RawSyscall(unix.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
	}
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// hangups is one epoll instance watching pooled SSE sockets for the peer hanging up
// (EPOLLRDHUP, EPOLLHUP, EPOLLERR), so their subscriptions end at once instead of at
// the next failed write. It runs one goroutine for all connections.
type hangups struct {
	epfd  int
	wake  int // eventfd registered with token 0: close wakes the loop at once
	mu    sync.Mutex
	conns map[uint64]*Conn
	next  uint64
	stop  chan struct{}
	done  chan struct{}
}

func newHangups() *hangups {
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
	h := &hangups{epfd: fd, wake: wake, conns: map[uint64]*Conn{}, stop: make(chan struct{}), done: make(chan struct{})}
	go h.run()
	return h
}

func (h *hangups) add(c *Conn) {
	h.mu.Lock()
	h.next++
	tok := h.next
	h.conns[tok] = c
	h.mu.Unlock()
	c.mu.Lock()
	c.token = tok
	c.mu.Unlock()
	var err error
	cerr := c.raw.Control(func(fd uintptr) {
		ev := unix.EpollEvent{Events: unix.EPOLLRDHUP | unix.EPOLLONESHOT, Fd: int32(tok), Pad: int32(tok >> 32)}
		err = unix.EpollCtl(h.epfd, unix.EPOLL_CTL_ADD, int(fd), &ev)
	})
	if err != nil || cerr != nil {
		h.mu.Lock()
		delete(h.conns, tok)
		h.mu.Unlock()
		return
	}
	c.mu.Lock()
	gone := c.state == closed
	c.mu.Unlock()
	if gone { // closed while registering: undo
		h.mu.Lock()
		delete(h.conns, tok)
		h.mu.Unlock()
	}
}

// remove unregisters c; call it before closing the socket.
func (h *hangups) remove(c *Conn) {
	c.mu.Lock()
	tok := c.token
	c.token = 0
	c.mu.Unlock()
	if tok == 0 {
		return
	}
	h.mu.Lock()
	delete(h.conns, tok)
	h.mu.Unlock()
	_ = c.raw.Control(func(fd uintptr) {
		_ = unix.EpollCtl(h.epfd, unix.EPOLL_CTL_DEL, int(fd), nil)
	})
}

func (h *hangups) run() {
	defer close(h.done)
	events := make([]unix.EpollEvent, 128)
	for {
		select {
		case <-h.stop:
			return
		default:
		}
		n, err := unix.EpollWait(h.epfd, events, -1)
		if err != nil && err != unix.EINTR {
			return
		}
		for i := 0; i < n; i++ {
			tok := uint64(uint32(events[i].Fd)) | uint64(uint32(events[i].Pad))<<32
			if tok == 0 {
				continue // the wake-up: stop is checked above
			}
			h.mu.Lock()
			c := h.conns[tok]
			h.mu.Unlock()
			if c != nil {
				c.Close()
			}
		}
	}
}

func (h *hangups) close() {
	close(h.stop)
	one := [8]byte{1}
	_, _ = unix.Write(h.wake, one[:])
	<-h.done
	_ = unix.Close(h.epfd)
	_ = unix.Close(h.wake)
}
