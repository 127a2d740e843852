package persistence

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/tlog"
)

// memTree is an independent in-memory tlog tree, the reference the stored one
// must equal.
type memTree struct{ hashes []tlog.Hash }

func (m *memTree) add(t *testing.T, entry []byte) {
	hs, err := tlog.StoredHashes(int64(m.size()), entry, tlog.HashReaderFunc(func(ix []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(ix))
		for i, x := range ix {
			out[i] = m.hashes[x]
		}
		return out, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	m.hashes = append(m.hashes, hs...)
}

func (m *memTree) size() int64 {
	n := int64(0)
	for tlog.StoredHashCount(n) < int64(len(m.hashes)) {
		n++
	}
	return n
}

func (m *memTree) root(t *testing.T, n int64) tlog.Hash {
	h, err := tlog.TreeHash(n, tlog.HashReaderFunc(func(ix []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(ix))
		for i, x := range ix {
			out[i] = m.hashes[x]
		}
		return out, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// appendConcurrently appends n entries to chain "t", some alone and some three to
// a commit, from concurrent writers (so group commits pack them), and returns the
// entries in chain order.
func appendConcurrently(t *testing.T, s *Store, n int) [][]byte {
	t.Helper()
	var wg sync.WaitGroup
	for i := 0; i < n; i += 3 {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var batch [][]byte
			for j := i; j < min(i+3, n); j++ {
				batch = append(batch, []byte(fmt.Sprintf(`{"n":%d}`, j)))
			}
			if i%2 == 0 { // one entry per call
				for _, e := range batch {
					if err := s.Update(func(tx *Tx) error { _, _, err := tx.AppendAudit("t", e); return err }); err != nil {
						t.Error(err)
					}
				}
				return
			}
			if err := s.Update(func(tx *Tx) error { _, _, err := tx.AppendAudits("t", batch); return err }); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	var entries [][]byte
	_ = s.View(func(tx *Tx) error {
		for seq := uint64(1); ; seq++ {
			r, ok := tx.AuditRecordAt("t", seq)
			if !ok {
				return nil
			}
			entries = append(entries, r.Entry)
		}
	})
	if len(entries) != n {
		t.Fatalf("chain has %d entries, want %d", len(entries), n)
	}
	return entries
}

// TestAuditTreeFollowsTheChain: every committed entry is a leaf of the tree, in
// chain order, over the same bytes; the root is what an independent tree of the
// entries gives; every inclusion proof passes tlog.CheckRecord and every
// consistency proof tlog.CheckTree, and a forged one fails.
func TestAuditTreeFollowsTheChain(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		const n = 40
		entries := appendConcurrently(t, s, n)
		ref := &memTree{}
		for _, e := range entries {
			ref.add(t, e)
		}
		size, root, err := s.AuditTree("t")
		if err != nil || size != n || root != ref.root(t, n) {
			t.Fatalf("tree: size %d root %v err %v; want %d %v", size, root, err, n, ref.root(t, n))
		}
		for _, m := range []int64{1, 2, 7, 16, 33, n} {
			for i := int64(0); i < m; i++ {
				p, leaf, r, err := s.AuditInclusion("t", i, m)
				if err != nil {
					t.Fatal(err)
				}
				if leaf != tlog.RecordHash(entries[i]) || r != ref.root(t, m) {
					t.Fatalf("leaf %d of %d: wrong leaf or root", i, m)
				}
				if err := tlog.CheckRecord(p, m, r, i, leaf); err != nil {
					t.Fatalf("inclusion of %d in %d: %v", i, m, err)
				}
			}
		}
		for from := int64(1); from <= n; from += 3 {
			for _, to := range []int64{from, from + 1, n} {
				if to > n {
					continue
				}
				p, oldR, newR, err := s.AuditConsistency("t", from, to)
				if err != nil {
					t.Fatal(err)
				}
				if err := tlog.CheckTree(p, to, newR, from, oldR); err != nil {
					t.Fatalf("consistency %d..%d: %v", from, to, err)
				}
				if len(p) > 0 {
					forged := append(tlog.TreeProof(nil), p...)
					forged[0][0] ^= 1
					if tlog.CheckTree(forged, to, newR, from, oldR) == nil {
						t.Fatalf("forged consistency proof %d..%d verified", from, to)
					}
				}
				if from < to && tlog.CheckTree(p, to, newR, from, tlog.RecordHash([]byte("other"))) == nil {
					t.Fatalf("consistency %d..%d verified against another old root", from, to)
				}
			}
		}
		if _, _, _, err := s.AuditInclusion("t", 0, n+1); !errors.Is(err, ErrTreeSize) {
			t.Fatalf("proof beyond the tree: %v, want ErrTreeSize", err)
		}
		if _, _, _, err := s.AuditConsistency("t", 2, n+1); !errors.Is(err, ErrTreeSize) {
			t.Fatalf("consistency beyond the tree: %v, want ErrTreeSize", err)
		}
	})
}

// TestAuditTreeRollsBackWithItsEntry: a function that appends and then fails
// leaves neither chain nor tree behind, and the chain's next entry is leaf 0.
func TestAuditTreeRollsBackWithItsEntry(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		boom := errors.New("boom")
		if err := s.Update(func(tx *Tx) error {
			_, _, _ = tx.AppendAudit("t", []byte("lost"))
			return boom
		}); !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if size, _, _ := s.AuditTree("t"); size != 0 {
			t.Fatalf("tree of a rolled-back append has %d leaves", size)
		}
		if err := s.Update(func(tx *Tx) error { _, _, err := tx.AppendAudit("t", []byte("kept")); return err }); err != nil {
			t.Fatal(err)
		}
		size, root, _ := s.AuditTree("t")
		if size != 1 || root != tlog.RecordHash([]byte("kept")) {
			t.Fatalf("tree %d %v, want the one leaf kept", size, root)
		}
	})
}

// TestAuditTreeCoversAnOlderChain: a chain written before the tree existed (no tree
// rows) gets its old entries as leaves at its next appends, at most catchUp per
// commit, the tree always a prefix of the chain; its chain hashes are untouched.
func TestAuditTreeCoversAnOlderChain(t *testing.T) {
	const n = catchUp + 200
	dir := chainOf(t, n)
	db, err := bolt.Open(dir+"/folio.db", 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Update(func(tx *bolt.Tx) error {
		_ = tx.DeleteBucket([]byte(treeBucket))
		return tx.DeleteBucket([]byte(treeSizeBucket))
	})
	_ = db.Close()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before, _ := s.VerifyAudit("t")
	if size, _, _ := s.AuditTree("t"); size != 0 {
		t.Fatalf("older chain has a tree of %d", size)
	}
	add := func(i int) {
		if err := s.Update(func(tx *Tx) error { _, _, err := tx.AppendAudit("t", []byte(fmt.Sprintf(`{"n":%d}`, i))); return err }); err != nil {
			t.Fatal(err)
		}
	}
	ref := &memTree{}
	_ = s.View(func(tx *Tx) error {
		for seq := uint64(1); seq <= n; seq++ {
			r, _ := tx.AuditRecordAt("t", seq)
			ref.add(t, r.Entry)
		}
		return nil
	})
	add(n + 1)
	if size, root, _ := s.AuditTree("t"); size != catchUp || root != ref.root(t, catchUp) {
		t.Fatalf("after one append: %d leaves (want %d), root matches %v", size, catchUp, root == ref.root(t, catchUp))
	}
	ref.add(t, []byte(fmt.Sprintf(`{"n":%d}`, n+1)))
	add(n + 2)
	ref.add(t, []byte(fmt.Sprintf(`{"n":%d}`, n+2)))
	after, _ := s.VerifyAudit("t")
	if !after.Valid || after.Length != n+2 || after.FirstHash != before.FirstHash {
		t.Fatalf("chain after the tree caught up: %+v", after)
	}
	if size, root, _ := s.AuditTree("t"); size != n+2 || root != ref.root(t, n+2) {
		t.Fatalf("tree after catching up: %d leaves, root matches %v", size, root == ref.root(t, n+2))
	}
}
