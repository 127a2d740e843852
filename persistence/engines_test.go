package persistence

import (
	"bytes"
	"errors"
	"fmt"
	"folio/persistence/pgtest"
	"sync"
	"testing"
)

// The contract every engine keeps for the actors above it, beyond the tests
// already run on each (store_test.go, audit_test.go): ordered scans in both
// directions and across the pages an engine reads them in, reads inside a scan,
// sequences, one failed write undone alone, and durability across a reopen.

// TestScansVisitKeysInByteOrder: 600 keys (more than one PostgreSQL scan page),
// scanned by prefix up and down, by range, and with no prefix at all, stopping
// when told to.
func TestScansVisitKeysInByteOrder(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		const n = 600
		if err := s.Update(func(tx *Tx) error {
			for i := 0; i < n; i++ {
				if err := tx.Put("b", Key([]byte("p"), U64(uint64(i))), []byte(fmt.Sprint(i))); err != nil {
					return err
				}
			}
			_ = tx.Put("b", []byte("o"), []byte("before"))
			_ = tx.Put("b", []byte("q"), []byte("after"))
			return tx.Put("b", []byte{0xff, 0xff}, []byte("last"))
		}); err != nil {
			t.Fatal(err)
		}
		prefix := append([]byte("p"), 0)
		collect := func(reverse bool, stopAt int) (got []uint64) {
			_ = s.View(func(tx *Tx) error {
				tx.Scan("b", prefix, reverse, func(k, v []byte) bool {
					i := ReadU64(k[len(prefix):])
					if string(v) != fmt.Sprint(i) {
						t.Errorf("key %d holds %q", i, v)
					}
					got = append(got, i)
					return len(got) < stopAt
				})
				return nil
			})
			return got
		}
		up, down := collect(false, n+1), collect(true, n+1)
		if len(up) != n || len(down) != n {
			t.Fatalf("prefix scans saw %d and %d keys, want %d", len(up), len(down), n)
		}
		for i := range up {
			if up[i] != uint64(i) || down[i] != uint64(n-1-i) {
				t.Fatalf("out of order at %d: up %d, down %d", i, up[i], down[i])
			}
		}
		if got := collect(false, 300); len(got) != 300 || got[299] != 299 {
			t.Fatalf("a scan told to stop after 300 saw %d keys", len(got))
		}
		if got := collect(true, 257); len(got) != 257 || got[256] != n-257 {
			t.Fatalf("a reverse scan told to stop after 257 saw %d keys", len(got))
		}
		var ranged []uint64
		var all int
		var last []byte
		_ = s.View(func(tx *Tx) error {
			tx.ScanRange("b", Key([]byte("p"), U64(100)), Key([]byte("p"), U64(400)), func(k, _ []byte) bool {
				ranged = append(ranged, ReadU64(k[len(prefix):]))
				return true
			})
			tx.Scan("b", nil, false, func(k, _ []byte) bool { all++; last = append(last[:0], k...); return true })
			return nil
		})
		if len(ranged) != 300 || ranged[0] != 100 || ranged[299] != 399 {
			t.Fatalf("range [100, 400) saw %d keys from %v", len(ranged), ranged[:min(3, len(ranged))])
		}
		if all != n+3 || !bytes.Equal(last, []byte{0xff, 0xff}) {
			t.Fatalf("a scan with no prefix saw %d keys ending %x, want %d ending ffff", all, last, n+3)
		}
	})
}

// TestReadsInsideAScanAndSequences: a scan's callback may read and write the same
// transaction; sequences start at 1 and survive with the bucket.
func TestReadsInsideAScanAndSequences(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		if err := s.Update(func(tx *Tx) error {
			if got := tx.Sequence("ids"); got != 0 {
				return fmt.Errorf("a new bucket's sequence is %d", got)
			}
			for i := 0; i < 300; i++ {
				id, err := tx.NextSequence("ids")
				if err != nil {
					return err
				}
				if id != uint64(i+1) {
					return fmt.Errorf("sequence %d, want %d", id, i+1)
				}
				_ = tx.Put("ids", U64(id), []byte("x"))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.Update(func(tx *Tx) error {
			n := 0
			tx.Scan("ids", nil, false, func(k, _ []byte) bool {
				if tx.Get("ids", k) == nil {
					t.Errorf("key %x not readable inside its scan", k)
				}
				n++
				return tx.Put("copy", k, []byte("y")) == nil
			})
			if n != 300 {
				return fmt.Errorf("scanned %d", n)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		_ = s.View(func(tx *Tx) error {
			if got := tx.Sequence("ids"); got != 300 {
				t.Errorf("sequence after 300: %d", got)
			}
			if tx.Get("copy", U64(300)) == nil {
				t.Error("a write made inside a scan was lost")
			}
			return nil
		})
	})
}

// TestAFailedWriteIsUndoneAlone: a function whose write the engine refuses (a key
// of no bytes) fails with the engine's error, and nothing of it is kept, while the
// functions committed with it keep theirs.
func TestAFailedWriteIsUndoneAlone(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		errs := make(chan error, 3)
		for i := 0; i < 3; i++ {
			go func(i int) {
				errs <- s.Update(func(tx *Tx) error {
					_ = tx.Put("b", []byte(fmt.Sprint("k", i)), []byte("v"))
					if i == 1 {
						_ = tx.Put("b", nil, []byte("no key")) // the error is ignored: the engine's still fails it
					}
					return nil
				})
			}(i)
		}
		failed := 0
		for i := 0; i < 3; i++ {
			if err := <-errs; err != nil {
				failed++
			}
		}
		if failed != 1 {
			t.Fatalf("%d functions failed, want the one with the bad write", failed)
		}
		_ = s.View(func(tx *Tx) error {
			for i, want := range []bool{true, false, true} {
				if got := tx.Get("b", []byte(fmt.Sprint("k", i))) != nil; got != want {
					t.Errorf("k%d stored: %v, want %v", i, got, want)
				}
			}
			return nil
		})
	})
}

// TestWritesSurviveAReopen: what an acknowledged Update wrote is there after the
// store is closed and opened again.
func TestWritesSurviveAReopen(t *testing.T) {
	for _, e := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"bolt", func(t *testing.T) string { return "bolt://" + t.TempDir() }},
		{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
	} {
		t.Run(e.name, func(t *testing.T) {
			url := e.url(t)
			s, err := OpenURL(url, "", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Update(func(tx *Tx) error { return tx.Put("b", []byte("k"), []byte("kept")) }); err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			if err := s.Update(func(*Tx) error { return nil }); !errors.Is(err, ErrClosed) {
				t.Fatalf("Update after Close = %v", err)
			}
			s, err = OpenURL(url, "", Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_ = s.View(func(tx *Tx) error {
				if got := string(tx.Get("b", []byte("k"))); got != "kept" {
					t.Errorf("after reopening: %q", got)
				}
				return nil
			})
		})
	}
}

// TestTheAuditChainIsTheSameOnEveryEngine: the same entries give the same hashes,
// so a chain verified on one engine means the same on the other.
func TestTheAuditChainIsTheSameOnEveryEngine(t *testing.T) {
	var heads []string
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		for i := 0; i < 5; i++ {
			if err := s.Update(func(tx *Tx) error {
				_, _, err := tx.AppendAudit("tenant", []byte(fmt.Sprintf(`{"n":%d}`, i)))
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		v, err := s.VerifyAudit("tenant")
		if err != nil || !v.Valid || v.Length != 5 {
			t.Fatalf("%+v %v", v, err)
		}
		heads = append(heads, v.LastHash)
	})
	if len(heads) != 2 || heads[0] != heads[1] {
		t.Fatalf("last hashes %v differ", heads)
	}
}

// TestTwoNodesOnOneDatabaseLoseNoUpdate: two stores on one PostgreSQL database (as
// two nodes would be), each with 8 writers incrementing the same counter and
// appending to the same audit chain: every increment counts (a transaction that
// read a value the other node changed is run again, never committed on the stale
// read) and the chain verifies with one entry per append.
func TestTwoNodesOnOneDatabaseLoseNoUpdate(t *testing.T) {
	url := pgtest.URL(t)
	var nodes [2]*Store
	for i := range nodes {
		s, err := OpenURL(url, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		nodes[i] = s
	}
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for _, s := range nodes {
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(s *Store) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					if err := s.Update(func(tx *Tx) error {
						n := ReadU64(tx.Get("b", []byte("counter")))
						if err := tx.Put("b", []byte("counter"), U64(n+1)); err != nil {
							return err
						}
						_, _, err := tx.AppendAudit("hot", []byte(`{"n":1}`))
						return err
					}); err != nil {
						t.Error(err)
						return
					}
				}
			}(s)
		}
	}
	wg.Wait()
	want := uint64(len(nodes) * writers * each)
	_ = nodes[0].View(func(tx *Tx) error {
		if got := ReadU64(tx.Get("b", []byte("counter"))); got != want {
			t.Errorf("counter %d after %d increments", got, want)
		}
		return nil
	})
	v, err := nodes[1].VerifyAudit("hot")
	if err != nil || !v.Valid || v.Length != want {
		t.Fatalf("the chain written from two nodes: %+v %v, want valid with %d entries", v, err, want)
	}
}

// TestAGroupSeesItsCommittedWritesButNotAFailedOnes: within one group
// transaction, a function sees what the functions before it committed, and
// nothing of one that failed, whether that one's writes were still held or had
// been sent already (a scan sends them) — the engine's read cache included.
func TestAGroupSeesItsCommittedWritesButNotAFailedOnes(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		boom := errors.New("boom")
		fns := []func(*Tx) error{
			func(tx *Tx) error { return tx.Put("b", []byte("a"), []byte("1")) },
			func(tx *Tx) error {
				if got := string(tx.Get("b", []byte("a"))); got != "1" {
					return fmt.Errorf("the second function read a=%q, want the first one's 1", got)
				}
				_ = tx.Put("b", []byte("a"), []byte("2"))
				_, _ = tx.NextSequence("n")
				tx.Scan("b", nil, false, func(_, _ []byte) bool { return true }) // sends the writes
				return boom
			},
			func(tx *Tx) error {
				if got := string(tx.Get("b", []byte("a"))); got != "1" {
					return fmt.Errorf("after a failed function a=%q, want 1", got)
				}
				if n := tx.Sequence("n"); n != 0 {
					return fmt.Errorf("a failed function's sequence shows: %d", n)
				}
				_ = tx.Put("b", []byte("a"), []byte("3"))
				return nil
			},
			func(tx *Tx) error { _ = tx.Put("b", []byte("x"), []byte("held")); return boom },
			func(tx *Tx) error {
				if tx.Get("b", []byte("x")) != nil {
					return errors.New("a failed function's held write shows")
				}
				return nil
			},
		}
		errs := make([]error, len(fns))
		if _, err := s.eng.commit(fns, errs); err != nil {
			t.Fatal(err)
		}
		for i, want := range []error{nil, boom, nil, boom, nil} {
			if !errors.Is(errs[i], want) || (want == nil && errs[i] != nil) {
				t.Errorf("function %d: %v, want %v", i, errs[i], want)
			}
		}
		_ = s.View(func(tx *Tx) error {
			if got := string(tx.Get("b", []byte("a"))); got != "3" {
				t.Errorf("committed a=%q, want 3", got)
			}
			if tx.Get("b", []byte("x")) != nil || tx.Sequence("n") != 0 {
				t.Error("a failed function's writes were committed")
			}
			return nil
		})
	})
}
