package bench

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// proc is a server process the harness started.
type proc struct {
	binary string
	args   []string
	dir    string
	cmd    *exec.Cmd
}

// StartProcess runs `binary serve` as a separate process on a temporary data
// directory (enterprise plan, private callbacks allowed) and targets it, so the
// server's CPU and memory are measured apart from the harness's.
func StartProcess(binary string, extraArgs ...string) (*Target, error) {
	raiseFileLimit() // the server process inherits it
	dir, err := os.MkdirTemp("", "folio-bench-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	p := &proc{binary: binary, dir: dir, args: append([]string{"serve", "--addr", addr, "--data", dir, "--default-plan", "enterprise",
		"--allow-private-callbacks", "--enforce-limits=false", "--log-level", "warn"}, extraArgs...)}
	t := Remote("http://" + addr)
	t.proc = p
	if _, err := t.startProcess(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return t, nil
}

// startProcess starts the server process and waits until /healthz answers 200;
// it returns how long that took.
func (t *Target) startProcess() (time.Duration, error) {
	p := t.proc
	p.cmd = exec.Command(p.binary, p.args...)
	p.cmd.Stderr = os.Stderr
	start := time.Now()
	if err := p.cmd.Start(); err != nil {
		return 0, err
	}
	deadline := start.Add(30 * time.Second)
	for {
		res, err := http.Get(t.URL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return time.Since(start), nil
			}
		}
		if time.Now().After(deadline) {
			t.stopProcess()
			return 0, fmt.Errorf("the server process did not become healthy: %v", err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// stopProcess asks the server to stop (SIGINT: drain and close cleanly).
func (t *Target) stopProcess() {
	p := t.proc
	if p == nil || p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
	p.cmd = nil
	// Pooled keep-alive connections led to the process just stopped; a call on one
	// would fail against the next process on the same address.
	if t.lean != nil {
		t.lean.close()
	}
	t.Client.CloseIdleConnections()
}

// processRSS is the server process's resident memory in MiB (0 when unknown).
func (t *Target) processRSS() float64 {
	if t.proc == nil || t.proc.cmd == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", t.proc.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return 0
}
