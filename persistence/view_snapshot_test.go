package persistence

import (
	"errors"
	"testing"

	"folio/persistence/pgtest"
)

// A view reads one committed state, from its first read on: a write committed
// while it is open is seen by none of its reads, whatever its first statement
// was (a Get, or a Scan). On PostgreSQL the view's BEGIN goes out with its first
// read, so a first read outside the snapshot would show here.
func TestAViewSeesOneCommittedStateFromItsFirstRead(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		write := func(v string) {
			t.Helper()
			if err := s.Update(func(tx *Tx) error {
				if err := tx.Put("b", []byte("a"), []byte(v)); err != nil {
					return err
				}
				return tx.Put("b", []byte("z"), []byte(v))
			}); err != nil {
				t.Fatal(err)
			}
		}
		write("1")
		for _, first := range []string{"get", "scan"} {
			var a, z []byte
			var scanned int
			err := s.View(func(tx *Tx) error {
				switch first {
				case "get":
					a = tx.Get("b", []byte("a"))
				case "scan":
					tx.Scan("b", []byte("a"), false, func(_, v []byte) bool { a = append([]byte(nil), v...); scanned++; return true })
				}
				write("2") // committed while the view is open
				z = tx.Get("b", []byte("z"))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if first == "scan" && scanned != 1 {
				t.Fatalf("the scan visited %d keys, want 1", scanned)
			}
			if string(a) != string(z) {
				t.Fatalf("first read by %s: a=%q then z=%q: the view saw two states", first, a, z)
			}
			write("1")
		}
		// A view does not write, on either engine.
		err := s.View(func(tx *Tx) error { return tx.Put("b", []byte("a"), []byte("3")) })
		if err == nil {
			t.Fatal("a view wrote")
		}
		var got []byte
		_ = s.View(func(tx *Tx) error { got = tx.Get("b", []byte("a")); return nil })
		if string(got) != "1" {
			t.Fatalf("after the view's write: %q, want 1", got)
		}
		if errors.Is(err, ErrUnavailable) {
			t.Fatalf("a view's write is the caller's mistake, not the store's failure: %v", err)
		}
	})
}

// A view (and a Get) on PostgreSQL hands its connection back out of its transaction, ready
// for the next caller: views one after another, whatever they read first, reuse
// one connection instead of opening one each (a connection left inside its
// transaction is closed by the pool, and the next view pays for a new one).
func TestViewsOnPostgreSQLReuseTheirConnection(t *testing.T) {
	e, err := openPostgres(pgtest.URL(t), len(migrations), DefaultPGLaterWait)
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(e, Options{})
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Update(func(tx *Tx) error { return tx.Put("b", []byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	views := []func(tx *Tx){
		func(tx *Tx) { tx.Get("b", []byte("k")) },
		func(tx *Tx) { tx.Scan("b", nil, false, func(_, _ []byte) bool { return true }) },
		func(tx *Tx) { tx.Get("b", []byte("k")); tx.Get("b", []byte("absent")) },
		func(*Tx) {}, // reads nothing
	}
	for _, view := range views { // a connection for each kind first
		_ = s.View(func(tx *Tx) error { view(tx); return nil })
	}
	before := e.pool.Stat().NewConnsCount()
	for i := 0; i < 40; i++ {
		var got []byte
		if err := s.View(func(tx *Tx) error { views[i%len(views)](tx); got = tx.Get("b", []byte("k")); return nil }); err != nil {
			t.Fatal(err)
		}
		if string(got) != "v" {
			t.Fatalf("view %d read %q", i, got)
		}
	}
	if n := e.pool.Stat().NewConnsCount() - before; n > 0 {
		t.Fatalf("40 views one after another opened %d new connections, want none", n)
	}
	// Store.Get sends its one statement outside any transaction: nothing is
	// left open either.
	for i := 0; i < 40; i++ {
		if got, err := s.Get("b", []byte("k")); err != nil || string(got) != "v" {
			t.Fatalf("get %d: %q, %v", i, got, err)
		}
	}
	if n := e.pool.Stat().NewConnsCount() - before; n > 0 {
		t.Fatalf("40 gets one after another opened %d new connections, want none", n)
	}
}
