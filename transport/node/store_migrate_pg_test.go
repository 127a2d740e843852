package node_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"folio/persistence/pgtest"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// The buckets schema version 2 moved out of kv into tables of their own, and
// those tables: the layout of the release before it is every bucket in
// kv(bucket, key, value), the bytes the domain wrote.
var routedV2 = map[string]string{
	"pages": "pages", "page_revs": "page_revs", "audit": "audit", "audit_head": "audit_heads",
	"agent_events": "agent_events", "deliveries": "deliveries", "delivery_due": "delivery_due",
	"sessions": "sessions", "keys": "api_keys",
}

// toKVLayout turns a database into schema version 1 as that release wrote it:
// every routed table's rows back in kv under their bucket, the tables gone.
func toKVLayout(t *testing.T, ctx context.Context, db *pgx.Conn) {
	t.Helper()
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		for bucket, table := range routedV2 {
			if _, err := tx.Exec(ctx, `INSERT INTO kv (bucket, key, value) SELECT $1, key, value FROM `+table, bucket); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DROP TABLE `+table+` CASCADE`); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `DROP FUNCTION folio_ts(text); DROP FUNCTION folio_audit_entry(bytea); DROP FUNCTION folio_json(bytea); DELETE FROM folio_schema WHERE version > 1`)
		return err
	})
	if err != nil {
		t.Fatalf("writing the kv layout: %v", err)
	}
}

func count(t *testing.T, ctx context.Context, db *pgx.Conn, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// A database in the kv layout of the release before (schema version 1) is
// migrated when a node of this release opens it, and everything in it reads back
// through the service: the page, its audit chain (verifying), the agent's events,
// a person's session and the API key.
func TestPostgresMigratesADatabaseInTheKVLayout(t *testing.T) {
	url := pgtest.URL(t)
	e := nodetest.New(t, func(c *node.Config) { c.Store = url })
	key, _ := e.Register("migrating")
	id := e.Publish(key, nil)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "p@example.com"}})
	session, u := e.SignIn("reviewer@example.com")
	before := map[string]string{}
	for _, path := range []string{"/v1/pages/" + id, "/v1/pages/" + id + "/agent-events", "/v1/tenant"} {
		before[path] = string(e.Do("GET", path, key, nil).Body)
	}
	chain := e.Must(200, "GET", "/v1/audit/verify", key, nil)
	oldURL := e.Srv.URL // the reopened node answers on another port
	e.Close()

	db, ctx := pgtest.Connect(t, url, time.Minute)
	toKVLayout(t, ctx, db)
	for _, bucket := range []string{"pages", "audit", "agent_events", "sessions", "keys"} {
		if count(t, ctx, db, `SELECT count(*) FROM kv WHERE bucket = $1`, bucket) == 0 {
			t.Fatalf("the kv layout has no %s rows", bucket)
		}
	}

	e = nodetest.Open(t, e.Dir, nil, func(c *node.Config) { c.Store = url })
	if v := count(t, ctx, db, `SELECT max(version) FROM folio_schema`); v != 2 {
		t.Fatalf("schema version %d after opening, want 2", v)
	}
	for bucket := range routedV2 {
		if n := count(t, ctx, db, `SELECT count(*) FROM kv WHERE bucket = $1`, bucket); n != 0 {
			t.Errorf("%d rows of %s left in kv", n, bucket)
		}
	}
	if n := count(t, ctx, db, `SELECT count(*) FROM pages_view WHERE key = $1 AND status = 'completed' AND decision = 'approved'`, []byte(id)); n != 1 {
		t.Errorf("the pages table has %d completed, approved rows for %s, want 1", n, id)
	}
	for path, want := range before {
		want = strings.ReplaceAll(want, oldURL, e.Srv.URL)
		if r := e.Do("GET", path, key, nil); r.Status != 200 || string(r.Body) != want {
			t.Errorf("GET %s after the migration: %d\n%s\nwant\n%s", path, r.Status, r.Body, want)
		}
	}
	after := e.Must(200, "GET", "/v1/audit/verify", key, nil)
	if after["status"] != "valid" || after["chain_length"] != chain["chain_length"] || after["last_hash"] != chain["last_hash"] {
		t.Fatalf("audit after the migration %v, before %v", after, chain)
	}
	if s, _, ok, err := e.Node.People.Session(session); err != nil || !ok || s.UserID != u.ID {
		t.Fatalf("the session after the migration: %v %v %v", s, ok, err)
	}
	// The migrated rows take writes as before: another decision's page, its audit.
	id2 := e.Publish(key, nil)
	e.Must(200, "POST", "/v1/pages/"+id2+"/actions/reject", key, map[string]any{"actor": map[string]any{"identity": "p@example.com"}})
	if v := e.Must(200, "GET", "/v1/audit/verify", key, nil); v["status"] != "valid" {
		t.Fatalf("audit after writing on the migrated chain: %v", v)
	}
	var raw json.RawMessage
	if err := db.QueryRow(ctx, `SELECT doc FROM pages_view WHERE key = $1`, []byte(id2)).Scan(&raw); err != nil || len(raw) == 0 {
		t.Fatalf("the new page's doc: %s %v", raw, err)
	}
}
