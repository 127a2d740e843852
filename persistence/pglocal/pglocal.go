//go:build linux

// Package pglocal runs a PostgreSQL server of Debian's postgresql package on a
// local data directory: initdb when the directory is not yet a cluster, the server
// on a loopback port with its unix socket inside the data directory, databases made
// on demand, a fast shutdown. As root the server runs as the postgres user, as
// PostgreSQL requires. The tests' server (persistence/pgtest) and `folio cluster`
// both start PostgreSQL through it.
package pglocal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// User is the superuser initdb creates. Connections are trusted without a password,
// which is why the server listens on the loopback address only.
const User = "folio"

const (
	readyWithin = 60 * time.Second // a fresh start, or crash recovery of a small cluster
	stopGrace   = 10 * time.Second // a fast shutdown; past it the server is killed
	socketMax   = 107              // bytes of a unix socket path (sun_path less its NUL)
)

// Options say where and how a server runs.
type Options struct {
	Dir      string   // data directory; initdb makes it a cluster unless it holds one already (PG_VERSION)
	Port     int      // loopback port; 0: a free one
	LogFile  string   // the server's output, appended; empty: discarded
	Settings []string // extra server settings, name=value (postgres -c)
	NoSync   bool     // initdb skips its fsyncs: for throw-away clusters
}

// Server is a running PostgreSQL. It dies with the process that started it (an
// immediate shutdown, recovered at the next start), and it is in a process group of
// its own, so a terminal's Ctrl-C reaches only its owner, which stops it with Stop.
type Server struct {
	Dir     string // absolute data directory
	Port    int
	LogFile string

	cmd    *exec.Cmd
	exited chan struct{}
}

// Start prepares opt.Dir and starts the server on it, returning once it accepts
// connections. On ctx's end or any failure no server is left running.
func Start(ctx context.Context, opt Options) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(opt.Dir)
	if err != nil {
		return nil, err
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	if err := acct.reach(dir); err != nil {
		return nil, err
	}
	if err := acct.own(dir); err != nil {
		return nil, err
	}
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGQUIT, Setpgid: true, Credential: acct.credential()}
		return cmd
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		args := []string{"-D", dir, "-U", User, "--auth=trust", "-E", "UTF8"}
		if opt.NoSync {
			args = append(args, "--no-sync")
		}
		if out, err := command("initdb", args...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("initdb %s: %v\n%s", dir, err, out)
		}
	}
	port := opt.Port
	if port == 0 {
		if port, err = LoopbackPorts(1); err != nil {
			return nil, err
		}
	}
	// The unix socket goes inside the data directory, unless its path would be too
	// long for one: then the server has none (we connect over TCP anyway).
	sockets := dir
	if len(dir)+len("/.s.PGSQL.")+len(strconv.Itoa(port)) > socketMax {
		sockets = ""
	}
	args := []string{"-D", dir, "-p", strconv.Itoa(port), "-k", sockets, "-c", "listen_addresses=127.0.0.1"}
	for _, s := range opt.Settings {
		args = append(args, "-c", s)
	}
	s := &Server{Dir: dir, Port: port, LogFile: opt.LogFile, cmd: command("postgres", args...), exited: make(chan struct{})}
	if opt.LogFile != "" {
		logf, err := os.OpenFile(opt.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		defer func() { _ = logf.Close() }() // the server has its own descriptor once started
		s.cmd.Stdout, s.cmd.Stderr = logf, logf
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady returns once the server accepts a connection, or fails when it exits,
// ctx ends or readyWithin passes.
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyWithin)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		try, cancelTry := context.WithTimeout(ctx, time.Second)
		c, err := pgx.Connect(try, s.URL("postgres"))
		cancelTry()
		if err == nil {
			return c.Close(ctx)
		}
		select {
		case <-s.exited:
			return fmt.Errorf("pglocal: the server on %s exited at start: %v\n%s", s.Dir, s.cmd.ProcessState, s.logTail())
		case <-ctx.Done():
			return fmt.Errorf("pglocal: the server on %s did not accept connections: %v (%v)\n%s", s.Dir, err, ctx.Err(), s.logTail())
		case <-tick.C:
		}
	}
}

// URL is the address of database db on the server.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s", User, s.Port, db)
}

// CreateDatabase creates database name unless it exists.
func (s *Server) CreateDatabase(ctx context.Context, name string) error {
	c, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return err
	}
	defer func() { _ = c.Close(ctx) }()
	_, err = c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		return nil
	}
	return err
}

// Exited is closed when the server process has ended, stopped or not.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Stop shuts the server down fast (SIGINT: sessions are ended, every committed
// transaction stays) and waits for it; a server still running after stopGrace is
// killed. Calling it again, or after the server died, returns at once.
func (s *Server) Stop() error {
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
		return nil
	case <-time.After(stopGrace):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("pglocal: the server on %s did not stop within %v and was killed", s.Dir, stopGrace)
	}
}

// logTail is the end of the server's log, for error messages.
func (s *Server) logTail() string {
	if s.LogFile == "" {
		return "(no log: Options.LogFile was empty)"
	}
	f, err := os.Open(s.LogFile)
	if err != nil {
		return err.Error()
	}
	defer func() { _ = f.Close() }()
	const tail = 4 << 10
	if st, err := f.Stat(); err == nil && st.Size() > tail {
		_, _ = f.Seek(-tail, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}
