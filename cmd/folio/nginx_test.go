package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	nginxconf "folio/docs/nginx"

	"folio/transport/node/nodetest/ports"
)

// TestTheDocumentedNginxConfigurationIsTheTestedOneAndNginxAcceptsIt: docs/cluster.md
// shows docs/nginx/folio.conf as it is, and Debian's nginx accepts the file as
// written (nginx -t, with its certificate lines) and the plain-HTTP variant `folio
// cluster --balancer nginx` writes.
func TestTheDocumentedNginxConfigurationIsTheTestedOneAndNginxAcceptsIt(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cluster.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```nginx\n"+nginxconf.Conf+"```\n") {
		t.Errorf("docs/cluster.md does not show docs/nginx/folio.conf as it is, in an nginx block: copy the file into the document")
	}
	abs, _ := filepath.Abs("../../docs/nginx/folio.conf")
	nginxT(t, abs)

	dir := t.TempDir()
	main, err := writeNginx(dir, []nginxconf.Node{{Name: "node1", Addr: "127.0.0.1:18081"}, {Name: "node2", Addr: "127.0.0.1:18082"}}, "127.0.0.1:18080")
	if err != nil {
		t.Fatal(err)
	}
	bin, _ := nginxBinary()
	if out, err := exec.Command(bin, nginxArgs(main, "-t")...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t on the plain-HTTP variant: %v\n%s", err, out)
	}
	plain, _ := os.ReadFile(filepath.Join(dir, "folio.conf"))
	for _, want := range []string{"listen 127.0.0.1:18080;", "server 127.0.0.1:18082;", `~^node2\.   127.0.0.1:18082;`, "proxy_set_header Host $http_host;"} {
		if !strings.Contains(string(plain), want) {
			t.Errorf("the plain-HTTP variant lacks %q:\n%s", want, plain)
		}
	}
	if strings.Contains(string(plain), "ssl_certificate") || strings.Contains(string(plain), "10.0.0.1") {
		t.Errorf("the plain-HTTP variant keeps a certificate line or an example node:\n%s", plain)
	}
}

// nginxT runs nginx -t on a main configuration that includes conf in http {}, as
// Debian's nginx.conf includes conf.d/*.conf.
func nginxT(t *testing.T, conf string) {
	t.Helper()
	bin, err := nginxBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	main := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(main, []byte(fmt.Sprintf("pid %q;\nerror_log stderr;\nevents {}\nhttp {\n    include %q;\n}\n",
		filepath.Join(dir, "nginx.pid"), conf)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, nginxArgs(main, "-t")...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t on %s as written: %v\n%s", conf, err, out)
	}
}

// TestNginxAsDocumentedInFrontOfThreeNodes runs `folio cluster --nodes 3 --balancer
// nginx` (Debian's nginx with docs/nginx/folio.conf) and goes through the balancer
// as a browser and as agents do:
//   - a browser's decision form, whose Origin names the balancer with its port, is
//     not refused as sent from another site (Host is forwarded with the port);
//   - a page's event stream delivers an event as it happens (no buffering);
//   - the client address nginx forwards is the one the per-address limits count;
//   - 20 agents on the official MCP TypeScript SDK (default options, no key: each
//     session is provisioned an account), all at once, each publish a page, read it,
//     ask for an approval and get the decision, their sessions held by different
//     nodes; the MCP Inspector CLI lists and calls tools through the balancer;
//   - an agent on the SDK (default options) gets a decision taken 3 minutes after
//     it asked, each of its calls held 45 s across nginx;
//   - a session whose node is gone is answered 404 (MCP: start a new session).
func TestNginxAsDocumentedInFrontOfThreeNodes(t *testing.T) {
	// Not parallel: the cluster takes a run of consecutive ports, which a parallel
	// test's listener could take meanwhile (CI saw nginx fail to bind).
	sdkDir := tsSDK(t)
	// The nodes hold each MCP call for the default --mcp-wait (45 s), so every
	// held call crosses nginx as it would in production.
	c := startCluster(t, 3, []string{"--restart-backoff", "20s"},
		"--register-rpm", "1000", "--anon-rpm", "100000", "--signin-links-per-address", "1")
	lb := &proc{base: c.lb}
	st, reg, err := lb.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "nginx-test"})
	if err != nil || st != 201 {
		t.Fatalf("register through the balancer: %d %v %v", st, reg, err)
	}
	key := reg["apiKey"].(string)
	st, m, err := lb.call("POST", "/v1/publish", key, publishBody(1))
	if err != nil || st != 201 {
		t.Fatalf("publish through the balancer: %d %v %v", st, m, err)
	}
	id := m["pageId"].(string)
	// An agent on the TypeScript SDK with default options asks through the balancer;
	// the person decides 3 minutes later, while the subtests below run.
	agent, agentDone := tsAgent(t, "http", "MCP_URL="+c.lb+"/mcp", "FOLIO_API_KEY="+key), make(chan error, 1)
	go func() { agentDone <- tsAgentDecidedAfter(agent, lb) }()

	t.Run("a browser's form from the balancer's origin", func(t *testing.T) {
		req, _ := http.NewRequest("POST", c.lb+"/p/"+id+"/act", strings.NewReader(url.Values{"action": {"approve"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", c.lb) // http://127.0.0.1:<port>: not the default port
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(res)
		if strings.Contains(body, "another site") {
			t.Fatalf("the decision form posted from %s was refused as cross-site: %d %s", c.lb, res.StatusCode, body)
		}
	})

	t.Run("an event stream through the balancer", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", c.lb+"/v1/pages/"+id+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("page stream through the balancer: %v %v", err, res)
		}
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		next := func(want string) {
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "data: ") && strings.Contains(sc.Text(), want) {
					return
				}
			}
			t.Fatalf("the stream ended before %q: %v", want, sc.Err())
		}
		next(`"connected"`)
		if st, m, err := lb.call("POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": "streamed", "author_name": "ops"}); err != nil || st != 201 {
			t.Fatalf("comment: %d %v %v", st, m, err)
		}
		next("streamed") // within the 10 s of ctx: nginx passed it on as it was written
	})

	t.Run("an agent's pages on its credential's node", func(t *testing.T) {
		// Pages created by each node (POST /v1/pages, drafts), from its
		// folio_http_requests_total. Drafts: the MCP agent running meanwhile publishes
		// through its node's own /v1/publish, and would count there.
		served := func() []int {
			out := make([]int, 3)
			for n := range out {
				res, err := http.Get(c.node(n+1) + "/metrics")
				if err != nil {
					t.Fatal(err)
				}
				for _, line := range strings.Split(readAll(res), "\n") {
					if strings.HasPrefix(line, "folio_http_requests_total{") && strings.Contains(line, `route="/v1/pages"`) && strings.Contains(line, `method="POST"`) && strings.Contains(line, `status="201"`) {
						var v float64
						if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err == nil {
							out[n] += int(v)
						}
					}
				}
			}
			return out
		}
		nodesOf := map[int]bool{}
		for a := range 6 {
			st, reg, err := lb.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": fmt.Sprintf("publisher-%d", a)})
			if err != nil || st != 201 {
				t.Fatalf("register: %d %v %v", st, reg, err)
			}
			before := served()
			for i := range 5 {
				if st, m, err := lb.call("POST", "/v1/pages", reg["apiKey"].(string), publishBody(i)); err != nil || st != 201 {
					t.Fatalf("create a page: %d %v %v", st, m, err)
				}
			}
			after, on := served(), []int{}
			for n := range after {
				if after[n] > before[n] {
					on = append(on, n+1)
					nodesOf[n+1] = true
				}
			}
			if len(on) != 1 || after[on[0]-1]-before[on[0]-1] != 5 {
				t.Fatalf("one agent's 5 new pages were made by nodes %v (before %v, after %v), want all by one", on, before, after)
			}
		}
		if len(nodesOf) < 2 {
			t.Fatalf("six agents' pages all went to node %v: the test shows nothing about spreading them", nodesOf)
		}
	})

	t.Run("the client address nginx forwards", func(t *testing.T) {
		// A client's address is its connection's source: 127.0.0.2 and up (all of
		// 127/8 is loopback); nginx itself connects to the nodes from 127.0.0.1, the
		// one trusted proxy.
		send := func(client, email string) int {
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(client)}}
			hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
			req, _ := http.NewRequest("POST", c.lb+"/v1/auth/magic-link/send", strings.NewReader(fmt.Sprintf(`{"email":%q}`, email)))
			req.Header.Set("Content-Type", "application/json")
			res, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			readAll(res)
			return res.StatusCode
		}
		// One link per address and node (limits count per node): of four links
		// from one client, two reach one node, and one is refused.
		refused := 0
		for i := range 4 {
			if st := send("127.0.0.2", fmt.Sprintf("a%d@example.com", i)); st == 429 {
				refused++
			} else if st != 200 {
				t.Fatalf("link %d of the first client: %d", i, st)
			}
		}
		if refused == 0 {
			t.Fatalf("four links of one client were all sent: the limit of one per node did not count them")
		}
		// Ten other clients, one link each: none shares the first one's bucket. Had
		// the nodes counted the balancer's address, each would land on a node that
		// refused it with a chance of at least 1/3.
		for i := range 10 {
			if st := send(fmt.Sprintf("127.0.0.%d", 10+i), fmt.Sprintf("b%d@example.com", i)); st != 200 {
				t.Fatalf("client %d's first link: %d, want 200: the nodes counted the balancer, not the client", i, st)
			}
		}
	})

	t.Run("20 MCP sessions of the TypeScript SDK", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second) // request_approval holds 45 s
		defer cancel()
		script, _ := filepath.Abs("testdata/ts_sdk_rounds.mjs")
		cmd := exec.CommandContext(ctx, "node", script)
		cmd.Env = append(os.Environ(), "SDK_DIR="+sdkDir, "MCP_URL="+c.lb+"/mcp", "SESSIONS=20")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done, nodes := 0, map[string]int{}
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var s struct {
				Session                                   int
				SessionID, Step, PageID, Status, Decision string
			}
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				t.Fatalf("the agents printed %q", sc.Text())
			}
			switch s.Step {
			case "pending": // a person decides, through the balancer
				if st, m, err := lb.call("POST", "/v1/pages/"+s.PageID+"/actions/approve", "", map[string]any{
					"actor": map[string]any{"identity": "ops@example.com"}}); err != nil || st != 200 {
					t.Errorf("approve %s: %d %v %v", s.PageID, st, m, err)
				}
			case "done":
				if s.Status != "completed" || s.Decision != "approved" {
					t.Errorf("session %d ended %s %s", s.Session, s.Status, s.Decision)
				}
				done++
				nodes[strings.SplitN(s.SessionID, ".", 2)[0]]++
			}
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the agents failed: %v\n%s", err, stderr.String())
		}
		if done != 20 {
			t.Fatalf("%d of 20 sessions completed", done)
		}
		if len(nodes) < 2 {
			t.Fatalf("every session was held by one node (%v): the test shows nothing about routing", nodes)
		}
		t.Logf("20 of 20 sessions completed; sessions per node: %v", nodes)
	})

	t.Run("the MCP Inspector CLI", func(t *testing.T) {
		inspector := inspectorBinary(t)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		for i := range 2 { // each run is a session of its own, on whichever node the balancer picks
			out, err := exec.CommandContext(ctx, inspector, "--cli", c.lb+"/mcp", "--transport", "http", "--header", "Authorization: Bearer "+key,
				"--method", "tools/call", "--tool-name", "publish_page", "--tool-arg", fmt.Sprintf("title=Inspected %d", i)).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "pageId") {
				t.Fatalf("inspector tools/call through the balancer: %v\n%s", err, out)
			}
		}
	})

	t.Run("a decision 3 minutes after request_approval, through the balancer", func(t *testing.T) {
		if err := <-agentDone; err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a session whose node is gone", func(t *testing.T) {
		c.kill(t, 3) // started again only after --restart-backoff (20 s)
		waitUntil(t, 10*time.Second, "node 3 is down", func() bool {
			_, _, err := (&proc{base: c.node(3)}).call("GET", "/healthz", "", nil)
			return err != nil
		})
		req, _ := http.NewRequest("POST", c.lb+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", "node3.ABCDEFGHIJKLMNOPQRSTUVWXYZ")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(res); res.StatusCode != 404 || !strings.Contains(body, "start a new session") {
			t.Fatalf("a session of a node that is gone: %d %s, want 404 (MCP: start a new session)", res.StatusCode, body)
		}
	})
}

func readAll(res *http.Response) string {
	defer res.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(res.Body).WriteTo(&b)
	return b.String()
}

// TestANameOrBalancerTheBinaryCannotUseStopsItAtStart: a --node-name the balancer
// could not match in a session id (FOLIO_NODE_NAME too), and a --balancer other
// than nginx, stop the binary at start with a message naming the flag.
func TestANameOrBalancerTheBinaryCannotUseStopsItAtStart(t *testing.T) {
	for _, run := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"serve", "--addr", ports.Free(t), "--data", t.TempDir(), "--node-name", "node.1"}, "--node-name"},
		{[]string{"FOLIO_NODE_NAME=node 1"}, []string{"serve", "--addr", ports.Free(t), "--data", t.TempDir()}, "--node-name"},
		{nil, []string{"cluster", "--data", t.TempDir(), "--balancer", "haproxy"}, "--balancer nginx"},
	} {
		cmd := exec.Command(folioBinary(t), run.args...)
		cmd.Env = append(os.Environ(), run.env...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), run.want) {
			t.Errorf("folio %v (env %v): %v\n%s\nwant an error naming %s", run.args, run.env, err, out, run.want)
		}
	}
}
