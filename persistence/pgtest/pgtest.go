//go:build linux

// Package pgtest starts a throw-away PostgreSQL server for tests: initdb in a
// temporary directory, the server on a free loopback port, a fresh database per
// caller. It needs Debian's postgresql package (.ci/run installs it); when the
// tests run as root the server runs as the postgres user, as PostgreSQL requires.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	once    sync.Once
	base    string // postgres://…@127.0.0.1:port/
	startEr error
	dbs     atomic.Int64
)

// URL returns the address of a new, empty database on the package's server,
// starting the server on first use; it is stopped when the test binary exits
// (Stop, from TestMain) or with the process.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(func() { base, startEr = start() })
	if startEr != nil {
		t.Fatalf("pgtest: %v", startEr)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, base+"postgres")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer func() { _ = c.Close(ctx) }()
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return base + name
}

var (
	server *exec.Cmd
	dir    string
)

// Stop ends the server and removes its files.
func Stop() {
	if server != nil && server.Process != nil {
		_ = server.Process.Signal(os.Interrupt) // fast shutdown
		done := make(chan struct{})
		go func() { _ = server.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = server.Process.Kill()
		}
	}
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

func bindir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(m) == 0 {
		return "", fmt.Errorf("PostgreSQL's initdb not found: install Debian's postgresql package (.ci/run does)")
	}
	return filepath.Dir(m[len(m)-1]), nil
}

func start() (string, error) {
	bin, err := bindir()
	if err != nil {
		return "", err
	}
	removeStale()
	dir, err = os.MkdirTemp("", fmt.Sprintf("folio-pgtest-%d-", os.Getpid()))
	if err != nil {
		return "", err
	}
	data := filepath.Join(dir, "data")
	uid, gid := -1, -1
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			return "", fmt.Errorf("running as root and no postgres user: %w", err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		if err := os.Chmod(dir, 0o755); err != nil {
			return "", err
		}
	}
	if err := os.Mkdir(data, 0o700); err != nil {
		return "", err
	}
	if uid >= 0 {
		if err := os.Chown(data, uid, gid); err != nil {
			return "", err
		}
	}
	// Every process runs as the postgres user when we are root, and dies with the
	// test binary (an immediate shutdown), so no server outlives its tests.
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGQUIT}
		if uid >= 0 {
			cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		}
		return cmd
	}
	if out, err := command("initdb", "-D", data, "-U", "folio", "--auth=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		return "", fmt.Errorf("initdb: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	server = command("postgres", "-D", data, "-p", strconv.Itoa(port), "-k", data, "-c", "listen_addresses=127.0.0.1",
		"-c", "max_connections=200", "-c", "shared_buffers=64MB")
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return "", err
	}
	server.Stdout, server.Stderr = logf, logf
	if err := server.Start(); err != nil {
		return "", err
	}
	url := fmt.Sprintf("postgres://folio@127.0.0.1:%d/", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, url+"postgres")
		cancel()
		if err == nil {
			_ = c.Close(context.Background())
			return url, nil
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			return "", fmt.Errorf("the server did not start: %v\n%s", err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// removeStale removes the directories of servers whose test binary has gone
// without calling Stop (its server died with it: Pdeathsig).
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "folio-pgtest-*-*"))
	for _, d := range dirs {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(d), "folio-pgtest-%d-", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			_ = os.RemoveAll(d)
		}
	}
}
