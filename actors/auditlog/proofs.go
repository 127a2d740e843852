package auditlog

import (
	"errors"

	"folio/actors/model/fault"
	"folio/persistence"

	"golang.org/x/mod/sumdb/tlog"
)

// Inclusion is the proof that one entry is in a tenant's tree of Size leaves:
// tlog.CheckRecord(Proof, Size, RootHash, Entry-1, LeafHash) holds. Hashes are
// standard base64 (tlog.Hash's JSON form, the checkpoint's encoding).
type Inclusion struct {
	Entry     int64       `json:"entry"`
	LeafIndex int64       `json:"leaf_index"`
	Size      int64       `json:"size"`
	LeafHash  tlog.Hash   `json:"leaf_hash"`
	RootHash  tlog.Hash   `json:"root_hash"`
	Proof     []tlog.Hash `json:"proof"`
}

// Consistency is the proof that the tree of From leaves is a prefix of the tree of
// To leaves: tlog.CheckTree(Proof, To, NewRoot, From, OldRoot) holds.
type Consistency struct {
	From    int64       `json:"from"`
	To      int64       `json:"to"`
	OldRoot tlog.Hash   `json:"old_root"`
	NewRoot tlog.Hash   `json:"new_root"`
	Proof   []tlog.Hash `json:"proof"`
}

// Inclusion proves entry (a chain sequence, from 1) in tenant's tree of size
// leaves; size 0 means the committed tree as it is now. A size beyond the
// committed tree, or an entry beyond size, is a 400 naming the parameter.
func (l *Log) Inclusion(tenant string, entry, size int64) (Inclusion, error) {
	cur, _, err := l.store.AuditTree(tenant)
	if err != nil {
		return Inclusion{}, err
	}
	if size == 0 {
		size = cur
	}
	switch {
	case size > cur:
		return Inclusion{}, fault.Limit("size", "max", int(cur), "size is %d but the tenant's audit tree has %d entries; ask for a size at most %d (the latest checkpoint's)", size, cur, cur)
	case entry > size:
		return Inclusion{}, fault.Limit("entry", "max", int(size), "entry %d is not in a tree of %d entries; ask for an entry from 1 to %d, or a larger size", entry, size, size)
	}
	p, leaf, root, err := l.store.AuditInclusion(tenant, entry-1, size)
	if errors.Is(err, persistence.ErrTreeSize) { // cannot happen: the tree only grows
		return Inclusion{}, fault.Field("size", "max", "the audit tree is smaller than %d", size)
	}
	if err != nil {
		return Inclusion{}, err
	}
	return Inclusion{Entry: entry, LeafIndex: entry - 1, Size: size, LeafHash: leaf, RootHash: root, Proof: nonNil(p)}, nil
}

// Consistency proves tenant's tree of from leaves a prefix of its tree of to
// leaves; to 0 means the committed tree as it is now.
func (l *Log) Consistency(tenant string, from, to int64) (Consistency, error) {
	cur, _, err := l.store.AuditTree(tenant)
	if err != nil {
		return Consistency{}, err
	}
	if to == 0 {
		to = cur
	}
	switch {
	case to > cur:
		return Consistency{}, fault.Limit("to", "max", int(cur), "to is %d but the tenant's audit tree has %d entries; ask for at most %d (the latest checkpoint's size)", to, cur, cur)
	case from > to:
		return Consistency{}, fault.Limit("from", "max", int(to), "from (%d) is larger than to (%d); from is the older checkpoint's size", from, to)
	}
	p, oldRoot, newRoot, err := l.store.AuditConsistency(tenant, from, to)
	if errors.Is(err, persistence.ErrTreeSize) {
		return Consistency{}, fault.Field("to", "max", "the audit tree is smaller than %d", to)
	}
	if err != nil {
		return Consistency{}, err
	}
	return Consistency{From: from, To: to, OldRoot: oldRoot, NewRoot: newRoot, Proof: nonNil(p)}, nil
}

func nonNil(p []tlog.Hash) []tlog.Hash {
	if p == nil {
		return []tlog.Hash{}
	}
	return p
}
