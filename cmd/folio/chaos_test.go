package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"folio/persistence/pgtest"
	"folio/transport/client"
	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/ports"
)

// The chaos test runs three real `folio serve` processes on one PostgreSQL
// database, their embedded NATS servers routed to each other, and one tenant written
// from all three (a hot tenant), with Debian's nginx in front as documented
// (docs/nginx/folio.conf). It kills one node with SIGKILL in the middle of a
// mixed load and stops another with SIGSTOP for 15 s in the middle of a race, then
// checks what the specification promises: nothing acknowledged is lost, one decision
// per page, a valid audit chain, every event once and in order on streams held by
// other nodes, and every committed callback delivered with the same bytes.

// cluster3 starts n nodes sharing one database and one files directory.
func cluster3(t *testing.T, n int) []*proc {
	t.Helper()
	return clusterOn(t, pgtest.URL(t), n)
}

// clusterOn starts n nodes on the database at store, sharing one files directory,
// their NATS servers routed to each other, each with the extra serve flags.
func clusterOn(t *testing.T, store string, n int, extra ...string) []*proc {
	t.Helper()
	files := t.TempDir()
	addrs, nats := make([]string, n), make([]string, n)
	for i := range addrs {
		addrs[i], nats[i] = ports.Free(t), ports.Free(t)
	}
	nodes := make([]*proc, n)
	for i := range nodes {
		var routes []string
		for j := range nats {
			if j != i {
				routes = append(routes, "nats://"+nats[j])
			}
		}
		flags := []string{"--store", store, "--nats-listen", nats[i], "--nats-routes", strings.Join(routes, ","),
			"--allow-private-callbacks", "--callback-timeout", "2s", "--peer-check", "500ms", "--agent-retention", "10000000",
			"--enforce-limits=false"}
		nodes[i] = start(t, files, addrs[i], append(flags, extra...)...)
	}
	for _, p := range nodes {
		waitUntil(t, 30*time.Second, p.base+" routed to the other nodes", func() bool {
			return nodetest.Metric(t, p.base, "folio_cluster_peers") == float64(n-1)
		})
	}
	return nodes
}

// hooks receives callbacks: every body by webhook id.
type hooks struct {
	mu     sync.Mutex
	bodies map[string][]string
}

func newHooks(t *testing.T) (*hooks, string) {
	h := &hooks{bodies: map[string][]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		id := r.Header.Get("webhook-id")
		h.bodies[id] = append(h.bodies[id], string(b))
		h.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return h, srv.URL
}

// pageOf reads the page id a callback body names.
func pageOf(body string) string {
	var b struct {
		PageID string `json:"page_id"`
	}
	_ = json.Unmarshal([]byte(body), &b)
	return b.PageID
}

// streamIDs reads a page stream's event ids and types until ctx ends.
func streamIDs(ctx context.Context, t *testing.T, base, pageID, key string) <-chan [2]string {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/pages/"+pageID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("page stream: %v %v", err, res)
	}
	out := make(chan [2]string, 1<<16)
	go func() {
		defer res.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		id := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				id = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				var p struct {
					Type string `json:"type"`
				}
				_ = json.Unmarshal([]byte(v), &p)
				if p.Type != "connected" {
					out <- [2]string{id, p.Type}
				}
				id = ""
			}
		}
	}()
	return out
}

func TestThreeNodesSurviveKillAndStop(t *testing.T) {
	nodes := cluster3(t, 3)
	a, b, c := nodes[0], nodes[1], nodes[2]
	// nginx with the documented configuration is a fourth way in: the mixed load
	// goes round-robin over the three nodes and the balancer, so requests cross
	// nodes as before and also take the route a deployment takes.
	entries := append(append([]*proc{}, nodes...), &proc{base: startNginx(t, nodes)})
	hk, hookURL := newHooks(t)
	_, reg, err := a.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "chaos"})
	if err != nil {
		t.Fatal(err)
	}
	key := reg["apiKey"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// A page written through A throughout, watched by a viewer on B.
	_, hot, _ := a.call("POST", "/v1/publish", key, publishBody(-1))
	hotID := hot["pageId"].(string)
	viewer := streamIDs(ctx, t, b.base, hotID, key)
	// The agent's stream, on C (which is killed), from the start of the log.
	agent, err := client.New(c.base, key).Events(ctx, "0")
	if err != nil {
		t.Fatal(err)
	}

	acks := &acked{pages: map[string]bool{}, appended: map[string]int{}, commented: map[string]string{}}
	hotAppends := 0
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the hot page's writer, through A
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			st, _, err := a.call("PATCH", "/v1/pages/"+hotID+"/blocks", key, map[string]any{"blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": fmt.Sprint("hot ", i)}}}})
			if err == nil && st == 200 {
				hotAppends++
			}
		}
	}()
	for w := 0; w < 24; w++ { // mixed load, round-robin over the nodes and nginx
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				on := func(k int) *proc { return entries[(w+i+k)%len(entries)] }
				body := publishBody(w*10000 + i)
				body["on_action"] = map[string]any{"default_url": hookURL}
				st, m, err := on(0).call("POST", "/v1/publish", key, body)
				if err != nil || st != 201 {
					continue // a node down: not acknowledged, try again
				}
				id := m["pageId"].(string)
				acks.mu.Lock()
				acks.pages[id] = false
				acks.mu.Unlock()
				if st, _, err := on(1).call("PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "appended"}}}}); err == nil && st == 200 {
					acks.mu.Lock()
					acks.appended[id]++
					acks.mu.Unlock()
				}
				if st, cm, err := on(2).call("POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": "during the chaos"}); err == nil && st == 201 {
					acks.mu.Lock()
					acks.commented[id] = cm["id"].(string)
					acks.mu.Unlock()
				}
				if i%2 == 0 {
					if st, _, err := on(3).call("POST", "/v1/pages/"+id+"/actions/approve", key, nil); err == nil && st == 200 {
						acks.mu.Lock()
						acks.pages[id] = true
						acks.mu.Unlock()
					}
				}
			}
		}(w)
	}

	// Read the agent stream on C until C dies, then resume on A.
	var ids []uint64
	readAgent := func(s *client.EventStream, until func() bool) {
		for !until() {
			ev, err := s.Next()
			if err != nil {
				return
			}
			n, _ := strconv.ParseUint(ev.ID, 10, 64)
			if len(ids) > 0 && n <= ids[len(ids)-1] {
				t.Errorf("agent stream: id %d after %d", n, ids[len(ids)-1])
			}
			ids = append(ids, n)
		}
	}
	agentDone := make(chan struct{})
	go func() { defer close(agentDone); readAgent(agent, func() bool { return false }) }()

	time.Sleep(2 * time.Second) // mid-load
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	agent.Close()
	<-agentDone
	time.Sleep(1500 * time.Millisecond) // the load goes on over A and B
	close(stop)
	wg.Wait()
	if len(ids) == 0 {
		t.Fatal("the agent stream on C received nothing before C was killed")
	}

	// The agent resumes on A after the last event it had from C, and reads up to the
	// end of the log: strictly increasing ids, each once.
	resumed, err := client.New(a.base, key).Events(ctx, strconv.FormatUint(ids[len(ids)-1], 10))
	if err != nil {
		t.Fatal(err)
	}
	_, marker, _ := a.call("POST", "/v1/publish", key, publishBody(-2))
	markerID := marker["pageId"].(string)
	for {
		ev, err := resumed.Next()
		if err != nil {
			t.Fatalf("resumed agent stream: %v", err)
		}
		n, _ := strconv.ParseUint(ev.ID, 10, 64)
		if n <= ids[len(ids)-1] {
			t.Fatalf("resumed agent stream: id %d after %d", n, ids[len(ids)-1])
		}
		ids = append(ids, n)
		if ev.PageID == markerID {
			break
		}
	}
	resumed.Close()

	// The viewer on B saw every event of the hot page written through A, in order,
	// once.
	seen, prev := 0, uint64(0)
	deadline := time.After(30 * time.Second)
	for seen < hotAppends {
		select {
		case ev, ok := <-viewer:
			if !ok {
				t.Fatalf("the viewer's stream ended after %d of %d appends", seen, hotAppends)
			}
			n, _ := strconv.ParseUint(ev[0], 10, 64)
			if n <= prev {
				t.Fatalf("viewer on B: id %d after %d", n, prev)
			}
			prev = n
			if ev[1] == "blocks.appended" {
				seen++
			}
		case <-deadline:
			t.Fatalf("viewer on B: %d of the %d appends acknowledged through A", seen, hotAppends)
		}
	}

	// Nothing acknowledged is lost: read every page through the survivors.
	acks.mu.Lock()
	defer acks.mu.Unlock()
	i := 0
	for id, decided := range acks.pages {
		p := []*proc{a, b}[i%2]
		i++
		st, page, err := p.call("GET", "/v1/pages/"+id, key, nil)
		if err != nil || st != 200 {
			t.Fatalf("acknowledged page %s: %d %v", id, st, err)
		}
		if n := len(page["blocks"].([]any)); n < 1+acks.appended[id] {
			t.Errorf("page %s: %d blocks, %d appends acknowledged", id, n, acks.appended[id])
		}
		if decided && page["status"] != "completed" {
			t.Errorf("page %s: approval acknowledged, status %v", id, page["status"])
		}
		if cid := acks.commented[id]; cid != "" {
			_, list, _ := p.call("GET", "/v1/pages/"+id+"/comments", key, nil)
			if !containsID(list["comments"], "id", cid) {
				t.Errorf("page %s: acknowledged comment %s is missing", id, cid)
			}
		}
	}
	t.Logf("acknowledged: %d pages, %d hot appends; agent events read: %d", len(acks.pages), hotAppends, len(ids))

	// Every acknowledged approval's callback arrives, whichever node held its lease
	// when C died, with the same bytes on every delivery.
	waitUntil(t, 90*time.Second, "every acknowledged approval's callback", func() bool {
		hk.mu.Lock()
		defer hk.mu.Unlock()
		got := map[string]bool{}
		for _, bodies := range hk.bodies {
			got[pageOf(bodies[0])] = true
		}
		for id, decided := range acks.pages {
			if decided && !got[id] {
				return false
			}
		}
		return true
	})
	hk.mu.Lock()
	for id, bodies := range hk.bodies {
		for _, b := range bodies[1:] {
			if b != bodies[0] {
				t.Errorf("delivery %s sent with different bytes:\n%s\n%s", id, bodies[0], b)
			}
		}
	}
	hk.mu.Unlock()

	// SIGSTOP: B freezes for 15 s while racers on A and B decide the same pages.
	// Every racer opens its own connection once B is stopped, so B reads each request
	// after it resumes. A node that is paused can lose answers (a request it had read
	// may time out inside it); what must hold is one decision per page, never two
	// 200s, and A answering only 200 or 409 throughout.
	var race []string
	for i := 0; i < 8; i++ {
		_, m, _ := a.call("POST", "/v1/publish", key, publishBody(-10-i))
		race = append(race, m["pageId"].(string))
		_, _, _ = b.call("GET", "/v1/pages/"+race[i], key, nil) // B holds it in memory
	}
	if err := b.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 10*time.Second, "B stopped", func() bool { return procState(b.cmd.Process.Pid) == "T" })
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	type outcome struct {
		page, status, node int
		body               map[string]any
	}
	results := make(chan outcome, len(race)*6)
	var racers sync.WaitGroup
	for p := range race {
		for r := 0; r < 6; r++ {
			racers.Add(1)
			go func(p, r int) {
				defer racers.Done()
				st, body, _ := []*proc{a, b}[r%2].callWith(fresh, "POST", "/v1/pages/"+race[p]+"/actions/"+[]string{"approve", "reject"}[r/2%2], key, nil)
				results <- outcome{p, st, r % 2, body}
			}(p, r)
		}
	}
	time.Sleep(15 * time.Second)
	if err := b.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	racers.Wait()
	close(results)
	wins, lost := make([]int, len(race)), 0
	for o := range results {
		switch {
		case o.status == 200:
			wins[o.page]++
		case o.status == 409:
		case o.node == 1 && o.status == 503:
			lost++ // timed out inside the paused node: unacknowledged
		default:
			t.Errorf("page %d: a racer on node %d got %d %v", o.page, o.node, o.status, o.body)
		}
	}
	for p, id := range race {
		_, page, _ := a.call("GET", "/v1/pages/"+id, key, nil)
		count := page["stats"].(map[string]any)["action_count"]
		if wins[p] > 1 || page["status"] != "completed" || count != float64(1) {
			t.Errorf("page %s: %d 200s, status %v, %v decisions recorded; want one decision", id, wins[p], page["status"], count)
		}
	}
	t.Logf("SIGSTOP race: %d answers lost inside the paused node", lost)

	// The hot tenant's chain, written from all three nodes, verifies on both.
	for _, p := range []*proc{a, b} {
		if _, v, _ := p.call("GET", "/v1/audit/verify", key, nil); v["status"] != "valid" {
			t.Errorf("%s: audit chain %v", p.base, v)
		}
	}
}

// procState is a process's state letter from /proc (T: stopped).
func procState(pid int) string {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(raw)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// TestANodeDyingBetweenCommitAndDoorbell: node A commits a block and dies before its
// NATS doorbell (the fault FOLIO_TEST_FAULT=die-before-doorbell kills it right
// there). The write is in the store, unacknowledged; the viewer on node B gets its
// event anyway, once, from the store, within the periodic check.
func TestANodeDyingBetweenCommitAndDoorbell(t *testing.T) {
	store, files := pgtest.URL(t), t.TempDir()
	natsA, natsB := ports.Free(t), ports.Free(t)
	common := []string{"--store", store, "--peer-check", "500ms", "--enforce-limits=false"}
	b := start(t, files, ports.Free(t), append(common, "--nats-listen", natsB, "--nats-routes", "nats://"+natsA)...)
	a := startEnv(t, []string{"FOLIO_TEST_FAULT=die-before-doorbell"}, files, ports.Free(t), append(common, "--nats-listen", natsA, "--nats-routes", "nats://"+natsB)...)
	for _, p := range []*proc{a, b} {
		waitUntil(t, 30*time.Second, p.base+" routed", func() bool { return nodetest.Metric(t, p.base, "folio_cluster_peers") == 1 })
	}
	_, reg, err := b.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "doomed"})
	if err != nil {
		t.Fatal(err)
	}
	key := reg["apiKey"].(string)
	_, pub, _ := b.call("POST", "/v1/publish", key, publishBody(1))
	id := pub["pageId"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	viewer := streamIDs(ctx, t, b.base, id, key)

	st, _, err := a.call("PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "last words"}}}})
	if err == nil {
		t.Fatalf("node A answered %d: the fault did not fire", st)
	}
	if err := a.cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("node A ended with %v, want killed", err)
	}
	got := 0
	// A bound against a hang, not a measure: a loaded CI machine (race detector,
	// browsers beside) can stall the nodes for seconds between two checks.
	deadline := time.After(30 * time.Second)
	for got == 0 {
		select {
		case ev := <-viewer:
			if ev[1] == "blocks.appended" {
				got++
			}
		case <-deadline:
			t.Fatal("the viewer on B never got the event A committed before dying")
		}
	}
	quiet := time.After(1500 * time.Millisecond) // three checks: the event must not come again
	for {
		select {
		case ev := <-viewer:
			if ev[1] == "blocks.appended" {
				t.Fatalf("the event came twice")
			}
		case <-quiet:
			_, page, _ := b.call("GET", "/v1/pages/"+id, key, nil)
			if n := len(page["blocks"].([]any)); n != 2 {
				t.Fatalf("the page through B has %d blocks, want 2 (the unacknowledged write is committed)", n)
			}
			return
		}
	}
}
