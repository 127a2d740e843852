// Package bus carries doorbells between the nodes of a cluster over NATS: "page P
// (or tenant T) has committed events up to sequence S". The events themselves stay
// in the shared store; a node that hears a doorbell for a page or tenant it streams
// reads what it has not sent yet from the store, in sequence order, so a lost,
// late, repeated or reordered doorbell never loses, repeats or reorders an event.
// A periodic check rings every watched doorbell with sequence 0 ("look at the
// store"), which covers a node that died between its commit and its doorbell and a
// subscription that reached the other servers after a commit.
//
// NATS runs either embedded in every node, the servers joined by routes (a cluster
// then needs nothing but PostgreSQL), or as an external cluster the nodes connect to.
// Without either, the bus only runs the periodic check: nodes sharing a store still
// see each other's events, a check period late.
package bus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Config says how a node reaches the others.
type Config struct {
	// URL of an external NATS cluster (comma-separated servers). Empty: embedded.
	URL string
	// Listen is the embedded server's route address (host:port) that the other
	// nodes' Routes name; Routes are theirs (nats://host:port, comma-separated).
	Listen string
	Routes string
	// Check is the period of the check that rings every watched doorbell (2 s).
	Check time.Duration
	Log   *slog.Logger
	// DieBeforeRing is a fault for tests: the process kills itself after its first
	// commit with events, before ringing (FOLIO_TEST_FAULT=die-before-doorbell).
	DieBeforeRing bool
}

// Enabled tells whether cfg joins a cluster at all (a single node needs no bus).
func (c Config) Enabled() bool { return c.URL != "" || c.Listen != "" }

// Bus is one node's connection to the others.
type Bus struct {
	nc    *nats.Conn
	srv   *server.Server // embedded; nil with an external cluster
	log   *slog.Logger
	check time.Duration
	die   bool // Config.DieBeforeRing

	mu      sync.Mutex
	watches map[string]*watch
	done    chan struct{}
	wg      sync.WaitGroup
}

// watch is one subject this node listens to, shared by its watchers.
type watch struct {
	sub  *nats.Subscription
	ring func(seq uint64)
	refs int
}

// Open starts the embedded server (when cfg names no external cluster) and
// connects. Publications from this node are not delivered back to it (NoEcho): its
// own commits reach its streams directly.
func Open(cfg Config) (*Bus, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Check <= 0 {
		cfg.Check = 2 * time.Second
	}
	b := &Bus{log: cfg.Log, check: cfg.Check, die: cfg.DieBeforeRing, watches: map[string]*watch{}, done: make(chan struct{})}
	if !cfg.Enabled() {
		b.wg.Add(1)
		go b.checkLoop()
		return b, nil
	}
	opts := []nats.Option{nats.NoEcho(), nats.Name("folio"), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				cfg.Log.Warn("bus: disconnected from NATS; the periodic check keeps streams current", slog.Any("err", err))
			}
		}),
		// Doorbells rung while this node was away are lost: look at the store at once.
		nats.ReconnectHandler(func(*nats.Conn) { go b.ringAll() })}
	var err error
	if cfg.URL != "" {
		b.nc, err = nats.Connect(cfg.URL, opts...)
	} else {
		if b.srv, err = embedded(cfg); err != nil {
			return nil, err
		}
		b.nc, err = nats.Connect("", append(opts, nats.InProcessServer(b.srv))...)
	}
	if err != nil {
		b.shutdownServer()
		return nil, fmt.Errorf("bus: connect: %w", err)
	}
	b.wg.Add(1)
	go b.checkLoop()
	return b, nil
}

// embedded starts this node's NATS server: the route port on cfg.Listen, routes to
// the other nodes.
func embedded(cfg Config) (*server.Server, error) {
	host, port, err := splitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("bus: --nats-listen: %w", err)
	}
	// The node connects in process; the client port exists only because the server
	// starts its routes after opening one (DontListen never starts them), so it is
	// on loopback, on a port of the system's choosing.
	opts := &server.Options{
		ServerName: "folio-" + cfg.Listen, Host: "127.0.0.1", Port: server.RANDOM_PORT, NoSigs: true, NoLog: true,
		Cluster: server.ClusterOpts{Name: "folio", Host: host, Port: port},
	}
	if cfg.Routes != "" {
		opts.Routes = server.RoutesFromStr(cfg.Routes)
	}
	// The server, logging nothing, answers a route port it cannot bind only by never
	// becoming ready: a node would wait 10 s and then name no cause. Binding it
	// once first names the cause at once ("address already in use").
	probe, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("bus: --nats-listen %s: %w", cfg.Listen, err)
	}
	_ = probe.Close()
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("bus: embedded NATS: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("bus: the embedded NATS server did not start within 10 s")
	}
	return srv, nil
}

func splitHostPort(hp string) (string, int, error) {
	i := strings.LastIndexByte(hp, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("%q is not host:port", hp)
	}
	var port int
	if _, err := fmt.Sscanf(hp[i+1:], "%d", &port); err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("%q has no valid port", hp)
	}
	return hp[:i], port, nil
}

// Ring tells the other nodes that subject has committed events up to seq. It never
// blocks: NATS buffers while reconnecting, and a doorbell lost is made up by the
// periodic check.
func (b *Bus) Ring(subject string, seq uint64) {
	if b.nc == nil {
		return
	}
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], seq)
	if err := b.nc.Publish(subject, msg[:]); err != nil {
		b.log.Debug("bus: publish", slog.String("subject", subject), slog.Any("err", err))
	}
}

// Watch calls ring with the sequence of every doorbell of subject from other nodes,
// and with 0 on every periodic check, until the returned stop is called. Watchers of
// one subject share one subscription and the first watcher's ring (one subject is
// one actor's: a page's or a tenant's).
func (b *Bus) Watch(subject string, ring func(seq uint64)) (stop func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.watches[subject]
	if w == nil {
		w = &watch{ring: ring}
		b.watches[subject] = w
		if b.nc != nil {
			sub, err := b.nc.Subscribe(subject, func(m *nats.Msg) {
				if len(m.Data) == 8 {
					ring(binary.BigEndian.Uint64(m.Data))
				}
			})
			if err != nil {
				b.log.Warn("bus: subscribe; the periodic check keeps this stream current", slog.String("subject", subject), slog.Any("err", err))
			}
			w.sub = sub
		}
	}
	w.refs++
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			if w.refs--; w.refs == 0 {
				if w.sub != nil {
					_ = w.sub.Unsubscribe()
				}
				delete(b.watches, subject)
			}
		})
	}
}

// checkLoop rings every watched subject with 0 each period.
func (b *Bus) checkLoop() {
	defer b.wg.Done()
	t := time.NewTicker(b.check)
	defer t.Stop()
	for {
		select {
		case <-b.done:
			return
		case <-t.C:
			b.ringAll()
		}
	}
}

// ringAll rings every watched subject with 0: look at the store.
func (b *Bus) ringAll() {
	b.mu.Lock()
	rings := make([]func(uint64), 0, len(b.watches))
	for _, w := range b.watches {
		rings = append(rings, w.ring)
	}
	b.mu.Unlock()
	for _, r := range rings {
		r(0)
	}
}

// Check is the period of the periodic check.
func (b *Bus) Check() time.Duration { return b.check }

// Peers is how many other servers the embedded server is routed to (-1 with an
// external cluster or none): a cluster's health at a glance.
func (b *Bus) Peers() int {
	if b.srv == nil {
		return -1
	}
	return b.srv.NumRemotes()
}

// Close stops the check, flushes and closes the connection, and stops the server.
func (b *Bus) Close() {
	close(b.done)
	b.wg.Wait()
	if b.nc != nil {
		_ = b.nc.Flush()
		b.nc.Close()
	}
	b.shutdownServer()
}

func (b *Bus) shutdownServer() {
	if b.srv != nil {
		b.srv.Shutdown()
		b.srv.WaitForShutdown()
	}
}
