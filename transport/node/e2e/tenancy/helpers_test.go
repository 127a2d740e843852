package tenancy_test

import (
	"fmt"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// enforced turns on plans, rate limits and quotas (the binary's default).
func enforced(c *node.Config) { c.EnforceLimits = true }

// start is a node on a fresh directory driven by an adjustable clock.
func start(t *testing.T, at time.Time, opts ...nodetest.Option) (*nodetest.Env, *nodetest.Clock) {
	t.Helper()
	clk := nodetest.NewClock(at)
	return nodetest.Open(t, t.TempDir(), clk, opts...), clk
}

// list is GET /v1/inbox with a query: the entries and the total.
func list(t *testing.T, e *nodetest.Env, key, query string) ([]map[string]any, float64) {
	t.Helper()
	m := e.Must(200, "GET", "/v1/inbox"+query, key, nil)
	var out []map[string]any
	for _, it := range m["entries"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out, m["total"].(float64)
}

// pageIDs lists the pageId of each entry, in order.
func pageIDs(entries []map[string]any) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e["pageId"].(string))
	}
	return out
}

func same(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// entryOf finds the inbox entry id of a page (first listing it appears in).
func entryOf(t *testing.T, e *nodetest.Env, key, pageID string) string {
	t.Helper()
	for _, q := range []string{"?limit=200", "?status=archived&limit=200"} {
		entries, _ := list(t, e, key, q)
		for _, it := range entries {
			if it["pageId"] == pageID {
				return it["id"].(string)
			}
		}
	}
	t.Fatalf("page %s has no inbox entry", pageID)
	return ""
}

// farFuture is an expires_at that keeps a page active through a test's clock moves.
func farFuture(clk *nodetest.Clock) string {
	return clk.Now().Add(400 * 24 * time.Hour).UTC().Format(time.RFC3339)
}
