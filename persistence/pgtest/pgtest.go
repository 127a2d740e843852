//go:build linux

// Package pgtest starts a throw-away PostgreSQL server for tests: a cluster in a
// temporary directory, the server on a free loopback port, a fresh database per
// caller. It needs Debian's postgresql package (.ci/run installs it); persistence/
// pglocal runs the server (as the postgres user when the tests run as root).
package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"folio/persistence/pglocal"
)

var (
	once    sync.Once
	server  *pglocal.Server
	dir     string // the temporary directory: the cluster in data/, the log in server.log
	startEr error
	dbs     atomic.Int64
)

// Connect opens one connection to the database at url, as an operator's psql
// would, closed when the test ends; ctx bounds what the test does with it (a
// minute, or two for within on a loaded machine).
func Connect(t testing.TB, url string, within time.Duration) (*pgx.Conn, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	t.Cleanup(cancel)
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	return db, ctx
}

// URL returns the address of a new, empty database on the package's server,
// starting the server on first use; it is stopped when the test binary exits
// (Stop, from TestMain) or with the process.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(func() { server, startEr = start() })
	if startEr != nil {
		t.Fatalf("pgtest: %v", startEr)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := server.CreateDatabase(ctx, name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return server.URL(name)
}

// Stop ends the server and removes its files.
func Stop() {
	if server != nil {
		_ = server.Stop()
	}
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

func start() (*pglocal.Server, error) {
	removeStale()
	var err error
	dir, err = os.MkdirTemp("", fmt.Sprintf("folio-pgtest-%d-", os.Getpid()))
	if err != nil {
		return nil, err
	}
	// The server's user (postgres, when we are root) must reach data/ inside.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	return pglocal.Start(context.Background(), pglocal.Options{
		Dir: filepath.Join(dir, "data"), LogFile: filepath.Join(dir, "server.log"), NoSync: true,
		Settings: []string{"max_connections=200", "shared_buffers=64MB"},
	})
}

// removeStale removes the directories of servers whose test binary has gone
// without calling Stop (its server died with it).
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

// ReachableTempDir is a temporary directory the postgres user can walk into, for a
// PostgreSQL data directory a test starts itself (the testing package makes them
// 0700, and PostgreSQL runs as postgres under root).
func ReachableTempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
