package persistence

import (
	"bytes"
	"fmt"
	"folio/persistence/pgtest"
	"os"
	"testing"
)

// appendChainOnly is AppendAudits as it was before the tree: the chain records and
// the head, nothing else. The benchmark's baseline.
func (t *Tx) appendChainOnly(chain string, entry []byte) error {
	seq, prev := t.auditHead(chain)
	seq++
	hash := ChainHash(prev, entry)
	if err := t.Put(auditBucket, auditKey(chain, seq), encodeRecord(AuditRecord{Seq: seq, Prev: prev, Hash: hash, Entry: entry})); err != nil {
		return err
	}
	return t.Put(headBucket, []byte(chain), append(U64(seq), hash...))
}

// BenchmarkAuditAppendTree compares durable commits that append one 300-byte
// audit entry (beside a 2 KiB record, as a page change does), with the Merkle tree
// and without it (the chain alone), in the same run: commits/s. On bbolt, or
// PostgreSQL with FOLIO_TEST_STORE=pg.
//
//	go test -run '^$' -bench BenchmarkAuditAppendTree -count 5 ./persistence/
//
// Measured on a shared 2-core machine (medians, noisy): bbolt, 1 client 149 vs 142
// commits/s (fsync-bound, no difference); 32 clients 2502 vs 2746 (-9%).
// PostgreSQL, 32 clients on one hot chain: 1738 vs 2388 (-27%): each append adds
// about three upserts (the tree size and two stored hashes on average) to the
// three of the chain, and the database shares the two cores.
func BenchmarkAuditAppendTree(b *testing.B) {
	val := bytes.Repeat([]byte("x"), 2048)
	for _, clients := range []int{1, 32} {
		for _, mode := range []string{"chain", "chain+tree"} {
			b.Run(fmt.Sprintf("%s/clients=%d", mode, clients), func(b *testing.B) {
				var s *Store
				var err error
				if os.Getenv("FOLIO_TEST_STORE") == "pg" {
					s, err = OpenURL(pgtest.URL(b), "", Options{})
				} else {
					s, err = Open(b.TempDir(), Options{})
				}
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				_, el := commitFrom(b, clients, func(n int) error {
					return s.Update(func(tx *Tx) error {
						if err := tx.Put("p", []byte(fmt.Sprintf("k%09d", n)), val); err != nil {
							return err
						}
						if mode == "chain" {
							return tx.appendChainOnly("tenant", val[:300])
						}
						_, _, err := tx.AppendAudit("tenant", val[:300])
						return err
					})
				})
				b.ReportMetric(float64(b.N)/el.Seconds(), "commits/s")
			})
		}
	}
}
