package node_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"folio/transport/node"
)

// Benchmarks of the durable write paths through the real HTTP stack (loopback TCP,
// JSON, auth, actor, group-committed fsync). Each reports throughput and latency
// percentiles; BenchmarkBoltFsyncPerCommit is the raw one-fsync-per-commit rate of
// bbolt on the same disk, for comparison within the same run.

type benchEnv struct {
	node *node.Node
	srv  *httptest.Server
	cli  *http.Client
	key  string
}

func newBenchEnv(b *testing.B, clients int, opts ...func(*node.Config)) *benchEnv {
	b.Helper()
	cfg := node.Config{DataDir: b.TempDir(), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		o(&cfg)
	}
	n, err := node.Open(cfg)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(n.Handler())
	tr := &http.Transport{MaxIdleConns: clients * 2, MaxIdleConnsPerHost: clients * 2}
	e := &benchEnv{node: n, srv: srv, cli: &http.Client{Transport: tr}}
	b.Cleanup(func() { srv.Close(); tr.CloseIdleConnections(); _ = n.Close(b.Context()) })
	var reg map[string]any
	e.post(b, "/v1/auth/agent/register", []byte(`{"name":"bench"}`), 201, &reg)
	e.key = reg["apiKey"].(string)
	// The bench tenant is on the enterprise plan so that quotas never interfere.
	return e
}

func (e *benchEnv) post(b *testing.B, path string, body []byte, want int, out any) time.Duration {
	req, _ := http.NewRequest("POST", e.srv.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	start := time.Now()
	res, err := e.cli.Do(req)
	if err != nil {
		b.Error(err)
		return 0
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	took := time.Since(start)
	if res.StatusCode != want {
		b.Errorf("POST %s: %d %s", path, res.StatusCode, raw)
	}
	if out != nil {
		_ = json.Unmarshal(raw, out)
	}
	return took
}

var benchPage = []byte(`{"title":"Deploy v2.4.1 to production?","page_type":"approval","priority":"high",
"blocks":[{"type":"text","data":{"content":"Release notes: faster search, fewer bugs."}},
{"type":"key_value","data":{"pairs":[{"key":"Service","value":"api"},{"key":"Version","value":"2.4.1"}]}},
{"type":"table","data":{"columns":[{"key":"check","label":"Check"},{"key":"result","label":"Result"}],"rows":[{"check":"tests","result":"pass"},{"check":"canary","result":"pass"}]}}],
"actions":[{"action_id":"approve","label":"Approve","style":"primary"},{"action_id":"reject","label":"Reject","style":"danger"}]}`)

// runClients runs n operations spread over clients goroutines and reports
// ops/s with p50/p99 latency.
func runClients(b *testing.B, clients int, op func(i int) time.Duration) {
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				lat[i] = op(i)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

func BenchmarkPublish(b *testing.B) {
	for _, clients := range []int{1, 16, 64, 256} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			e := newBenchEnv(b, clients)
			runClients(b, clients, func(int) time.Duration { return e.post(b, "/v1/publish", benchPage, 201, nil) })
		})
	}
}

func BenchmarkExecuteAction(b *testing.B) {
	for _, clients := range []int{1, 16, 64, 256} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			e := newBenchEnv(b, clients)
			ids := make([]string, b.N)
			var wg sync.WaitGroup
			var next atomic.Int64
			for c := 0; c < 32; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := int(next.Add(1)) - 1; i < b.N; i = int(next.Add(1)) - 1 {
						var m map[string]any
						e.post(b, "/v1/publish", benchPage, 201, &m)
						ids[i], _ = m["pageId"].(string)
					}
				}()
			}
			wg.Wait()
			body := []byte(`{"actor":{"identity":"reviewer@example.com"},"comment":"ship it"}`)
			runClients(b, clients, func(i int) time.Duration {
				return e.post(b, "/v1/pages/"+ids[i]+"/actions/approve", body, 200, nil)
			})
		})
	}
}

// BenchmarkBoltFsyncPerCommit is bbolt's own rate with one fsync per commit (no
// group commit): the floor that group commit is measured against.
func BenchmarkBoltFsyncPerCommit(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	val := bytes.Repeat([]byte("x"), 1024)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := db.Update(func(tx *bolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists([]byte("b"))
			if err != nil {
				return err
			}
			return bk.Put([]byte(fmt.Sprintf("k%09d", i)), val)
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "commits/s")
}

// BenchmarkListPagesFirstScreen: GET /v1/pages?limit=25 (the dashboard's first
// screen of pages, and its total) for a tenant with 5,000 pages.
func BenchmarkListPagesFirstScreen(b *testing.B) {
	e := newBenchEnv(b, 16)
	var wg sync.WaitGroup
	for c := 0; c < 16; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000/16+1; i++ {
				e.post(b, "/v1/publish", benchPage, 201, nil)
			}
		}()
	}
	wg.Wait()
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/pages?limit=25", nil)
	req.Header.Set("Authorization", "Bearer "+e.key)
	b.ResetTimer()
	for b.Loop() {
		res, err := e.cli.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
}

// BenchmarkAuditTreeCost measures publish and act throughput with the audit tree,
// receipts and checkpoints on (an auditor fetching the checkpoint every 500 ms)
// against off (Config.NoAuditTree: the chain alone, as before the tree), in the
// same run, 16 clients, on bbolt, off and on taking turns (three rounds) so that
// a shared machine's load falls on both alike. The target is a cost of at most 10 %.
//
//	go test -run '^$' -bench BenchmarkAuditTreeCost -benchtime 1000x ./transport/node/
func BenchmarkAuditTreeCost(b *testing.B) {
	const clients = 16
	act := []byte(`{"actor":{"identity":"reviewer@example.com"},"comment":"ship it"}`)
	for round := 1; round <= 3; round++ {
		for _, op := range []string{"publish", "act"} {
			for _, mode := range []string{"tree=off", "tree=on"} {
				b.Run(fmt.Sprintf("%s/round=%d/%s", op, round, mode), func(b *testing.B) {
					e := newBenchEnv(b, clients, func(c *node.Config) { c.NoAuditTree = mode == "tree=off" })
					if mode == "tree=on" {
						stop := make(chan struct{})
						defer close(stop)
						go e.pollCheckpoint(stop)
					}
					var ids []string
					if op == "act" {
						ids = e.publishN(b, b.N)
					}
					runClients(b, clients, func(i int) time.Duration {
						if op == "publish" {
							return e.post(b, "/v1/publish", benchPage, 201, nil)
						}
						return e.post(b, "/v1/pages/"+ids[i]+"/actions/approve", act, 200, nil)
					})
				})
			}
		}
	}
}

// pollCheckpoint fetches the tenant's checkpoint every 500 ms until stop closes,
// so that checkpoints are signed as the tree grows.
func (e *benchEnv) pollCheckpoint(stop <-chan struct{}) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			req, _ := http.NewRequest("GET", e.srv.URL+"/v1/audit/checkpoint", nil)
			req.Header.Set("Authorization", "Bearer "+e.key)
			if res, err := e.cli.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				_ = res.Body.Close()
			}
		}
	}
}

// publishN publishes n pages with 32 clients and returns their ids.
func (e *benchEnv) publishN(b *testing.B, n int) []string {
	ids := make([]string, n)
	var wg sync.WaitGroup
	var next atomic.Int64
	for c := 0; c < 32; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				var m map[string]any
				e.post(b, "/v1/publish", benchPage, 201, &m)
				ids[i], _ = m["pageId"].(string)
			}
		}()
	}
	wg.Wait()
	return ids
}
