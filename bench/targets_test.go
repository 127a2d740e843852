package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingProxy is a base URL of its own in front of one server, recording every
// request it passes on as "METHOD path".
type countingProxy struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newCountingProxy(t *testing.T, server string) *countingProxy {
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.URL.Path)
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// take returns the requests recorded since the last take, and forgets them.
func (p *countingProxy) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.seen
	p.seen = nil
	return out
}

// count is how many of reqs match method and have a path with prefix and suffix.
func count(reqs []string, method, prefix, suffix string) int {
	n := 0
	for _, r := range reqs {
		m, path, _ := strings.Cut(r, " ")
		if m == method && strings.HasPrefix(path, prefix) && strings.HasSuffix(path, suffix) {
			n++
		}
	}
	return n
}

// actedPages is the ids of the pages reqs executed an action on.
func actedPages(reqs []string) map[string]bool {
	out := map[string]bool{}
	for _, r := range reqs {
		if rest, ok := strings.CutPrefix(r, "POST /v1/pages/"); ok {
			if id, _, ok := strings.Cut(rest, "/actions/"); ok {
				out[id] = true
			}
		}
	}
	return out
}

// twoTargets is a target of two base URLs, each a counting proxy in front of one
// local server, and a context that ends with the test (a minute at most).
func twoTargets(t *testing.T) (first, second *countingProxy, tg *Target, ctx context.Context) {
	srv, err := StartLocal()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	first, second = newCountingProxy(t, srv.URL), newCountingProxy(t, srv.URL)
	tg = Remote(first.URL, second.URL)
	t.Cleanup(tg.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return first, second, tg, ctx
}

// With several targets every scenario spreads its clients over them: two base URLs
// in front of one server both receive the measured load, the set-up goes through
// the first, and every scenario's checks still pass.
func TestTargetsSpreadTheLoadOverEveryNode(t *testing.T) {
	first, second, tg, ctx := twoTargets(t)
	const ops = 12
	for _, name := range []string{"publish", "act", "fanout"} {
		rep, err := Run(ctx, tg, []string{name}, Options{Concurrency: 4, Count: ops, Racers: 4, Subscribers: 6, Rate: 50})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := rep.Results[0]
		if !rep.Passed() || len(r.Errors) != 0 {
			t.Fatalf("%s: checks %+v, errors %v", name, r.Checks, r.Errors)
		}
		if want := []string{first.URL, second.URL}; !slices.Equal(rep.Targets, want) {
			t.Fatalf("%s: the report lists targets %v, want %v", name, rep.Targets, want)
		}
		var table strings.Builder
		rep.WriteTable(&table)
		if !strings.Contains(table.String(), "targets (2): "+first.URL+", "+second.URL) {
			t.Fatalf("%s: the table does not list the targets:\n%s", name, table.String())
		}
		a, b := first.take(), second.take()
		if ra, rb := count(a, "POST", "/v1/auth/agent/register", ""), count(b, "POST", "/v1/auth/agent/register", ""); ra != 1 || rb != 0 {
			t.Fatalf("%s: %d and %d registrations through the two nodes, want the one set-up registration through the first", name, ra, rb)
		}
		switch name {
		case "publish":
			if na, nb := count(a, "POST", "/v1/publish", ""), count(b, "POST", "/v1/publish", ""); na != ops/2 || nb != ops/2 {
				t.Fatalf("publish: %d and %d publishes through the two nodes, want %d each", na, nb, ops/2)
			}
		case "act":
			// The racers of every page met on both nodes.
			pa, pb := actedPages(a), actedPages(b)
			if len(pa) != ops || len(pb) != ops {
				t.Fatalf("act: actions on %d pages through the first node and %d through the second, want all %d on both", len(pa), len(pb), ops)
			}
			if n := count(b, "POST", "/v1/publish", ""); n != 0 {
				t.Fatalf("act: %d of the pages to act on published through the second node, want all through the first", n)
			}
		case "fanout":
			if va, vb := count(a, "GET", "/v1/pages/", "/events"), count(b, "GET", "/v1/pages/", "/events"); va != 3 || vb != 3 {
				t.Fatalf("fanout: %d and %d viewers on the two nodes, want 3 each", va, vb)
			}
			if ca, cb := count(a, "POST", "/v1/pages/", "/comments"), count(b, "POST", "/v1/pages/", "/comments"); ca != ops || cb != 0 {
				t.Fatalf("fanout: %d and %d comments through the two nodes, want all %d through the first", ca, cb, ops)
			}
		}
	}
}

// With Affinity, act sends every racer of a page to one node, as the documented
// balancer does: no page is acted on through both nodes, each node gets half of
// the pages, and the one-winner check still passes.
func TestActWithAffinityKeepsAPageOnOneNode(t *testing.T) {
	first, second, tg, ctx := twoTargets(t)
	const pages = 12
	rep, err := Run(ctx, tg, []string{"act"}, Options{Concurrency: 4, Count: pages, Racers: 4, Affinity: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; !rep.Passed() || len(r.Errors) != 0 {
		t.Fatalf("checks %+v, errors %v", r.Checks, r.Errors)
	}
	pa, pb := actedPages(first.take()), actedPages(second.take())
	if len(pa) != pages/2 || len(pb) != pages/2 {
		t.Fatalf("actions on %d pages through the first node and %d through the second, want %d each", len(pa), len(pb), pages/2)
	}
	for id := range pa {
		if pb[id] {
			t.Fatalf("page %s was acted on through both nodes: its racers should all go to one", id)
		}
	}
}
