//go:build !linux

package stream

import "syscall"

// writeNonblocking is unavailable here: every flush takes the catch-up path.
func writeNonblocking(raw syscall.RawConn, bufs [][]byte) (int, error) { return 0, nil }

// poller is unavailable here: a departed SSE client is noticed at the next write,
// and each WebSocket client is read by a goroutine of its own (ws.go, readLoop).
type poller struct{}

func newPoller() *poller                                       { return nil }
func (p *poller) add(*Conn) bool                               { return false }
func (p *poller) remove(*Conn)                                 {}
func (p *poller) close()                                       {}
func (p *poller) watch(syscall.RawConn, func()) (func(), bool) { return nil, false }
