package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"folio/transport/client"
	"folio/transport/node"
)

// Target is the server under load: a URL, and the node itself when the harness
// started it in this process.
type Target struct {
	URL    string
	Client *http.Client // streams, and every call to an https target
	lean   *leanClient  // request-reply calls to an http target
	node   *node.Node
	dir    string
	proc   *proc // a server process the harness started
}

// Local tells whether the server runs inside this process.
func (t *Target) Local() bool { return t.node != nil }

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
	t.node, t.dir = n, dir
	return t, nil
}

// Remote points the harness at a running server.
func Remote(url string) *Target {
	tr := &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, IdleConnTimeout: 90 * time.Second}
	base := strings.TrimRight(url, "/")
	return &Target{URL: base, Client: &http.Client{Transport: tr, Timeout: 60 * time.Second}, lean: newLeanClient(base, 60*time.Second)}
}

// Close stops a server the harness started and removes its data.
func (t *Target) Close() {
	if t.lean != nil {
		t.lean.close()
	}
	if t.proc != nil {
		t.stopProcess()
		_ = os.RemoveAll(t.proc.dir)
	}
	if t.node != nil {
		_ = t.node.Close(context.Background())
		_ = os.RemoveAll(t.dir)
	}
}

// Call sends one JSON request and decodes a JSON reply into out (may be nil). It
// returns the status; transport errors are status 0.
func (t *Target) Call(ctx context.Context, method, path, key string, body []byte, out any) (int, error) {
	if t.lean != nil {
		st, raw, err := t.lean.do(ctx, method, path, key, body)
		if err != nil {
			return st, err
		}
		return st, decodeReply(method, path, raw, out)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.URL+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := t.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	return res.StatusCode, decodeReply(method, path, raw, out)
}

// decodeReply decodes a JSON reply into out (nothing to do when out is nil).
func decodeReply(method, path string, raw []byte, out any) error {
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return nil
}

// Register creates a fresh agent tenant and returns its API key.
func (t *Target) Register(ctx context.Context, name string) (string, error) {
	reg, err := t.Agent("").Register(ctx, client.RegisterRequest{Name: name})
	if err != nil {
		return "", fmt.Errorf("register: %w", err)
	}
	return reg.APIKey, nil
}

// Agent is the typed client agents use (transport/client), for the harness's
// set-up and control calls. The timed request loops use the lean client (Call):
// on two cores the harness shares with the server, a general-purpose client's
// own CPU would be measured as the server's slowness.
func (t *Target) Agent(key string) *client.Client {
	return client.New(t.URL, key, client.WithHTTPClient(t.Client))
}

// ServerUsage is the server's CPU and memory over a scenario.
type ServerUsage struct {
	CPUSeconds float64 `json:"cpu_seconds"`
	RSSMiB     float64 `json:"rss_mib"`
	Source     string  `json:"source"`
}

// usageSample reads the server's cumulative CPU seconds and resident memory: from
// /proc/self for a local node (client and server share the process: the numbers
// include the harness), else from the server's /metrics.
func (t *Target) usageSample(ctx context.Context) (cpu, rssMiB float64, source string) {
	if t.Local() {
		cpu, rss := procSelf()
		return cpu, rss, "process (in-process server: includes the harness)"
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", t.URL+"/metrics", nil)
	res, err := t.Client.Do(req)
	if err != nil {
		return 0, 0, "unavailable"
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := metricValue(line, "process_cpu_seconds_total"); ok {
			cpu = v
		}
		if v, ok := metricValue(line, "process_resident_memory_bytes"); ok {
			rssMiB = v / (1 << 20)
		}
	}
	return cpu, rssMiB, "server /metrics"
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
