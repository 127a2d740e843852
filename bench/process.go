package bench

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"
)

// StartProcess runs `binary serve` as a separate process on a temporary data
// directory (enterprise plan, private callbacks allowed) and targets it, so the
// server's CPU and memory are measured apart from the harness's.
func StartProcess(binary string, extraArgs ...string) (*Target, error) {
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
	args := append([]string{"serve", "--addr", addr, "--data", dir, "--default-plan", "enterprise",
		"--allow-private-callbacks", "--log-level", "warn"}, extraArgs...)
	cmd := exec.Command(binary, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := Remote("http://" + addr)
	t.stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
		}
		_ = os.RemoveAll(dir)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := http.Get(t.URL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return t, nil
			}
		}
		if time.Now().After(deadline) {
			t.Close()
			return nil, fmt.Errorf("the server process did not become healthy: %v", err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
