package main

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node/nodetest/ports"
)

// TestReferenceLinksCannotAmplifyTheReviewPage: the 66 KB page (one
// Markdown reference definition with a 50,000-character address, used 4,000 times)
// drew 200 MB for one anonymous GET /p/:id and took the server to 2 GiB. Now the
// page, its blocks part and the block's own route each answer well under 1 MB, and
// four anonymous clients loading all three in a loop keep the server's RSS under
// twice its idle RSS.
func TestReferenceLinksCannotAmplifyTheReviewPage(t *testing.T) {
	dir, addr := t.TempDir(), ports.Free(t)
	p := start(t, dir, addr, "--anon-rpm", "100000") // the rate limit is not what is tested
	_, reg, _ := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "amplifier"})
	key := reg["apiKey"].(string)
	md := "[r]: https://x.example/" + strings.Repeat("a", 50_000) + "\n\n" + strings.Repeat("[r] ", 4000)
	status, pub, err := p.call("POST", "/v1/publish", key, map[string]any{"title": "refs", "blocks": []any{
		map[string]any{"id": "r", "type": "rich_text", "data": map[string]any{"content": md}}}})
	if err != nil || status != 201 {
		t.Fatalf("publish: %d %v %v", status, pub, err)
	}
	id := pub["pageId"].(string)
	const bound = 1 << 20
	// get reads at most 64 MB of an answer (the unbounded page drew 200 MB).
	get := func(path string) int {
		res, err := http.Get(p.base + path)
		if err != nil {
			t.Error(err)
			return 0
		}
		defer res.Body.Close()
		n, _ := io.Copy(io.Discard, io.LimitReader(res.Body, 64<<20))
		if res.StatusCode != 200 {
			t.Errorf("%s: %d", path, res.StatusCode)
		}
		return int(n)
	}
	paths := []string{"/p/" + id, "/p/" + id + "/parts/blocks", "/p/" + id + "/blocks/r"}
	for _, path := range paths {
		if n := get(path); n > bound {
			t.Fatalf("%s: %d bytes for a 66 KB page", path, n)
		} else {
			t.Logf("%s: %d bytes", path, n)
		}
	}
	time.Sleep(500 * time.Millisecond) // let the first views' garbage go, as the deep-data test does
	idle := rssKiB(t, p.cmd.Process.Pid)
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
	var wg sync.WaitGroup
	var mu sync.Mutex
	largest := 0
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				for _, path := range paths {
					n := get(path)
					mu.Lock()
					largest = max(largest, n)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	t.Logf("RSS idle %d KiB, peak under 4 clients × 10 × 3 views %d KiB; largest answer %d bytes", idle, peak, largest)
	if largest > bound {
		t.Errorf("an answer of %d bytes", largest)
	}
	if peak > 2*idle {
		t.Errorf("RSS rose from %d KiB to %d KiB (more than twice)", idle, peak)
	}
}
