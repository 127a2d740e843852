//go:build linux

package persistence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"folio/persistence/pgtest"
)

// The hot records' tables and the migration to them (issue 36): a database the
// release before wrote (every bucket in kv) is migrated once, by one node of
// several starting together, and reads back byte for byte.

// openAt opens a store on url migrated up to version (1: as the release before).
func openAt(t *testing.T, url string, version int) *Store {
	t.Helper()
	e, err := openPostgres(url, version, DefaultPGLaterWait)
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(e, Options{})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func queryInt(t *testing.T, ctx context.Context, db *pgx.Conn, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// writeV1 writes, through a store at schema version 1, an audit chain of n
// entries, pages, deliveries and due rows, and a bucket that stays in kv.
func writeV1(t *testing.T, s *Store, n int) {
	t.Helper()
	for i := range n {
		if err := s.Update(func(tx *Tx) error {
			if _, _, err := tx.AppendAudit("ten_a", []byte(fmt.Sprintf(`{"event":"page.created","page":"p%03d"}`, i))); err != nil {
				return err
			}
			page := fmt.Sprintf(`{"id":"p%03d","tenant_id":"ten_a","status":"active","created_at":"2026-11-28T04:00:%02dZ","version":1}`, i, i%60)
			if err := tx.Put("pages", []byte(fmt.Sprintf("p%03d", i)), []byte(page)); err != nil {
				return err
			}
			return tx.Put("stays_in_kv", []byte(fmt.Sprintf("k%03d", i)), U64(uint64(i)))
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAKVLayoutDatabaseIsMigratedToTheTablesAndReadsBack(t *testing.T) {
	url := pgtest.URL(t)
	const n = 40 // more than a scan's first page
	old := openAt(t, url, 1)
	writeV1(t, old, n)
	var pagesBefore [][]byte
	_ = old.View(func(tx *Tx) error {
		tx.Scan("pages", nil, false, func(_, v []byte) bool { pagesBefore = append(pagesBefore, append([]byte(nil), v...)); return true })
		return nil
	})
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	db, ctx := pgtest.Connect(t, url, time.Minute)
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM kv WHERE bucket IN ('pages', 'audit', 'audit_head')`); got != 2*n+1 {
		t.Fatalf("version 1 wrote %d rows of pages and audit into kv, want %d", got, 2*n+1)
	}

	s, err := OpenURL(url, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if v := queryInt(t, ctx, db, `SELECT max(version) FROM folio_schema`); v != len(migrations) {
		t.Fatalf("schema version %d, want %d", v, len(migrations))
	}
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM kv WHERE bucket IN ('pages', 'audit', 'audit_head')`); got != 0 {
		t.Fatalf("%d rows of routed buckets left in kv", got)
	}
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM kv WHERE bucket = 'stays_in_kv'`); got != n {
		t.Fatalf("%d rows of a bucket not routed in kv, want %d", got, n)
	}
	v, err := s.VerifyAudit("ten_a")
	if err != nil || !v.Valid || v.Length != uint64(n) {
		t.Fatalf("the migrated chain: %+v %v", v, err)
	}
	var pagesAfter [][]byte
	_ = s.View(func(tx *Tx) error {
		tx.Scan("pages", nil, false, func(_, v []byte) bool { pagesAfter = append(pagesAfter, append([]byte(nil), v...)); return true })
		return nil
	})
	if len(pagesAfter) != n || !bytes.Equal(bytes.Join(pagesAfter, nil), bytes.Join(pagesBefore, nil)) {
		t.Fatalf("pages after the migration differ from before (%d, %d rows)", len(pagesAfter), len(pagesBefore))
	}
	// The columns an operator reads: decoded from the page's JSON, decoded from
	// the audit record, the same for migrated rows as for rows written since.
	if err := s.Update(func(tx *Tx) error {
		_, _, err := tx.AppendAudit("ten_a", []byte(`{"event":"page.created","page":"new"}`))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM pages_view WHERE tenant_id = 'ten_a' AND status = 'active' AND version = 1 AND created_at >= '2026-11-28T04:00:00Z'`); got != n {
		t.Fatalf("%d pages found by their columns, want %d", got, n)
	}
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM audit_view WHERE chain = 'ten_a' AND seq BETWEEN 1 AND $1 AND entry->>'event' = 'page.created' AND hash LIKE 'sha256:%'`, n+1); got != n+1 {
		t.Fatalf("%d audit rows found by their columns, want %d", got, n+1)
	}
	if got := queryInt(t, ctx, db, `SELECT seq FROM audit_heads WHERE chain = 'ten_a'`); got != n+1 {
		t.Fatalf("the chain head's seq column is %d, want %d", got, n+1)
	}
	// A record the views cannot read (jsonb refuses \u0000; a time that is no
	// time) reads as NULL there: the whole query still answers.
	if err := s.Update(func(tx *Tx) error {
		if err := tx.Put("pages", []byte("odd1"), []byte(`{"tenant_id":"ten_odd","title":"a\u0000b"}`)); err != nil {
			return err
		}
		return tx.Put("pages", []byte("odd2"), []byte(`{"tenant_id":"ten_odd","created_at":"not a time"}`))
	}); err != nil {
		t.Fatal(err)
	}
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM pages_view WHERE doc IS NULL OR created_at IS NULL`); got < 2 {
		t.Fatalf("%d odd pages read as NULL, want both", got)
	}
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM pages_view WHERE tenant_id = 'ten_odd'`); got != 1 {
		t.Fatalf("%d readable odd pages found by tenant, want 1", got)
	}
}

// Scans over a routed bucket follow its table's primary key, both ways, across
// pages of rows and within a range, as over kv.
func TestScansOverATableAreOrderedByKey(t *testing.T) {
	s, err := OpenURL(pgtest.URL(t), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	const n = 300
	if err := s.Update(func(tx *Tx) error {
		for i := n - 1; i >= 0; i-- {
			k := Key([]byte("ten"), U64(uint64(i)))
			if err := tx.Put("agent_events", k, []byte{2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}); err != nil {
				return err
			}
		}
		return tx.Put("agent_events", []byte("tem"), []byte{1}) // sorts before the prefix
	}); err != nil {
		t.Fatal(err)
	}
	for _, reverse := range []bool{false, true} {
		var seqs []uint64
		_ = s.View(func(tx *Tx) error {
			tx.Scan("agent_events", []byte("ten\x00"), reverse, func(k, _ []byte) bool { seqs = append(seqs, ReadU64(k[4:])); return true })
			return nil
		})
		if len(seqs) != n {
			t.Fatalf("reverse %v: %d keys, want %d", reverse, len(seqs), n)
		}
		for i, seq := range seqs {
			want := uint64(i)
			if reverse {
				want = uint64(n - 1 - i)
			}
			if seq != want {
				t.Fatalf("reverse %v: key %d is seq %d, want %d", reverse, i, seq, want)
			}
		}
	}
}

// A database at a schema version newer than the binary's is refused, unchanged,
// with a message that says what to do.
func TestADatabaseNewerThanTheBinaryIsRefused(t *testing.T) {
	url := pgtest.URL(t)
	s, err := OpenURL(url, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	db, ctx := pgtest.Connect(t, url, time.Minute)
	if _, err := db.Exec(ctx, `INSERT INTO folio_schema (version) VALUES ($1)`, len(migrations)+1); err != nil {
		t.Fatal(err)
	}
	_, err = OpenURL(url, "", Options{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("schema version %d, newer than this binary's %d: run a newer Folio", len(migrations)+1, len(migrations))) {
		t.Fatalf("opening a newer database: %v", err)
	}
}

// Nodes opening a version 1 database at once migrate it once: one node moves the
// rows, the others find the new version and every row in its table.
func TestNodesOpeningTogetherMigrateOnce(t *testing.T) {
	url := pgtest.URL(t)
	old := openAt(t, url, 1)
	writeV1(t, old, 10)
	_ = old.Close()
	const nodes = 4
	var wg sync.WaitGroup
	errs := make(chan error, nodes)
	start := make(chan struct{})
	for range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			s, err := OpenURL(url, "", Options{})
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	db, ctx := pgtest.Connect(t, url, time.Minute)
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM folio_schema WHERE version = 2`); got != 1 {
		t.Fatalf("migration 2 recorded %d times, want once", got)
	}
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM pages`); got != 10 {
		t.Fatalf("%d pages in their table, want 10", got)
	}
	if got := queryInt(t, ctx, db, `SELECT count(*) FROM audit`); got != 10 {
		t.Fatalf("%d audit rows in their table, want 10", got)
	}
}

// A group whose later function waits for a row lock commits in two PostgreSQL
// transactions, and says so: folio_store_commits_total counts each (issue 36).
func TestASplitGroupCountsEachTransaction(t *testing.T) {
	url := pgtest.URL(t)
	e, err := openPostgres(url, len(migrations), DefaultPGLaterWait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.close() })
	db, ctx := pgtest.Connect(t, url, time.Minute)
	if _, err := e.commit([]func(*Tx) error{func(tx *Tx) error { return tx.Put("audit_head", []byte("hot"), U64(0)) }}, make([]error, 1)); err != nil {
		t.Fatal(err)
	}
	holder, err := db.Begin(ctx) // another node holding the hot chain head
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `SELECT value FROM audit_heads WHERE key = 'hot' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	e.retried = func(reason string) {
		if reason == "busy" {
			once.Do(func() { _ = holder.Rollback(ctx) })
		}
	}
	errs := make([]error, 2)
	txns, err := e.commit([]func(*Tx) error{
		func(tx *Tx) error { return tx.Put("pages", []byte("p"), []byte(`{}`)) },
		func(tx *Tx) error {
			return tx.Put("audit_head", []byte("hot"), U64(ReadU64(tx.Get("audit_head", []byte("hot")))+1))
		},
	}, errs)
	if err != nil || errors.Join(errs...) != nil {
		t.Fatal(err, errs)
	}
	if txns != 2 {
		t.Fatalf("the split group reported %d transactions, want 2", txns)
	}
	// The store hands the count to Observe (the node's folio_store_commits_total).
	var observed int
	s := newStore(twoTxns{e}, Options{Observe: func(_, transactions int, _ time.Duration) { observed += transactions }})
	if err := s.Update(func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if observed != 2 {
		t.Fatalf("Observe was told of %d transactions, want 2", observed)
	}
}

// twoTxns reports every group committed in two transactions.
type twoTxns struct{ *pgEngine }

func (twoTxns) commit(fns []func(*Tx) error, errs []error) (int, error) { return 2, nil }
func (twoTxns) close() error                                            { return nil }
