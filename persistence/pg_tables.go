package persistence

import (
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// The hot records' own tables on PostgreSQL (issue 36). A routed bucket lives in a
// table of its own, key bytea PRIMARY KEY, value bytea NOT NULL, instead of as rows
// of kv; every other bucket stays in kv. value keeps the exact bytes the domain
// wrote, because the domain depends on them: an audit record holds the very bytes
// its hash covers (VerifyAudit recomputes it), and a stored page or delivery is
// read back and compared as written. What an operator queries with SQL is a view
// per table (<name>_view) that decodes value when read, so no write pays for it;
// a binary record's table (an audit link, a chain head, an agent event) keeps
// beside value a few columns decoded here, in Go, when the row is written, for
// the views to select and index on. Folio never reads them: value alone is the
// record.
//
// Invariant: values(key, value) is a pure function of the row, computed at every
// write and by the migration from kv (pg_migrate.go), so the columns always say
// what value says.
type pgTable struct {
	bucket string // the bucket routed here
	name   string // the table
	// columns are the table's columns after key and value, written from values
	// (in the order of extra); "" for none.
	columns string
	extra   []string                      // the columns written from values
	values  func(key, value []byte) []any // their values for one row
	// view is the select list of the operator's view <name>_view over the table,
	// beside key (and, for a JSON record, doc: the record as jsonb, NULL when
	// PostgreSQL's jsonb refuses it); "" for none. A view costs nothing on a write.
	view string
}

// pgTables routes buckets to their tables. Adding a table is a new migration
// (pg_migrate.go): migration 2 created these.
var pgTables = []pgTable{
	{bucket: "pages", name: "pages", view: `doc->>'tenant_id' AS tenant_id, doc->>'status' AS status,
		doc->>'page_type' AS page_type, doc->>'title' AS title, (doc->>'version')::int AS version,
		doc->>'decision' AS decision, folio_ts(doc->>'created_at') AS created_at,
		folio_ts(doc->>'updated_at') AS updated_at, folio_ts(doc->>'expires_at') AS expires_at`},
	{bucket: "page_revs", name: "page_revs", extra: []string{"revision"}, values: u64Value,
		columns: `revision bigint`},
	{bucket: auditBucket, name: "audit", extra: []string{"chain", "seq", "hash"}, values: auditColumns,
		columns: `chain text, seq bigint, hash text`, view: `chain, seq, hash, folio_audit_entry(value) AS entry`},
	{bucket: headBucket, name: "audit_heads", extra: []string{"chain", "seq", "hash"}, values: headColumns,
		columns: `chain text, seq bigint, hash text`},
	{bucket: "agent_events", name: "agent_events", extra: []string{"tenant_id", "seq", "at", "page_id", "event_id", "type", "payload_at"},
		values: agentEventColumns, columns: `tenant_id text, seq bigint, at timestamptz, page_id text, event_id text, type text, payload_at int`,
		view: `tenant_id, seq, at, page_id, event_id, type, folio_json(substring(value from payload_at + 1)) AS payload`},
	{bucket: "deliveries", name: "deliveries", view: `doc->>'tenant_id' AS tenant_id, doc->>'page_id' AS page_id,
		doc->>'event' AS event, doc->>'channel' AS channel, doc->>'target' AS target, doc->>'status' AS status,
		(doc->>'attempt_count')::int AS attempt_count, folio_ts(doc->>'next_attempt_at') AS next_attempt_at,
		folio_ts(doc->>'created_at') AS created_at`},
	{bucket: "delivery_due", name: "delivery_due", extra: []string{"due", "delivery_id"}, values: dueColumns,
		columns: `due timestamptz, delivery_id text`},
	{bucket: "sessions", name: "sessions", view: `doc->>'user_id' AS user_id, doc->>'email' AS email,
		folio_ts(doc->>'created_at') AS created_at, folio_ts(doc->>'expires_at') AS expires_at`},
	{bucket: "keys", name: "api_keys", view: `doc->>'tenant_id' AS tenant_id, doc->>'name' AS name, doc->>'prefix' AS prefix,
		(doc->>'test')::boolean AS test, folio_ts(doc->>'created_at') AS created_at`},
}

// pgSQL is one bucket's statements. A routed bucket's name its table and take the
// key as $1; kv's name the bucket as $1 and the key as $2 (args puts them first).
type pgSQL struct {
	table                    *pgTable // nil: kv
	get, getLock             string
	insert, upsert, del      string
	scanFrom, scanFromTo     string // ascending
	scanFromDesc, scanToDesc string // descending
}

// args are a statement's leading arguments: the bucket (kv only) and the key.
func (s *pgSQL) args(bucket string, key []byte, rest ...any) []any {
	if s.table == nil {
		return append([]any{bucket, key}, rest...)
	}
	return append([]any{key}, rest...)
}

// row are an insert's arguments after the key: the value, and a routed table's
// extra columns.
func (s *pgSQL) row(key, value []byte) []any {
	if s.table == nil || s.table.values == nil {
		return []any{value}
	}
	return append([]any{value}, s.table.values(key, value)...)
}

var (
	kvSQL = buildSQL(nil)
	// pgRouted are the routed buckets' statements, by bucket.
	pgRouted = func() map[string]*pgSQL {
		m := map[string]*pgSQL{}
		for i := range pgTables {
			m[pgTables[i].bucket] = buildSQL(&pgTables[i])
		}
		return m
	}()
)

func buildSQL(t *pgTable) *pgSQL {
	name, where, n := "kv", "bucket = $1 AND ", 2 // n: the key's parameter
	cols, conflict := "bucket, key, value", "bucket, key"
	set := "value = excluded.value"
	if t != nil {
		name, where, n = t.name, "", 1
		cols, conflict = "key, value", "key"
		for _, c := range t.extra {
			cols += ", " + c
			set += ", " + c + " = excluded." + c
		}
	}
	ncols := strings.Count(cols, ",") + 1
	ph := make([]string, ncols)
	for i := range ph {
		ph[i] = fmt.Sprintf("$%d", i+1)
	}
	insert := "INSERT INTO " + name + " (" + cols + ") VALUES (" + strings.Join(ph, ", ") + ")"
	k := fmt.Sprintf("$%d", n)
	lim, hi := fmt.Sprintf("$%d", n+1), fmt.Sprintf("$%d", n+2) // scans: key >= from, LIMIT, key < to
	sel := "SELECT key, value FROM " + name + " WHERE " + where + "key >= " + k
	return &pgSQL{
		table:        t,
		get:          "SELECT value FROM " + name + " WHERE " + where + "key = " + k,
		getLock:      "SELECT value FROM " + name + " WHERE " + where + "key = " + k + " FOR UPDATE",
		insert:       insert,
		upsert:       insert + " ON CONFLICT (" + conflict + ") DO UPDATE SET " + set,
		del:          "DELETE FROM " + name + " WHERE " + where + "key = " + k,
		scanFrom:     sel + " ORDER BY key LIMIT " + lim,
		scanFromTo:   sel + " AND key < " + hi + " ORDER BY key LIMIT " + lim,
		scanFromDesc: sel + " ORDER BY key DESC LIMIT " + lim,
		scanToDesc:   sel + " AND key < " + hi + " ORDER BY key DESC LIMIT " + lim,
	}
}

// createTable is the DDL of t.
func (t *pgTable) createTable() string {
	cols := "key bytea PRIMARY KEY, value bytea NOT NULL"
	if t.columns != "" {
		cols += ", " + t.columns
	}
	return "CREATE TABLE " + t.name + " (" + cols + ")"
}

// createView is the DDL of t's operator view, or "". A table without columns of
// its own holds JSON records: its view reads them as doc.
func (t *pgTable) createView() string {
	switch {
	case t.view == "":
		return ""
	case t.values == nil:
		return "CREATE VIEW " + t.name + "_view AS SELECT key, doc, " + t.view +
			" FROM (SELECT key, folio_json(value) AS doc FROM " + t.name + ") r"
	}
	return "CREATE VIEW " + t.name + "_view AS SELECT key, " + t.view + " FROM " + t.name
}

// u64Value is a U64 value as a number (page_revs: the page's revision).
func u64Value(_, value []byte) []any {
	if len(value) != 8 {
		return []any{nil}
	}
	return []any{int64(ReadU64(value))}
}

// keyTail splits a key chain 0x00 seq(8) (audit, agent_events) into its parts.
func keyTail(key []byte) (string, any) {
	if len(key) < 10 || key[len(key)-9] != 0 {
		return "", nil
	}
	return string(key[:len(key)-9]), int64(ReadU64(key[len(key)-8:]))
}

// auditColumns: the link's chain, sequence and hash (its view reads the hashed
// entry out of value: folio_audit_entry).
func auditColumns(key, value []byte) []any {
	chain, _ := keyTail(key)
	r, err := decodeRecord(value)
	if err != nil {
		return []any{nilIfEmpty(chain), nil, nil}
	}
	return []any{nilIfEmpty(chain), int64(r.Seq), r.Hash}
}

// headColumns: a chain head's chain (the key), sequence and hash (the value:
// seq(8) hash).
func headColumns(key, value []byte) []any {
	if len(value) < 8 {
		return []any{string(key), nil, nil}
	}
	return []any{string(key), int64(ReadU64(value)), string(value[8:])}
}

// agentEventColumns decodes the mailbox's stored record (actors/mailbox/log.go,
// recordV2: version 2, At unix nanos (8), then PageID, EventID and Type each as
// uvarint length + bytes, then the JSON payload): the columns and the payload's
// offset in value (its view reads the payload from there); a record of another
// shape leaves them NULL.
func agentEventColumns(key, value []byte) []any {
	tenant, seq := keyTail(key)
	out := []any{nilIfEmpty(tenant), seq, nil, nil, nil, nil, nil}
	if len(value) < 9 || value[0] != 2 {
		return out
	}
	out[2] = time.Unix(0, int64(binary.BigEndian.Uint64(value[1:9]))).UTC()
	rest := value[9:]
	for i := 3; i <= 5; i++ {
		n, k := binary.Uvarint(rest)
		if k <= 0 || uint64(len(rest)-k) < n {
			out[2] = nil
			return out
		}
		out[i] = string(rest[k : k+int(n)])
		rest = rest[k+int(n):]
	}
	out[6] = len(value) - len(rest)
	return out
}

// dueColumns: a due index row's time and delivery (key: Ordered, nanos(8) 0x00 id).
func dueColumns(key, _ []byte) []any {
	if len(key) < 10 || key[8] != 0 {
		return []any{nil, nil}
	}
	return []any{time.Unix(0, int64(ReadU64(key[:8]))).UTC(), string(key[9:])}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
