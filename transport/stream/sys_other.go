//go:build !linux

package stream

import "syscall"

// writeNonblocking is unavailable here: every flush takes the catch-up path.
func writeNonblocking(raw syscall.RawConn, bufs [][]byte) (int, error) { return 0, nil }

// hangups is unavailable here: a departed client is noticed at the next write.
type hangups struct{}

func newHangups() *hangups      { return nil }
func (h *hangups) add(*Conn)    {}
func (h *hangups) remove(*Conn) {}
func (h *hangups) close()       {}
