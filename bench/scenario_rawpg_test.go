//go:build linux

package bench

import (
	"context"
	"testing"

	"folio/persistence/pgtest"
)

// TestRawPGCommitsWholeChains: raw-pg commits every acknowledged publish with its
// audit row chained to its tenant's head, no gap, over two tenants and the three
// loops, and its check says so.
func TestRawPGCommitsWholeChains(t *testing.T) {
	o := Options{Count: 300, Concurrency: 16, Tenants: 2, PostgresURL: pgtest.URL(t)}
	o.defaults()
	res, err := rawPGScenario(context.Background(), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Operations != 300 || len(res.Errors) != 0 || !res.Passed() {
		t.Fatalf("raw-pg: %d operations, errors %v, checks %+v", res.Operations, res.Errors, res.Checks)
	}
}
