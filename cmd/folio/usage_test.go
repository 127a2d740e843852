package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"folio/transport/node/nodetest/ports"
)

// TestHelpIsNotAFailure: -h and --help print the flags and exit 0 for every command.
func TestHelpIsNotAFailure(t *testing.T) {
	for _, args := range [][]string{{"serve", "--help"}, {"bench", "--help"}, {"bench", "-h"}, {"--help"}} {
		cmd := exec.Command(folioBinary(t), args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if err != nil {
			t.Errorf("folio %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		if !strings.Contains(out.String(), "-addr") && !strings.Contains(out.String(), "-concurrency") {
			t.Errorf("folio %s printed no flags:\n%s", strings.Join(args, " "), out.String())
		}
		if strings.Contains(out.String(), "help requested") {
			t.Errorf("folio %s reports help as an error:\n%s", strings.Join(args, " "), out.String())
		}
	}
}

// TestMakeRunHonoursFolioAddr: `make run` with FOLIO_ADDR and FOLIO_DATA in the
// environment serves there (the Makefile passes --addr/--data only when ADDR/DATA
// are given to make).
func TestMakeRunHonoursFolioAddr(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is needed (the README's first command)")
	}
	addr, data := ports.Free(t), t.TempDir()
	root, _ := filepath.Abs("../..")
	cmd := exec.Command("make", "run")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "FOLIO_ADDR="+addr, "FOLIO_DATA="+data)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute) // go run compiles first
	for {
		res, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("make run did not serve on FOLIO_ADDR %s:\n%s", addr, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(data, "folio.db")); err != nil {
		t.Fatalf("make run did not use FOLIO_DATA: %v", err)
	}
}
