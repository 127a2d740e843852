//go:build linux

package pglocal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestTheNewestVersionIsComparedAsANumber(t *testing.T) {
	got := newest([]string{"/usr/lib/postgresql/13/bin", "/usr/lib/postgresql/9.6/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/14/bin"})
	if got != "/usr/lib/postgresql/15/bin" {
		t.Fatalf("newest: %s, want 15", got)
	}
}

// reachableTempDir is a temporary directory the postgres user can walk into (the
// testing package makes them 0700).
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestAClusterKeepsItsDataAcrossRestarts: the second Start finds a cluster and does
// not initdb it again; a database made twice is made once; Stop leaves no server.
func TestAClusterKeepsItsDataAcrossRestarts(t *testing.T) {
	dir := filepath.Join(reachableTempDir(t), "pg")
	log := filepath.Join(filepath.Dir(dir), "postgres.log")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exec := func(s *Server, sql string) {
		t.Helper()
		c, err := pgx.Connect(ctx, s.URL("kept"))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = c.Close(ctx) }()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}

	s, err := Start(ctx, Options{Dir: dir, LogFile: log, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(dir, "PG_VERSION"), &st); err != nil || st.Uid == 0 {
			t.Errorf("running as root, the cluster belongs to uid %d (%v), want the postgres user", st.Uid, err)
		}
	}
	for range 2 {
		if err := s.CreateDatabase(ctx, "kept"); err != nil {
			t.Fatalf("CreateDatabase: %v", err)
		}
	}
	exec(s, "CREATE TABLE marker (v int); INSERT INTO marker VALUES (42)")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, s)

	s, err = Start(ctx, Options{Dir: dir, LogFile: log})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Stop() }()
	c, err := pgx.Connect(ctx, s.URL("kept"))
	if err != nil {
		t.Fatal(err)
	}
	var v int
	err = c.QueryRow(ctx, "SELECT v FROM marker").Scan(&v)
	_ = c.Close(ctx)
	if err != nil || v != 42 {
		t.Fatalf("after a restart: %d %v, want the row written before it", v, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, s)
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "database system is shut down") {
		t.Errorf("the log does not show a clean shutdown:\n%s", b)
	}
}

func assertGone(t *testing.T, s *Server) {
	t.Helper()
	select {
	case <-s.Exited():
	default:
		t.Fatal("Stop returned with the server running")
	}
	if err := syscall.Kill(s.cmd.Process.Pid, 0); err != syscall.ESRCH {
		t.Fatalf("the server's process %d is still there: %v", s.cmd.Process.Pid, err)
	}
}

// TestAnUnreachableDirectoryIsNamed: as root, a data directory under a directory
// the postgres user cannot enter fails at once, naming that directory.
func TestAnUnreachableDirectoryIsNamed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs the server as another user")
	}
	closed := filepath.Join(reachableTempDir(t), "closed")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Dir: filepath.Join(closed, "pg")})
	if err == nil || !strings.Contains(err.Error(), "cannot enter "+closed) {
		t.Fatalf("Start under a closed directory: %v", err)
	}
}
