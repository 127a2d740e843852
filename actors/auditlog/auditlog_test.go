package auditlog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"folio/persistence"
	"folio/persistence/pgtest"
	"folio/persistence/storetest"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func testKey(t *testing.T) Key {
	t.Helper()
	skey, _, err := note.GenerateKey(nil, "folio.test/folio/audit")
	if err != nil {
		t.Fatal(err)
	}
	k, err := parseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// openLog is a store (bbolt, or PostgreSQL with FOLIO_TEST_STORE=pg) with a log
// signing its tenants' trees.
func openLog(t *testing.T) (*persistence.Store, *Log) {
	s := storetest.Open(t, t.TempDir())
	t.Cleanup(func() { _ = s.Close() })
	return s, New(s, testKey(t))
}

func appendN(t *testing.T, s *persistence.Store, tenant string, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		if err := s.Update(func(tx *persistence.Tx) error {
			_, _, err := tx.AppendAudit(tenant, []byte(fmt.Sprintf(`{"event":"page.created","n":%d,"note":"<a&b>"}`, i)))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func export(t *testing.T, s *persistence.Store, tenant string) []byte {
	t.Helper()
	var buf bytes.Buffer
	for after := int64(0); ; {
		p, err := ReadPage(s, tenant, after, 7) // small pages: the pages join up
		if err != nil {
			t.Fatal(err)
		}
		if len(p) == 0 {
			return buf.Bytes()
		}
		if _, err := p.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		after = p.Last(after)
	}
}

// record is the stored layout of an audit record (persistence/audit.go), as an
// attacker with write access to the store would forge it.
func record(seq uint64, prev, hash string, entry []byte) []byte {
	b := []byte{1}
	b = binary.BigEndian.AppendUint64(b, seq)
	b = binary.BigEndian.AppendUint16(b, uint16(len(prev)))
	b = append(b, prev...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(hash)))
	b = append(b, hash...)
	return append(b, entry...)
}

// rewrite replaces tenant's chain by entries, with every chain hash recomputed and
// the head moved: a chain /v1/audit/verify finds valid.
func rewrite(t *testing.T, s *persistence.Store, tenant string, entries [][]byte, oldLen int) {
	t.Helper()
	if err := s.Update(func(tx *persistence.Tx) error {
		prev := ""
		for i, e := range entries {
			h := persistence.ChainHash(prev, e)
			_ = tx.Put("audit", persistence.Key([]byte(tenant), persistence.U64(uint64(i+1))), record(uint64(i+1), prev, h, e))
			prev = h
		}
		for i := len(entries) + 1; i <= oldLen; i++ {
			_ = tx.Delete("audit", persistence.Key([]byte(tenant), persistence.U64(uint64(i))))
		}
		return tx.Put("audit_head", []byte(tenant), append(persistence.U64(uint64(len(entries))), prev...))
	}); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.VerifyAudit(tenant); !v.Valid {
		t.Fatalf("the rewritten chain should fool the chain check: %+v", v)
	}
}

func entries(t *testing.T, s *persistence.Store, tenant string) [][]byte {
	var out [][]byte
	_ = s.View(func(tx *persistence.Tx) error {
		for seq := uint64(1); ; seq++ {
			r, ok := tx.AuditRecordAt(tenant, seq)
			if !ok {
				return nil
			}
			out = append(out, r.Entry)
		}
	})
	return out
}

// TestOfflineVerifierCatchesARewrittenLog: checkpoints signed earlier catch an
// entry changed, removed from the middle or from the end, even when the chain was
// rebuilt so that the server's own chain check passes; an untouched export
// verifies.
func TestOfflineVerifierCatchesARewrittenLog(t *testing.T) {
	cases := []struct {
		name     string
		tamper   func(es [][]byte) [][]byte
		rebuild  bool
		firstBad int64
		reason   string
	}{
		{"changed entry, chain left alone", func(es [][]byte) [][]byte {
			es[6] = []byte(`{"event":"page.created","n":700}`)
			return es
		}, false, 7, "does not match its chain hash"},
		{"changed entry, chain rebuilt", func(es [][]byte) [][]byte {
			es[6] = []byte(`{"event":"page.created","n":700}`)
			return es
		}, true, 6, "entries 6 to 20 do not match"},
		{"removed entry, chain rebuilt", func(es [][]byte) [][]byte {
			return append(es[:11:11], es[12:]...)
		}, true, 6, "entries 6 to 20 do not match"},
		{"removed last entries, chain rebuilt", func(es [][]byte) [][]byte {
			return es[:22]
		}, true, 23, "export ends at entry 22"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, l := openLog(t)
			var cps [][]byte
			for _, upTo := range []int{5, 20, 25} {
				appendN(t, s, "t1", len(entries(t, s, "t1"))+1, upTo)
				cp, err := l.Latest("t1")
				if err != nil || cp.Size != int64(upTo) {
					t.Fatalf("checkpoint: %+v %v", cp, err)
				}
				cps = append(cps, cp.Note)
			}
			rep, err := VerifyExport(bytes.NewReader(export(t, s, "t1")), l.VerifierKey(), cps)
			if err != nil || !rep.Valid || rep.Entries != 25 || len(rep.Checked) != 3 {
				t.Fatalf("untouched export: %+v %v", rep, err)
			}
			es := entries(t, s, "t1")
			forged := c.tamper(es)
			if c.rebuild {
				rewrite(t, s, "t1", forged, 25)
			} else {
				_ = s.Update(func(tx *persistence.Tx) error {
					r, _ := tx.AuditRecordAt("t1", 7)
					return tx.Put("audit", persistence.Key([]byte("t1"), persistence.U64(7)), record(7, r.Prev, r.Hash, forged[6]))
				})
			}
			rep, err = VerifyExport(bytes.NewReader(export(t, s, "t1")), l.VerifierKey(), cps)
			if err != nil || rep.Valid || rep.FirstBad != c.firstBad || !strings.Contains(rep.Reason, c.reason) {
				t.Fatalf("tampered export: %+v %v; want first bad %d, %q", rep, err, c.firstBad, c.reason)
			}
		})
	}
}

// TestCheckpointsAreVerifiableAndConsistent: a checkpoint opens with the verifier
// key and no other; the consistency proof between two checkpoints verifies and a
// forged one fails; an inclusion proof verifies with tlog.CheckRecord against the
// checkpoint's root.
func TestCheckpointsAreVerifiableAndConsistent(t *testing.T) {
	s, l := openLog(t)
	appendN(t, s, "t1", 1, 9)
	c1, _ := l.Latest("t1")
	appendN(t, s, "t1", 10, 30)
	c2, _ := l.Latest("t1")
	origin, size1, root1, err := OpenCheckpoint(c1.Note, l.VerifierKey())
	if err != nil || origin != "folio.test/folio/audit/t1" || size1 != 9 {
		t.Fatalf("checkpoint 1: %q %d %v", origin, size1, err)
	}
	_, size2, root2, err := OpenCheckpoint(c2.Note, l.VerifierKey())
	if err != nil || size2 != 30 {
		t.Fatalf("checkpoint 2: %d %v", size2, err)
	}
	if _, _, _, err := OpenCheckpoint(c2.Note, testKey(t).Verifier); err == nil {
		t.Fatal("a checkpoint opened with another key")
	}
	p, err := l.Consistency("t1", size1, size2)
	if err != nil || p.OldRoot != root1 || p.NewRoot != root2 {
		t.Fatalf("consistency: %+v %v", p, err)
	}
	if err := tlog.CheckTree(p.Proof, size2, root2, size1, root1); err != nil {
		t.Fatalf("consistency proof: %v", err)
	}
	forged := append([]tlog.Hash(nil), p.Proof...)
	forged[len(forged)-1][3] ^= 0x40
	if tlog.CheckTree(forged, size2, root2, size1, root1) == nil {
		t.Fatal("a forged consistency proof verified")
	}
	inc, err := l.Inclusion("t1", 4, size1)
	if err != nil {
		t.Fatal(err)
	}
	leaf := tlog.RecordHash(entries(t, s, "t1")[3])
	if inc.LeafHash != leaf || tlog.CheckRecord(inc.Proof, size1, root1, 3, leaf) != nil {
		t.Fatalf("inclusion of entry 4 in checkpoint 1 does not verify: %+v", inc)
	}
	if _, err := l.Inclusion("t1", 4, 31); err == nil || !strings.Contains(err.Error(), "size") {
		t.Fatalf("inclusion beyond the tree: %v", err)
	}
	if _, err := l.Consistency("t1", 12, 10); err == nil || !strings.Contains(err.Error(), "from") {
		t.Fatalf("from after to: %v", err)
	}
}

// TestCheckpointNamesOnlyCommittedTrees: while an append is inside an open commit,
// the checkpoint is of the tree before it; once the commit returns, of the tree
// with it. And the same tree is signed once.
func TestCheckpointNamesOnlyCommittedTrees(t *testing.T) {
	s, l := openLog(t)
	appendN(t, s, "t1", 1, 3)
	inside, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Update(func(tx *persistence.Tx) error {
			if _, _, err := tx.AppendAudit("t1", []byte(`{"n":4}`)); err != nil {
				return err
			}
			select {
			case <-inside:
			default:
				close(inside)
			}
			<-release
			return nil
		})
	}()
	<-inside
	cp, err := l.Latest("t1")
	close(release)
	if err != nil || cp.Size != 3 {
		t.Fatalf("checkpoint during the commit: size %d %v, want 3", cp.Size, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cp2, _ := l.Latest("t1")
	cp3, _ := l.Latest("t1")
	if cp2.Size != 4 || !bytes.Equal(cp2.Note, cp3.Note) {
		t.Fatalf("after the commit: size %d, signed again %v", cp2.Size, !bytes.Equal(cp2.Note, cp3.Note))
	}
}

// TestKeyIsCreatedOnceWithMode0600: the first start writes the key (0600) and its
// verifier beside it; the next reads the same key.
func TestKeyIsCreatedOnceWithMode0600(t *testing.T) {
	path := t.TempDir() + "/audit.key"
	k1, err := LoadOrCreateKey(path, "h/folio/audit", true)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v %v", fi.Mode(), err)
	}
	pub, _ := os.ReadFile(path + ".pub")
	k2, err := LoadOrCreateKey(path, "other", true)
	if err != nil || k2.Verifier != k1.Verifier || strings.TrimSpace(string(pub)) != k1.Verifier {
		t.Fatalf("reloaded key differs: %v", err)
	}
	if _, err := LoadOrCreateKey(t.TempDir()+"/none", "h", false); err == nil {
		t.Fatal("a missing key file given by flag was created")
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// TestVerifierRefusesAFork: two checkpoints of one size with different roots, both
// signed by the key, are a fork: the offline check stops and says so.
func TestVerifierRefusesAFork(t *testing.T) {
	s, l := openLog(t)
	appendN(t, s, "t1", 1, 4)
	cp, err := l.Latest("t1")
	if err != nil {
		t.Fatal(err)
	}
	other, err := note.Sign(&note.Note{Text: formatCheckpoint(cp.Origin, cp.Size, tlog.RecordHash([]byte("another log")))}, l.key.Signer)
	if err != nil {
		t.Fatal(err)
	}
	_, err = VerifyExport(bytes.NewReader(export(t, s, "t1")), l.VerifierKey(), [][]byte{cp.Note, other})
	if err == nil || !strings.Contains(err.Error(), "forked") {
		t.Fatalf("a forked pair of checkpoints: %v", err)
	}
}

// Nodes starting at once on one data directory make one audit key between them,
// and every one of them reads it whole.
func TestNodesStartingAtOnceShareOneAuditKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared", "audit.key")
	const n = 64
	keys := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			k, err := LoadOrCreateKey(path, "folio.example", true)
			keys[i], errs[i] = k.Verifier, err
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || keys[i] != keys[0] {
			t.Fatalf("node %d: key %q, err %v; want every node on %q", i, keys[i], errs[i], keys[0])
		}
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v, %v; want mode 0600", st, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".audit-key-*")); len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
}
