package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"folio/persistence/pglocal"
)

// `folio cluster` runs a local cluster for a person to try (docs/cluster.md): one
// PostgreSQL in <data>/pg, kept between runs, and --nodes `folio serve` processes of
// this same binary sharing its database, on consecutive ports from --port. On
// SIGINT or SIGTERM it stops the nodes, then PostgreSQL; a second signal ends it at
// once (the children then die with it: nodes get SIGTERM, PostgreSQL an immediate
// shutdown it recovers from at the next start).

const (
	clusterReadyWithin = 60 * time.Second // every node answers /healthz
	nodeStopGrace      = 30 * time.Second // a node drains for up to 20 s (serve); past this it is killed
)

// cluster is the configuration of `folio cluster`.
type cluster struct {
	data     string   // --data: pg/ (the PostgreSQL cluster), postgres.log, shared/ (the nodes' files), nginx/
	nodes    int      // --nodes
	port     int      // --port: node i listens on port+i-1
	pgPort   int      // --pg-port; 0: a free one
	natsPort int      // --nats-port: node i's NATS routes on natsPort+i-1
	balancer string   // --balancer: "" (none) or "nginx"
	lbPort   int      // --balancer-port
	backoff  backoff  // --restart-backoff, --restart-backoff-max
	extra    []string // the flags after --, given to every node
	store    string   // the nodes' database, once PostgreSQL runs
}

func runCluster(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	var c cluster
	fs.StringVar(&c.data, "data", env("FOLIO_CLUSTER_DATA", "./data/cluster"), "directory of the cluster: PostgreSQL in pg/ (kept between runs), its log in postgres.log, the nodes' uploaded files in shared/, the balancer's configuration in nginx/ (FOLIO_CLUSTER_DATA)")
	fs.IntVar(&c.nodes, "nodes", envInt("FOLIO_CLUSTER_NODES", 3), "number of folio serve processes (FOLIO_CLUSTER_NODES)")
	fs.IntVar(&c.port, "port", envInt("FOLIO_CLUSTER_PORT", 8081), "port of node 1; node i listens on port+i-1 (127.0.0.1) (FOLIO_CLUSTER_PORT)")
	fs.IntVar(&c.pgPort, "pg-port", envInt("FOLIO_CLUSTER_PG_PORT", 0), "PostgreSQL's port on 127.0.0.1; 0: a free one (FOLIO_CLUSTER_PG_PORT)")
	fs.IntVar(&c.natsPort, "nats-port", envInt("FOLIO_CLUSTER_NATS_PORT", 6222), "NATS route port of node 1; node i's is nats-port+i-1 (127.0.0.1) (FOLIO_CLUSTER_NATS_PORT)")
	fs.StringVar(&c.balancer, "balancer", env("FOLIO_CLUSTER_BALANCER", ""), "nginx: run Debian's nginx in front of the nodes on --balancer-port with the configuration of docs/nginx/folio.conf (written to <data>/nginx/folio.conf with these nodes); the nodes then link to the balancer and trust its X-Forwarded-For; empty: no balancer (FOLIO_CLUSTER_BALANCER)")
	fs.IntVar(&c.lbPort, "balancer-port", envInt("FOLIO_CLUSTER_BALANCER_PORT", 8080), "port of the balancer on 127.0.0.1, with --balancer (FOLIO_CLUSTER_BALANCER_PORT)")
	fs.DurationVar(&c.backoff.first, "restart-backoff", envDuration("FOLIO_CLUSTER_RESTART_BACKOFF", 500*time.Millisecond), "a node (or the balancer) that exits is started again after this long; the wait doubles each time it exits again within a minute of its start (FOLIO_CLUSTER_RESTART_BACKOFF)")
	fs.DurationVar(&c.backoff.max, "restart-backoff-max", envDuration("FOLIO_CLUSTER_RESTART_BACKOFF_MAX", 30*time.Second), "the longest wait before a restart (FOLIO_CLUSTER_RESTART_BACKOFF_MAX)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: folio cluster [flags] [-- serve flags given to every node]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := envCheck(); err != nil {
		return err
	}
	c.extra = fs.Args()
	if c.balancer != "" && c.balancer != "nginx" {
		return fmt.Errorf("cluster: --balancer %q: the one balancer it can start is nginx (--balancer nginx), or none (leave it empty)", c.balancer)
	}
	if c.balancer != "" && (c.lbPort < 1 || c.lbPort > 65535) {
		return fmt.Errorf("cluster: --balancer-port %d: want a port from 1 to 65535", c.lbPort)
	}
	if c.backoff.first <= 0 || c.backoff.max < c.backoff.first {
		return fmt.Errorf("cluster: --restart-backoff %v, --restart-backoff-max %v: want a positive wait, and a longest wait at least as long", c.backoff.first, c.backoff.max)
	}
	if c.nodes < 1 || c.port < 1 || c.port+c.nodes-1 > 65535 {
		return fmt.Errorf("cluster: --nodes %d from --port %d: want at least one node on ports up to 65535", c.nodes, c.port)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // the next signal gets its default action: this process ends at once
	}()
	if err := c.run(ctx, &syncWriter{w: stdout}); err != nil && ctx.Err() == nil {
		return err // a signal during the start is a stop, not a failure
	}
	return nil
}

// nodeArgs is the command line of node i (from 1): every flag a node gets is built
// here. All nodes share one --data directory, since uploaded files live under it
// and any node may serve any page's files; with --store postgres:// a node keeps
// nothing exclusive there (no bbolt file).
func (c *cluster) nodeArgs(i int) []string {
	port := strconv.Itoa(c.port + i - 1)
	base := "http://127.0.0.1:" + port
	if c.balancer != "" {
		base = c.balancerURL() // the links a node writes lead through the balancer
	}
	args := []string{"serve",
		"--addr", "127.0.0.1:" + port,
		"--base-url", base,
		"--store", c.store,
		"--data", filepath.Join(c.data, "shared"),
		"--node-name", nodeName(i), // the balancer routes an MCP session by it
	}
	if c.balancer != "" {
		args = append(args, "--trusted-proxies", "127.0.0.1/32") // nginx says who the client is
	}
	// Events between nodes: every node embeds a NATS server on its route port,
	// routed to all the others' (docs/cluster.md).
	var routes []string
	for j := 1; j <= c.nodes; j++ {
		if j != i {
			routes = append(routes, "nats://"+c.natsAddr(j))
		}
	}
	args = append(args, "--nats-listen", c.natsAddr(i), "--nats-routes", strings.Join(routes, ","))
	return append(args, c.extra...)
}

// nodeName is node i's name: its log prefix and its --node-name.
func nodeName(i int) string { return fmt.Sprintf("node%d", i) }

// nodeURL is node i's own address.
func (c *cluster) nodeURL(i int) string { return fmt.Sprintf("http://127.0.0.1:%d", c.port+i-1) }

// natsAddr is node i's NATS route address.
func (c *cluster) natsAddr(i int) string {
	return "127.0.0.1:" + strconv.Itoa(c.natsPort+i-1)
}

// run starts PostgreSQL, then the nodes, and stops them in the reverse order when
// ctx ends or any of them exits (deferred: nodes first, PostgreSQL last).
func (c *cluster) run(ctx context.Context, out *syncWriter) error {
	say := func(format string, a ...any) { out.line("cluster | ", []byte(fmt.Sprintf(format, a...)+"\n")) }
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	say("starting PostgreSQL in %s", filepath.Join(c.data, "pg"))
	pg, err := pglocal.Start(ctx, pglocal.Options{
		Dir: filepath.Join(c.data, "pg"), Port: c.pgPort, LogFile: filepath.Join(c.data, "postgres.log"),
		// Each node's pool opens up to max(8, CPUs) connections.
		Settings: []string{"max_connections=" + strconv.Itoa(max(100, c.nodes*max(8, runtime.NumCPU())+10))},
	})
	if err != nil {
		return err
	}
	defer func() {
		say("stopping PostgreSQL")
		if err := pg.Stop(); err != nil {
			say("%v", err)
		}
		say("stopped")
	}()
	if err := pg.CreateDatabase(ctx, "folio"); err != nil {
		return fmt.Errorf("cluster: create the database: %w", err)
	}
	c.store = pg.URL("folio")

	exits := make(chan *child, c.nodes)
	var nodes []*slot
	defer func() { stopSlots(nodes, say) }() // after the balancer's (deferred later)
	for i := 1; i <= c.nodes; i++ {
		n := &slot{name: nodeName(i), url: c.nodeURL(i), exe: exe, args: c.nodeArgs(i), out: out}
		if err := n.start(exits); err != nil {
			return err
		}
		nodes = append(nodes, n)
	}
	if err := waitHealthy(ctx, nodes, exits, pg); err != nil {
		return err
	}
	var lb []*slot
	defer func() { stopSlots(lb, say) }() // first: no request reaches a stopping node through it
	if c.balancer != "" {
		b, err := c.startBalancer(ctx, out)
		if err != nil {
			return err
		}
		lb = append(lb, b)
	}
	say("PostgreSQL  %s  (log %s)", c.store, pg.LogFile)
	for _, n := range nodes {
		say("%-10s  %s", n.name, n.url)
	}
	if len(lb) > 0 {
		say("%-10s  %s  (nginx; configuration %s)", "balancer", lb[0].url, filepath.Join(c.data, "nginx", "folio.conf"))
	} else {
		say("%-10s  none: --balancer nginx runs nginx in front of the nodes", "balancer")
	}
	for _, s := range append(append([]*slot{}, nodes...), lb...) {
		go s.supervise(ctx, c.backoff, say) // a process that exits is started again
	}
	say("ready: %d nodes; a node that exits is started again; Ctrl-C stops the nodes, then PostgreSQL", len(nodes))
	select {
	case <-ctx.Done():
		say("signal received")
		return nil
	case <-pg.Exited():
		return fmt.Errorf("cluster: PostgreSQL exited (log %s)", pg.LogFile)
	}
}

// child is one `folio serve` process. It is in a process group of its own, so a
// terminal's Ctrl-C reaches only `folio cluster`, which stops the nodes before
// PostgreSQL; it gets SIGTERM (a clean stop) if `folio cluster` dies first.
type child struct {
	name, url string
	cmd       *exec.Cmd
	started   time.Time
	exited    chan struct{} // closed once the process is reaped and its last line written
}

// startChild starts one; exits (nil: none) is told when it has exited.
func startChild(exe string, args []string, name, url string, out *syncWriter, exits chan<- *child) (*child, error) {
	n := &child{name: name, url: url, cmd: exec.Command(exe, args...), started: time.Now(), exited: make(chan struct{})}
	// The same writer for both streams: exec copies them with one goroutine, so the
	// lineWriter is never written concurrently.
	lw := &lineWriter{prefix: fmt.Sprintf("%-7s | ", name), out: out}
	n.cmd.Stdout, n.cmd.Stderr = lw, lw
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := n.cmd.Start(); err != nil {
		return nil, fmt.Errorf("cluster: start %s: %w", name, err)
	}
	go func() {
		_ = n.cmd.Wait()
		lw.flush()
		close(n.exited)
		if exits != nil {
			exits <- n // buffered for every node
		}
	}()
	return n, nil
}

// waitHealthy returns once every node answers GET /healthz with 200, or fails when
// a node or PostgreSQL exits, ctx ends or clusterReadyWithin passes.
func waitHealthy(ctx context.Context, nodes []*slot, exits <-chan *child, pg *pglocal.Server) error {
	ctx, cancel := context.WithTimeout(ctx, clusterReadyWithin)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for _, n := range nodes {
		for !healthy(ctx, client, n.url) {
			select {
			case e := <-exits:
				return fmt.Errorf("cluster: %s exited at start: %v", e.name, e.cmd.ProcessState)
			case <-pg.Exited():
				return errors.New("cluster: PostgreSQL exited while the nodes started")
			case <-ctx.Done():
				return fmt.Errorf("cluster: %s did not become healthy: %w", n.name, ctx.Err())
			case <-tick.C:
			}
		}
	}
	return nil
}

// healthy reports whether url answers GET /healthz with 200.
func healthy(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, "GET", url+"/healthz", nil)
	if err != nil {
		return false
	}
	res, err := client.Do(req)
	if err != nil {
		return false
	}
	_ = res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// syncWriter writes whole lines from several children, one at a time, so two
// lines never mix.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) line(prefix string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.w.Write(append([]byte(prefix), b...))
}

// lineWriter forwards a child's output to out one complete line at a time, each
// after prefix. A line longer than maxLine is cut, so a child cannot grow buf
// without bound.
type lineWriter struct {
	prefix string
	out    *syncWriter
	buf    []byte
}

const maxLine = 64 << 10

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	rest := w.buf
	for {
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			w.out.line(w.prefix, rest[:i+1])
			rest = rest[i+1:]
		} else if len(rest) >= maxLine {
			w.out.line(w.prefix, append(rest[:maxLine:maxLine], '\n'))
			rest = rest[maxLine:]
		} else {
			break
		}
	}
	w.buf = append(w.buf[:0], rest...) // keep the unfinished line only
	return len(p), nil
}

// flush writes a last line that had no newline.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.out.line(w.prefix, append(w.buf, '\n'))
		w.buf = nil
	}
}
