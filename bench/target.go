package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"folio/transport/node"
)

// Target is the server under load: the base URLs of its nodes (one for a single
// server, several for the nodes of one cluster sharing one store), and the server
// itself when the harness started it (one node, in this process or as a process).
//
// The Target's own calls (Call, Register, Subscribe, URL) are its first node's:
// scenarios do their set-up through them and spread the measured load with On.
type Target struct {
	*Node         // the first node
	Nodes []*Node // every node, in the order given; Nodes[0] is the first
	local *node.Node
	dir   string
	proc  *proc // a server process the harness started
}

// Local tells whether the server runs inside this process.
func (t *Target) Local() bool { return t.local != nil }

// dataDir is the data directory of a server the harness started on this machine
// ("" for a server elsewhere).
func (t *Target) dataDir() string {
	if t.proc != nil {
		return t.proc.dir
	}
	return t.dir
}

// StartLocal starts a node on a temporary data directory, listening on loopback.
// Its tenants are on the enterprise plan so quotas never interfere with a run.
func StartLocal(cfgs ...func(*node.Config)) (*Target, error) {
	dir, err := os.MkdirTemp("", "folio-bench-")
	if err != nil {
		return nil, err
	}
	cfg := node.Config{Addr: "127.0.0.1:0", DataDir: dir, DefaultPlan: "enterprise",
		AllowPrivateCallbacks: true, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, f := range cfgs {
		f(&cfg)
	}
	n, err := node.Open(cfg)
	if err != nil {
		return nil, err
	}
	addr, err := n.Listen()
	if err != nil {
		_ = n.Close(context.Background())
		return nil, err
	}
	t := Remote("http://" + addr)
	t.local, t.dir = n, dir
	return t, nil
}

// Remote points the harness at a running server, or with more URLs at the nodes
// of one cluster: url is the first node, which takes the scenarios' set-up.
func Remote(url string, more ...string) *Target {
	tr := &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, IdleConnTimeout: 90 * time.Second}
	cli := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	t := &Target{}
	for _, u := range append([]string{url}, more...) {
		base := strings.TrimRight(u, "/")
		t.Nodes = append(t.Nodes, &Node{URL: base, Client: cli, lean: newLeanClient(base, 60*time.Second)})
	}
	t.Node = t.Nodes[0]
	return t
}

// Close stops a server the harness started and removes its data.
func (t *Target) Close() {
	for _, n := range t.Nodes {
		if n.lean != nil {
			n.lean.close()
		}
	}
	if t.proc != nil {
		t.stopProcess()
		_ = os.RemoveAll(t.proc.dir)
	}
	if t.local != nil {
		_ = t.local.Close(context.Background())
		_ = os.RemoveAll(t.dir)
	}
}

// ServerUsage is the server's CPU and memory over a scenario.
type ServerUsage struct {
	CPUSeconds float64 `json:"cpu_seconds"`
	RSSMiB     float64 `json:"rss_mib"`
	Source     string  `json:"source"`
}

// usageSample reads the server's cumulative CPU seconds and resident memory: from
// /proc/self for a local node (client and server share the process: the numbers
// include the harness), else from the servers' /metrics, summed over the target's
// nodes (each node is a server process of its own).
func (t *Target) usageSample(ctx context.Context) (cpu, rssMiB float64, source string) {
	if t.Local() {
		cpu, rss := procSelf()
		return cpu, rss, "process (in-process server: includes the harness)"
	}
	answered := 0
	for _, n := range t.Nodes {
		var c, r float64
		err := n.scrape(ctx, func(line string) {
			if v, ok := metricValue(line, "process_cpu_seconds_total"); ok {
				c = v
			}
			if v, ok := metricValue(line, "process_resident_memory_bytes"); ok {
				r = v / (1 << 20)
			}
		})
		if err == nil {
			cpu, rssMiB, answered = cpu+c, rssMiB+r, answered+1
		}
	}
	switch {
	case answered == 0:
		return 0, 0, "unavailable"
	case len(t.Nodes) == 1:
		return cpu, rssMiB, "server /metrics"
	}
	return cpu, rssMiB, fmt.Sprintf("servers' /metrics, summed over %d of %d nodes", answered, len(t.Nodes))
}

func metricValue(line, name string) (float64, bool) {
	if !strings.HasPrefix(line, name+" ") {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(line[len(name):]), 64)
	return v, err == nil
}

// procSelf reads this process's CPU seconds and RSS (MiB) from /proc.
func procSelf() (float64, float64) {
	var cpu, rss float64
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i > 0 {
			f := strings.Fields(s[i+2:])
			if len(f) > 13 {
				ut, _ := strconv.ParseFloat(f[11], 64)
				st, _ := strconv.ParseFloat(f[12], 64)
				cpu = (ut + st) / 100 // USER_HZ is 100 on Linux
			}
		}
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "VmRSS:") {
				kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
				rss = kb / 1024
			}
		}
	}
	return cpu, rss
}
