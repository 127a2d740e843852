package node_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/persistence/pgtest"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// docQueries are the SQL blocks of docs/cluster.md's "Reading the data with SQL".
func docQueries(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/cluster.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i := strings.Index(s, "\n## Reading the data with SQL\n")
	if i < 0 {
		t.Fatal(`docs/cluster.md has no section "Reading the data with SQL"`)
	}
	s = s[i+1:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// The queries docs/cluster.md shows an operator run as written on the tables a
// node writes, and find what they promise: the page waiting for a decision, the
// tenant's audit entries newest first, the delivery failing now.
func TestClusterDocQueriesRunOnTheTables(t *testing.T) {
	queries := docQueries(t)
	if len(queries) != 3 {
		t.Fatalf("docs/cluster.md shows %d SQL queries, want 3", len(queries))
	}
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	url := pgtest.URL(t)
	e := nodetest.New(t, func(c *node.Config) { c.Store = url; c.AllowPrivateCallbacks = true })
	key, tenant := e.Register("operator")
	e.Publish(key, nil) // waits for a decision
	hooked := e.Publish(key, map[string]any{"on_action": map[string]any{"default_url": failing.URL + "/hook",
		"retry": map[string]any{"max_attempts": 5, "initial_delay_seconds": 3600}}})
	e.Must(200, "POST", "/v1/pages/"+hooked+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "p@example.com"}})

	db, ctx := pgtest.Connect(t, url, time.Minute)
	for { // the first attempt fails, then the delivery waits an hour for its next
		var n int
		if err := db.QueryRow(ctx, `SELECT count(*) FROM deliveries_view WHERE attempt_count > 0`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("no delivery attempted within a minute")
		case <-time.After(20 * time.Millisecond):
		}
	}

	run := func(q string) [][]any {
		t.Helper()
		var args []any
		if strings.Contains(q, ":'tenant'") { // psql's variable, as the doc sets it
			q, args = strings.ReplaceAll(q, ":'tenant'", "$1"), []any{tenant}
		}
		rows, err := db.Query(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out [][]any
		for rows.Next() {
			v, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return out
	}
	if rows := run(queries[0]); len(rows) != 1 || rows[0][0] != tenant || fmt.Sprint(rows[0][1]) != "1" {
		t.Errorf("pages waiting per tenant: %v, want %s with 1", rows, tenant)
	}
	// Two pages created and published, one decided and so completed: six entries.
	rows := run(queries[1])
	if len(rows) != 6 || rows[0][2] != "page.completed" || rows[0][4] != hooked || rows[5][2] != "page.created" {
		t.Errorf("the tenant's last audit entries: %v, want six, the completion of %s first", rows, hooked)
	}
	for i, r := range rows {
		if r[0] != int64(len(rows)-i) {
			t.Errorf("audit entry %d is seq %v: want newest first", i, r[0])
		}
	}
	if rows := run(queries[2]); len(rows) != 1 || rows[0][1] != hooked || fmt.Sprint(rows[0][7]) != "503" {
		t.Errorf("deliveries failing now: %v, want %s's, last answered 503", rows, hooked)
	}
}
