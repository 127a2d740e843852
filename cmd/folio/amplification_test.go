package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"folio/persistence"
	"folio/transport/node/nodetest/ports"
)

// rssKiB reads a process's resident set size.
func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestDeepBlockDataCannotBlowUpAView: block data nested 10,000 levels deep is
// refused at publish (400); and a page that holds such data anyway (stored before
// the limit existed: written into the store directly here) costs a bounded view:
// eight anonymous clients loading it in a loop keep the server's RSS under twice
// its idle RSS.
func TestDeepBlockDataCannotBlowUpAView(t *testing.T) {
	dir, addr := t.TempDir(), ports.Free(t)
	flags := []string{"--anon-rpm", "100000"} // the rate limit is not what is tested
	p := start(t, dir, addr, flags...)
	_, reg, _ := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "deep"})
	key := reg["apiKey"].(string)
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	req, _ := http.NewRequest("POST", p.base+"/v1/publish", strings.NewReader(`{"title":"deep","blocks":[{"type":"future","data":{"x":`+deep+`}}]}`))
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	refusal, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 400 || !strings.Contains(string(refusal), "max_depth") {
		t.Fatalf("publishing 10,000 levels: %d %s", res.StatusCode, refusal)
	}
	_, pub, _ := p.call("POST", "/v1/publish", key, map[string]any{"title": "deep", "blocks": []any{
		map[string]any{"id": "d", "type": "future", "data": map[string]any{"x": 1}}}})
	id := pub["pageId"].(string)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()

	// Put the deep data into the stored page, as if it had been accepted once.
	var store *persistence.Store
	store, err = persistence.Open(dir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = store.Update(func(tx *persistence.Tx) error {
		var pg map[string]any
		if err := json.Unmarshal(tx.Get("pages", []byte(id)), &pg); err != nil {
			return err
		}
		raw, _ := json.Marshal(pg)
		// 9,000 levels: the page record itself must stay under encoding/json's own
		// nesting limit (10,000) to load at all.
		stored := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
		raw = []byte(strings.Replace(string(raw), `"data":{"x":1}`, `"data":{"x":`+stored+`}`, 1))
		return tx.Put("pages", []byte(id), raw)
	})
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	p = start(t, dir, addr, flags...)
	get := func() int {
		res, err := http.Get(p.base + "/p/" + id)
		if err != nil {
			t.Error(err)
			return 0
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("view: %d", res.StatusCode)
		}
		return int(n)
	}
	size := get()
	time.Sleep(500 * time.Millisecond) // let the first view's garbage go
	idle := rssKiB(t, p.cmd.Process.Pid)
	var wg sync.WaitGroup
	peak := idle
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				peak = max(peak, rssKiB(t, p.cmd.Process.Pid))
			}
		}
	}()
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				get()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	t.Logf("view of the deep page: %d bytes; RSS idle %d KiB, peak under 8 clients × 25 views %d KiB", size, idle, peak)
	if size > 200_000 {
		t.Errorf("the view is %d bytes for 60 KB of stored data", size)
	}
	if peak > 2*idle {
		t.Errorf("RSS rose from %d KiB to %d KiB (more than twice)", idle, peak)
	}
}
