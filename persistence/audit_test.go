package persistence

import (
	"fmt"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// chainOf appends n entries to chain "t" and returns the store's directory.
func chainOf(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := s.Update(func(tx *Tx) error {
				_, _, err := tx.AppendAudit("t", []byte(fmt.Sprintf(`{"n":%d}`, i)))
				return err
			}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	v, err := s.VerifyAudit("t")
	if err != nil || !v.Valid || v.Length != uint64(n) {
		t.Fatalf("fresh chain: %+v %v", v, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tamper edits the raw bbolt file the way an attacker with disk access would.
func tamper(t *testing.T, dir string, fn func(b *bolt.Bucket)) verification {
	t.Helper()
	db, err := bolt.Open(dir+"/folio.db", 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { fn(tx.Bucket([]byte(auditBucket))); return nil }); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, err := s.VerifyAudit("t")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func key(seq uint64) []byte { return auditKey("t", seq) }

func TestVerifyDetectsTampering(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(b *bolt.Bucket)
		wantBad uint64
	}{
		{"edited entry", func(b *bolt.Bucket) {
			r, _ := decodeRecord(b.Get(key(4)))
			r.Entry = []byte(`{"n":999}`)
			_ = b.Put(key(4), encodeRecord(r))
		}, 4},
		{"removed entry", func(b *bolt.Bucket) { _ = b.Delete(key(3)) }, 3},
		{"removed last entry", func(b *bolt.Bucket) { _ = b.Delete(key(10)) }, 10},
		{"reordered entries", func(b *bolt.Bucket) {
			v5, v6 := append([]byte(nil), b.Get(key(5))...), append([]byte(nil), b.Get(key(6))...)
			_ = b.Put(key(5), v6)
			_ = b.Put(key(6), v5)
		}, 5},
		{"inserted entry", func(b *bolt.Bucket) {
			r, _ := decodeRecord(b.Get(key(10)))
			fake := AuditRecord{Seq: 11, Prev: r.Hash, Entry: []byte(`{"n":"forged"}`)}
			fake.Hash = ChainHash(fake.Prev, fake.Entry) // even a correctly hashed forgery
			_ = b.Put(key(11), encodeRecord(fake))
		}, 11},
		{"entry rewritten with a recomputed hash", func(b *bolt.Bucket) {
			r, _ := decodeRecord(b.Get(key(2)))
			r.Entry = []byte(`{"n":"rewritten"}`)
			r.Hash = ChainHash(r.Prev, r.Entry)
			_ = b.Put(key(2), encodeRecord(r))
		}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := tamper(t, chainOf(t, 10), c.edit)
			if v.Valid {
				t.Fatalf("tampered chain verified as valid")
			}
			if v.FirstBadSeq != c.wantBad {
				t.Fatalf("first bad sequence %d (%s), want %d", v.FirstBadSeq, v.Reason, c.wantBad)
			}
		})
	}
}

func TestEmptyChainIsValid(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) { emptyChainIsValid(t, open(t)) })
}

func emptyChainIsValid(t *testing.T, s *Store) {
	v, err := s.VerifyAudit("nobody")
	if err != nil || !v.Valid || v.Length != 0 {
		t.Fatalf("empty chain: %+v %v", v, err)
	}
}

// TestAppendingSeveralEntriesAtOnceLinksThemLikeOneByOne: entries appended in one
// call get consecutive sequences and exactly the hashes one-by-one appends give,
// and the chain verifies.
func TestAppendingSeveralEntriesAtOnceLinksThemLikeOneByOne(t *testing.T) {
	onEachEngine(t, appendingSeveralEntriesAtOnceLinksThemLikeOneByOne)
}

func appendingSeveralEntriesAtOnceLinksThemLikeOneByOne(t *testing.T, open func(t *testing.T) *Store) {
	entries := [][]byte{[]byte(`{"n":1}`), []byte(`{"n":2}`), []byte(`{"n":3}`), []byte(`{"n":4}`)}
	heads := make([]string, 2)
	for round := range heads {
		s := open(t)
		if err := s.Update(func(tx *Tx) error {
			if _, _, err := tx.AppendAudit("t", entries[0]); err != nil {
				return err
			}
			if round == 0 {
				for _, e := range entries[1:] {
					if _, _, err := tx.AppendAudit("t", e); err != nil {
						return err
					}
				}
				return nil
			}
			first, _, err := tx.AppendAudits("t", entries[1:])
			if err == nil && first != 2 {
				err = fmt.Errorf("first sequence %d, want 2", first)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		v, err := s.VerifyAudit("t")
		if err != nil || !v.Valid || v.Length != 4 {
			t.Fatalf("round %d: %+v %v", round, v, err)
		}
		heads[round] = v.LastHash
		_ = s.Close()
	}
	if heads[0] != heads[1] {
		t.Fatalf("last hash one by one %s, at once %s", heads[0], heads[1])
	}
}
