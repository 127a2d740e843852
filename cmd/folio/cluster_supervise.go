package main

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// A node of `folio cluster` that exits (a crash, kill -9, an out-of-memory kill)
// is started again with the same command line, after a wait that grows while it
// keeps exiting soon after its start; the other nodes, PostgreSQL and the balancer
// go on serving meanwhile. Only a signal to `folio cluster` (or PostgreSQL
// exiting) stops the cluster. The balancer is supervised the same way.

// stableAfter is how long a process must run for its next exit to be waited for
// with the first backoff again, not a doubled one.
const stableAfter = time.Minute

// backoff is the wait before a restart: first, doubled after each exit that came
// within stableAfter of the start, at most max.
type backoff struct{ first, max time.Duration }

// slot is one supervised process of the cluster (a node or the balancer) and the
// process running in it now.
//
// Invariant: once stopping is set (under mu) no process is started in the slot, so
// stopSlots, having signalled cur, leaves nothing running behind it.
type slot struct {
	name, url string
	exe       string
	args      []string
	out       *syncWriter

	mu       sync.Mutex
	cur      *child // the last process started; nil before the first or after a failed start
	stopping bool
}

// start starts the slot's process (exits: told when it exits; nil for none).
func (s *slot) start(exits chan<- *child) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return nil
	}
	n, err := startChild(s.exe, s.args, s.name, s.url, s.out, exits)
	s.cur = n // nil when the start failed
	return err
}

func (s *slot) current() (*child, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur, s.stopping
}

// supervise starts the slot's process again each time it exits, until the slot is
// stopped or ctx ends; it says when a process exits, when it is started again and
// when it answers /healthz again.
func (s *slot) supervise(ctx context.Context, b backoff, say func(string, ...any)) {
	wait := b.first
	for {
		n, stopping := s.current()
		if stopping {
			return
		}
		if n != nil {
			select {
			case <-n.exited:
			case <-ctx.Done():
				return // stopSlots stops it
			}
			if _, stopping := s.current(); stopping || ctx.Err() != nil {
				return
			}
			if time.Since(n.started) >= stableAfter {
				wait = b.first
			}
			say("%s exited (%v); starting it again in %v", s.name, n.cmd.ProcessState, wait)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return
		}
		wait = min(2*wait, b.max)
		if err := s.start(nil); err != nil {
			say("%s: %v; trying again in %v", s.name, err, wait)
			continue
		}
		if n, _ := s.current(); n != nil {
			say("%s started again (pid %d)", s.name, n.cmd.Process.Pid)
			if s.waitHealthy(ctx, n) {
				say("%s answers again at %s", s.name, s.url)
			}
		}
	}
}

// waitHealthy waits until n answers /healthz (true), exits or ctx ends (false).
func (s *slot) waitHealthy(ctx context.Context, n *child) bool {
	ctx, cancel := context.WithTimeout(ctx, clusterReadyWithin)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !healthy(ctx, client, s.url) {
		select {
		case <-n.exited:
			return false
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// stopSlots stops every slot's process: none is started again, each gets SIGTERM
// at once so they drain together, and one still running after nodeStopGrace is
// killed.
func stopSlots(slots []*slot, say func(string, ...any)) {
	if len(slots) == 0 {
		return
	}
	say("stopping %s", describe(slots))
	var running []*child
	for _, s := range slots {
		s.mu.Lock()
		s.stopping = true
		if s.cur != nil {
			running = append(running, s.cur)
		}
		s.mu.Unlock()
	}
	for _, n := range running {
		_ = n.cmd.Process.Signal(syscall.SIGTERM)
	}
	deadline := time.After(nodeStopGrace)
	for _, n := range running {
		select {
		case <-n.exited:
		case <-deadline:
			say("%s did not stop within %v: killed", n.name, nodeStopGrace)
			_ = n.cmd.Process.Kill()
			<-n.exited
		}
	}
}

// describe names what stopSlots stops: "3 nodes" or "the balancer".
func describe(slots []*slot) string {
	if len(slots) == 1 && slots[0].name == "nginx" {
		return "the balancer"
	}
	if len(slots) == 1 {
		return "1 node"
	}
	return strconv.Itoa(len(slots)) + " nodes"
}
