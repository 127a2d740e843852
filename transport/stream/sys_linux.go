//go:build linux

package stream

import (
	"io"
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

// readNonblocking reads what the socket holds, up to len(b), without ever waiting:
// 0 with a nil error means nothing is there now (EAGAIN); io.EOF means the peer has
// closed its side. A raw system call, as in writeNonblocking.
func readNonblocking(raw syscall.RawConn, b []byte) (int, error) {
	var n int
	var rerr error
	err := raw.Read(func(fd uintptr) bool {
		for {
			r, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			if e == unix.EINTR {
				continue
			}
			n = int(r)
			if e != 0 {
				n, rerr = 0, e
			}
			return true // never wait: the poller says when there is more
		}
	})
	switch {
	case err != nil:
		return 0, err
	case rerr == unix.EAGAIN:
		return 0, nil
	case rerr != nil:
		return 0, rerr
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
