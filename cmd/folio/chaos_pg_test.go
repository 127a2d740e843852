package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	nginxconf "folio/docs/nginx"
	"folio/persistence/pglocal"
	"folio/persistence/pgtest"
	"folio/transport/node/nodetest/ports"
)

// startNginx runs Debian's nginx with the documented configuration
// (docs/nginx/folio.conf, rendered for these nodes as `folio cluster --balancer
// nginx` does) on a free loopback port, and returns its base URL. It stops with
// the test.
func startNginx(t *testing.T, nodes []*proc) string {
	t.Helper()
	bin, err := nginxBinary()
	if err != nil {
		t.Fatal(err)
	}
	var ns []nginxconf.Node
	for i, p := range nodes {
		ns = append(ns, nginxconf.Node{Name: nodeName(i + 1), Addr: strings.TrimPrefix(p.base, "http://")})
	}
	listen := fmt.Sprintf("127.0.0.1:%d", ports.Consecutive(t, 1)) // below the ephemeral range (consecutiveFreePorts)
	main, err := writeNginx(t.TempDir(), ns, listen)
	if err != nil {
		t.Fatal(err)
	}
	out := &lines{}
	cmd := exec.Command(bin, nginxArgs(main)...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGQUIT); _ = cmd.Wait() })
	base := "http://" + listen
	waitUntil(t, 30*time.Second, "nginx answering for the nodes", func() bool {
		res, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
	return base
}

// TestAPostgreSQLRestartUnderLoadThroughNginx: three nodes on one PostgreSQL,
// behind nginx with the documented configuration; eight agents publish, read,
// list, comment on and decide pages through nginx while PostgreSQL is stopped
// (a fast shutdown, as an operator's restart or a failover does) and started
// again three seconds later. While the database is away a request may only be
// told to try again (503), or fail at nginx (502/504); never
// 401 for the valid key, never 404 for a page that exists, never a 500. Once it
// is back, every node serves again, every acknowledged write is there, and the
// tenant's audit chain verifies.
func TestAPostgreSQLRestartUnderLoadThroughNginx(t *testing.T) {
	dir := pgtest.ReachableTempDir(t)
	opt := pglocal.Options{Dir: filepath.Join(dir, "pg"), LogFile: filepath.Join(dir, "postgres.log"), NoSync: true,
		Settings: []string{"max_connections=200"}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pg, err := pglocal.Start(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	if err := pg.CreateDatabase(ctx, "folio"); err != nil {
		t.Fatal(err)
	}
	opt.Port = pg.Port // the restart comes back where the nodes look for it
	// Actors idle out within a second, so that reads meet the store (not only the
	// pages, tenants and mailboxes held in memory) while the database is away.
	nodes := clusterOn(t, pg.URL("folio"), 3, "--idle-after", "700ms", "--idle-after-done", "300ms")
	lb := &proc{base: startNginx(t, nodes)}

	st, reg, err := lb.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "pg-restart"})
	if err != nil || st != 201 {
		t.Fatalf("register through nginx: %d %v %v", st, reg, err)
	}
	key := reg["apiKey"].(string)

	var (
		mu      sync.Mutex
		pages   = map[string]bool{} // acknowledged page -> approval acknowledged
		retries = map[int]int{}     // 502/503/504 by status
		wrong   []string            // every other refusal
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	cli := &http.Client{Timeout: 30 * time.Second}
	// note records one answer to what on a page that exists (or a publish): ok is
	// the status the request succeeds with.
	note := func(what string, ok, st int, m map[string]any, err error) bool {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil && st == ok:
			return true
		case err == nil && (st == 502 || st == 503 || st == 504):
			retries[st]++
			mu.Unlock()
			time.Sleep(100 * time.Millisecond) // a client backs off before it tries again
			mu.Lock()
		case err == nil && st == 409 && (strings.HasPrefix(what, "approve") || strings.HasPrefix(what, "comment")):
			// the page was decided already (by this agent, earlier)
		default:
			wrong = append(wrong, fmt.Sprintf("%s: %d %v %v", what, st, m, err))
		}
		return false
	}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []string
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				st, m, err := lb.callWith(cli, "POST", "/v1/publish", key, publishBody(w*100000+i))
				if note("publish", 201, st, m, err) {
					id := m["pageId"].(string)
					mu.Lock()
					pages[id] = false
					mu.Unlock()
					mine = append(mine, id)
				}
				if len(mine) == 0 {
					continue
				}
				id := mine[i%len(mine)]
				st, m, err = lb.callWith(cli, "GET", "/v1/pages/"+id, key, nil)
				note("GET page "+id, 200, st, m, err)
				st, m, err = lb.callWith(cli, "GET", "/v1/pages?limit=5", key, nil)
				note("list", 200, st, m, err)
				st, m, err = lb.callWith(cli, "POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": "while the database restarts"})
				note("comment on "+id, 201, st, m, err)
				if i%3 == 0 {
					st, m, err = lb.callWith(cli, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
					if note("approve "+id, 200, st, m, err) {
						mu.Lock()
						pages[id] = true
						mu.Unlock()
					}
				}
			}
		}()
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(pages) }
	waitUntil(t, 30*time.Second, "40 pages published through nginx", func() bool { return count() >= 40 })
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	before := count()
	time.Sleep(3 * time.Second) // the database is away; the load goes on
	restarted := time.Now()
	if pg, err = pglocal.Start(ctx, opt); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 60*time.Second, "a page published after the restart", func() bool { return count() > before })
	back := time.Since(restarted)
	waitUntil(t, 60*time.Second, "40 more pages published after the restart", func() bool { return count() >= before+40 })
	close(stop)
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	for _, w := range wrong {
		t.Error(w)
	}
	if len(wrong) > 0 { // what the nodes logged about the requests that failed
		for _, p := range nodes {
			for _, l := range strings.Split(p.log.String(), "\n") {
				if strings.Contains(l, "level=ERROR") {
					t.Log(p.base, l)
				}
			}
		}
	}
	t.Logf("%d pages acknowledged; told to try again or failed at nginx while the database was away: %v; the first publish acknowledged %v after PostgreSQL was started again (its start-up included)", len(pages), retries, back.Round(time.Millisecond))
	for id, decided := range pages {
		p := nodes[len(id)%len(nodes)]
		st, page, err := p.call("GET", "/v1/pages/"+id, key, nil)
		if err != nil || st != 200 {
			t.Fatalf("acknowledged page %s through %s: %d %v", id, p.base, st, err)
		}
		if decided && page["status"] != "completed" {
			t.Errorf("page %s: approval acknowledged, status %v", id, page["status"])
		}
	}
	for _, p := range nodes {
		if _, v, _ := p.call("GET", "/v1/audit/verify", key, nil); v["status"] != "valid" {
			t.Errorf("%s: audit chain %v", p.base, v)
		}
		if st, _, _ := p.call("GET", "/v1/pages?limit=1", key, nil); st != 200 {
			t.Errorf("%s after the restart: listing answered %d", p.base, st)
		}
	}
}
