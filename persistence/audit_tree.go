package persistence

import (
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// The audit tree. Beside each chain (audit.go) runs an RFC 6962 Merkle tree over
// the same entries: leaf i (from 0) is the entry of sequence i+1, hashed as
// tlog.RecordHash(entry) = SHA-256(0x00 || entry), over the exact bytes the chain
// hashes. The tree is kept as tlog's stored hashes (tlog.StoredHashes: each
// complete subtree's hash once, about two per entry), written by AppendAudits in
// the same transaction as the entry, so a committed chain of n entries always has
// a committed tree of n leaves and no tree is ever seen ahead of its chain.
//
// A chain written before the tree existed has no tree rows: its next appends first
// add the missing leaves from the stored records, at most catchUp per transaction.
// Until then the tree covers a prefix of the chain (AuditTree reports its size).
const (
	treeBucket     = "audit_tree"      // chain 0x00 index(8) -> 32-byte hash (tlog stored-hash index)
	treeSizeBucket = "audit_tree_size" // chain -> leaves(8)
)

// ErrTreeSize is returned when a proof names a tree larger than the one stored.
var ErrTreeSize = errors.New("persistence: the audit tree is not that large")

// errReadRaced is a function's finding that records it read disagree because
// another transaction committed between its reads (possible at read committed for
// a record read as absent, which no lock holds): the engine runs the function
// again from its savepoint, as after an insert race.
var errReadRaced = errors.New("persistence: records read changed underneath")

func treeKey(chain string, index int64) []byte { return Key([]byte(chain), U64(uint64(index))) }

// hashReader reads stored hashes of chain's tree inside t (its own pending writes
// included, on both engines), the hashes of one call at once (Prefetch: one round
// trip on PostgreSQL for the two or so an append reads).
func (t *Tx) hashReader(chain string) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		reads := make([]Read, len(indexes))
		for i, idx := range indexes {
			reads[i] = Read{Bucket: treeBucket, Key: treeKey(chain, idx)}
		}
		t.Prefetch(reads...)
		out := make([]tlog.Hash, len(indexes))
		for i, idx := range indexes {
			v := t.Get(treeBucket, reads[i].Key)
			if len(v) != tlog.HashSize {
				return nil, fmt.Errorf("persistence: audit tree of %q lacks stored hash %d", chain, idx)
			}
			copy(out[i][:], v)
		}
		return out, nil
	})
}

// auditTreeSize is the number of leaves of chain's tree.
func (t *Tx) auditTreeSize(chain string) int64 {
	return int64(ReadU64(t.Get(treeSizeBucket, []byte(chain))))
}

// appendLeaves adds entries as leaves size, size+1, ... of chain's tree and
// records the new size. It reads and writes only through t, so it is a pure
// function of the transaction (the group commit may run it again).
func (t *Tx) appendLeaves(chain string, size int64, entries [][]byte) error {
	r := t.hashReader(chain)
	for _, e := range entries {
		hashes, err := tlog.StoredHashes(size, e, r)
		if err != nil {
			return err
		}
		base := tlog.StoredHashIndex(0, size)
		for i, h := range hashes {
			if err := t.Put(treeBucket, treeKey(chain, base+int64(i)), h[:]); err != nil {
				return err
			}
		}
		size++
	}
	return t.Put(treeSizeBucket, []byte(chain), U64(uint64(size)))
}

// catchUp bounds the leaves of an older chain added in one transaction, so that
// upgrading a tenant with a long chain never makes one commit (and every write
// grouped with it) wait for the whole backfill.
const catchUp = 1000

// growTree adds to chain's tree, from the stored records, up to catchUp leaves it
// lacks (a chain older than the tree), before seq+1 is appended, and returns the
// tree's size. While it is still behind the chain, the entries being appended are
// left for later appends to add in order: the tree is always a prefix of the chain.
func (t *Tx) growTree(chain string, seq uint64) (int64, error) {
	size := t.auditTreeSize(chain)
	switch {
	case uint64(size) == seq:
		return size, nil
	case uint64(size) > seq:
		// On a shared store (read committed) another node may have committed the
		// chain's first entries between this function's read of the head (absent,
		// so not locked) and its read of the tree: a race lost, run again.
		return 0, fmt.Errorf("persistence: audit tree of %q has %d leaves but the chain %d entries: %w", chain, size, seq, errReadRaced)
	}
	upTo := min(seq, uint64(size)+catchUp)
	for s := uint64(size) + 1; s <= upTo; s++ {
		rec, ok := t.AuditRecordAt(chain, s)
		if !ok {
			return 0, fmt.Errorf("persistence: audit record %d of %q is missing; the tree cannot cover it", s, chain)
		}
		if err := t.appendLeaves(chain, int64(s-1), [][]byte{rec.Entry}); err != nil {
			return 0, err
		}
	}
	return int64(upTo), nil
}

// AuditTree is chain's committed tree: its size and root hash (the zero hash when
// empty). Read in one read transaction, it is always a tree that is durable.
func (s *Store) AuditTree(chain string) (size int64, root tlog.Hash, err error) {
	err = s.View(func(tx *Tx) error {
		size = tx.auditTreeSize(chain)
		if size == 0 {
			return nil
		}
		root, err = tlog.TreeHash(size, tx.hashReader(chain))
		return err
	})
	return size, root, err
}

// AuditInclusion proves that leaf index (sequence index+1) is in chain's tree of
// size leaves, with that tree's root and the leaf's hash. ErrTreeSize when the
// stored tree is smaller than size.
func (s *Store) AuditInclusion(chain string, index, size int64) (proof tlog.RecordProof, leaf, root tlog.Hash, err error) {
	err = s.View(func(tx *Tx) error {
		if size > tx.auditTreeSize(chain) || index < 0 || index >= size {
			return ErrTreeSize
		}
		r := tx.hashReader(chain)
		if root, err = tlog.TreeHash(size, r); err != nil {
			return err
		}
		hs, err := r.ReadHashes([]int64{tlog.StoredHashIndex(0, index)})
		if err != nil {
			return err
		}
		leaf = hs[0]
		proof, err = tlog.ProveRecord(size, index, r)
		return err
	})
	return proof, leaf, root, err
}

// AuditConsistency proves that chain's tree of from leaves is a prefix of its tree
// of to leaves, with both roots. ErrTreeSize when the stored tree is smaller than to.
func (s *Store) AuditConsistency(chain string, from, to int64) (proof tlog.TreeProof, oldRoot, newRoot tlog.Hash, err error) {
	err = s.View(func(tx *Tx) error {
		if to > tx.auditTreeSize(chain) || from < 1 || from > to {
			return ErrTreeSize
		}
		r := tx.hashReader(chain)
		if oldRoot, err = tlog.TreeHash(from, r); err != nil {
			return err
		}
		if newRoot, err = tlog.TreeHash(to, r); err != nil {
			return err
		}
		proof, err = tlog.ProveTree(to, from, r)
		return err
	})
	return proof, oldRoot, newRoot, err
}
