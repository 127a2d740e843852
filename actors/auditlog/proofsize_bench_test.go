package auditlog

import (
	"encoding/binary"
	"encoding/json"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// BenchmarkProofSizeAtOneMillion builds a synthetic tree of 1,000,000 leaves (as
// the store keeps it: tlog's stored hashes) and reports the size of an inclusion
// proof and of a consistency proof in it, as hashes, raw bytes and the bytes of
// the JSON answers of GET /v1/audit/proof/inclusion and /consistency.
//
//	go test -run '^$' -bench BenchmarkProofSizeAtOneMillion -benchtime 1x ./actors/auditlog/
func BenchmarkProofSizeAtOneMillion(b *testing.B) {
	const n = 1_000_000
	stored := make([]tlog.Hash, 0, 2*n+64)
	r := tlog.HashReaderFunc(func(ix []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(ix))
		for i, x := range ix {
			out[i] = stored[x]
		}
		return out, nil
	})
	entry := make([]byte, 300)
	for i := int64(0); i < n; i++ {
		binary.BigEndian.PutUint64(entry, uint64(i))
		hs, err := tlog.StoredHashes(i, entry, r)
		if err != nil {
			b.Fatal(err)
		}
		stored = append(stored, hs...)
	}
	root, err := tlog.TreeHash(n, r)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var inc Inclusion
	var cons Consistency
	for range b.N {
		leaf := int64(n/2 + 12345)
		p, err := tlog.ProveRecord(n, leaf, r)
		if err != nil {
			b.Fatal(err)
		}
		binary.BigEndian.PutUint64(entry, uint64(leaf))
		if err := tlog.CheckRecord(p, n, root, leaf, tlog.RecordHash(entry)); err != nil {
			b.Fatal(err)
		}
		inc = Inclusion{Entry: leaf + 1, LeafIndex: leaf, Size: n, LeafHash: tlog.RecordHash(entry), RootHash: root, Proof: p}
		old, _ := tlog.TreeHash(n-1000, r)
		tp, err := tlog.ProveTree(n, n-1000, r)
		if err != nil {
			b.Fatal(err)
		}
		if err := tlog.CheckTree(tp, n, root, n-1000, old); err != nil {
			b.Fatal(err)
		}
		cons = Consistency{From: n - 1000, To: n, OldRoot: old, NewRoot: root, Proof: tp}
	}
	ij, _ := json.Marshal(inc)
	cj, _ := json.Marshal(cons)
	b.ReportMetric(float64(len(inc.Proof)), "inclusion-hashes")
	b.ReportMetric(float64(32*len(inc.Proof)), "inclusion-bytes")
	b.ReportMetric(float64(len(ij)), "inclusion-json-bytes")
	b.ReportMetric(float64(len(cons.Proof)), "consistency-hashes")
	b.ReportMetric(float64(32*len(cons.Proof)), "consistency-bytes")
	b.ReportMetric(float64(len(cj)), "consistency-json-bytes")
}
