package persistence

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"time"
)

// The audit chain. Each chain (one per tenant) is a sequence 1..n of records
//
//	hash(n) = "sha256:" + hex(sha256(hash(n-1) || entry(n)))     with hash(0) = ""
//
// where entry(n) is the exact byte string the caller handed to AppendAudit. Sequence
// and previous hash are assigned inside the write transaction (bbolt has one writer),
// so concurrent appenders form one unbroken chain. The record stores the exact hashed
// bytes; VerifyAudit recomputes every hash from them.
const (
	auditBucket = "audit"         // chain 0x00 seq(8) -> record
	headBucket  = "audit_head"    // chain -> seq(8) hash
	groupBucket = "audit_by_page" // group 0x00 seq(8) -> nil (the writer names the group; Folio groups by page)
	recordV1    = 1
)

// AuditRecord is one link of a chain.
type AuditRecord struct {
	Seq   uint64
	Prev  string
	Hash  string
	Entry []byte
}

// ChainHash is the hash of entry following prev.
func ChainHash(prev string, entry []byte) string {
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write(entry)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func auditKey(chain string, seq uint64) []byte { return Key([]byte(chain), U64(seq)) }

// AppendAudit links entry to the end of chain and returns its sequence and hash.
func (t *Tx) AppendAudit(chain string, entry []byte) (uint64, string, error) {
	return t.AppendAudits(chain, [][]byte{entry})
}

// AppendAudits links entries, in order, to the end of chain and returns the
// sequence of the first and the hash of the last. The chain's head row is read and
// written once for all of them (a page change appends several entries in one commit).
func (t *Tx) AppendAudits(chain string, entries [][]byte) (first uint64, last string, err error) {
	if len(entries) == 0 {
		return 0, "", nil
	}
	t.Prefetch(t.ChainReads(chain)...)
	seq, prev := t.auditHead(chain)
	leaves := int64(-1)
	if !t.noTree {
		var err error
		if leaves, err = t.growTree(chain, seq); err != nil {
			return 0, "", err
		}
	}
	first = seq + 1
	for _, entry := range entries {
		seq++
		hash := ChainHash(prev, entry)
		rec := encodeRecord(AuditRecord{Seq: seq, Prev: prev, Hash: hash, Entry: entry})
		if err := t.Put(auditBucket, auditKey(chain, seq), rec); err != nil {
			return 0, "", err
		}
		prev = hash
	}
	if err := t.Put(headBucket, []byte(chain), append(U64(seq), prev...)); err != nil {
		return 0, "", err
	}
	// The tree over the same bytes, in the same transaction (audit_tree.go), once
	// it has caught up with an older chain.
	if uint64(leaves) == first-1 {
		if err := t.appendLeaves(chain, leaves, entries); err != nil {
			return 0, "", err
		}
	}
	return first, prev, nil
}

// ChainReads are the records an append to chain reads first (its head, and its
// tree's size), for a caller to Prefetch with its own.
func (t *Tx) ChainReads(chain string) []Read {
	reads := []Read{{Bucket: headBucket, Key: []byte(chain)}}
	if !t.noTree {
		reads = append(reads, Read{Bucket: treeSizeBucket, Key: []byte(chain)})
	}
	return reads
}

// AppendAuditsGrouped is AppendAudits that also indexes each entry under the group
// its writer names (groups[i]; "" for none), for listings of one group.
func (t *Tx) AppendAuditsGrouped(chain string, entries [][]byte, groups []string) (first uint64, last string, err error) {
	if first, last, err = t.AppendAudits(chain, entries); err != nil || len(entries) == 0 {
		return first, last, err
	}
	for i, g := range groups {
		if g != "" {
			if err := t.Put(groupBucket, Key([]byte(g), U64(first+uint64(i))), nil); err != nil {
				return 0, "", err
			}
		}
	}
	return first, last, nil
}

// AuditGroup lists the records of one group of chain, oldest first: it skips skip
// of them and returns at most limit; total counts them all.
func (s *Store) AuditGroup(chain, group string, skip, limit int) (records []AuditRecord, total int, err error) {
	records = []AuditRecord{}
	err = s.View(func(tx *Tx) error {
		prefix := append([]byte(group), 0)
		tx.Scan(groupBucket, prefix, false, func(k, _ []byte) bool {
			total++
			if total <= skip || len(records) >= limit {
				return true
			}
			if rec, ok := tx.AuditRecordAt(chain, ReadU64(k[len(prefix):])); ok {
				records = append(records, rec)
			}
			return true
		})
		return nil
	})
	return records, total, err
}

// LastAuditInGroup is the newest record of one group of chain that match accepts
// (ok false when none does), looked for newest first.
func (s *Store) LastAuditInGroup(chain, group string, match func(AuditRecord) bool) (rec AuditRecord, ok bool, err error) {
	err = s.View(func(tx *Tx) error {
		prefix := append([]byte(group), 0)
		tx.Scan(groupBucket, prefix, true, func(k, _ []byte) bool {
			r, found := tx.AuditRecordAt(chain, ReadU64(k[len(prefix):]))
			if found && match(r) {
				rec, ok = r, true
			}
			return !ok
		})
		return nil
	})
	return rec, ok, err
}

// AuditRecordAt reads one record of chain.
func (t *Tx) AuditRecordAt(chain string, seq uint64) (AuditRecord, bool) {
	v := t.Get(auditBucket, auditKey(chain, seq))
	if v == nil {
		return AuditRecord{}, false
	}
	r, err := decodeRecord(v)
	return r, err == nil
}

func (t *Tx) auditHead(chain string) (uint64, string) {
	v := t.Get(headBucket, []byte(chain))
	if len(v) < 8 {
		return 0, ""
	}
	return binary.BigEndian.Uint64(v), string(v[8:])
}

// verification is the outcome of VerifyAudit.
type verification struct {
	Valid       bool
	Length      uint64
	FirstHash   string
	LastHash    string
	FirstBadSeq uint64 // 0 when valid
	Reason      string
	VerifiedAt  time.Time
}

// VerifyAudit walks chain from 1 and recomputes every hash from the stored bytes. An
// edited, removed, reordered or inserted record, or a head that disagrees with the
// records, makes it invalid at the first sequence where the chain stops holding.
func (s *Store) VerifyAudit(chain string) (verification, error) {
	var out verification
	err := s.View(func(tx *Tx) error {
		out = tx.verify(chain)
		return nil
	})
	out.VerifiedAt = time.Now().UTC()
	return out, err
}

func (t *Tx) verify(chain string) verification {
	headSeq, headHash := t.auditHead(chain)
	v := verification{Valid: true}
	fail := func(seq uint64, why string) {
		if v.Valid {
			v.Valid, v.FirstBadSeq, v.Reason = false, seq, why
		}
	}
	expect, prev := uint64(1), ""
	prefix := append([]byte(chain), 0)
	t.Scan(auditBucket, prefix, false, func(k, val []byte) bool {
		keySeq := ReadU64(k[len(prefix):])
		r, err := decodeRecord(val)
		switch {
		case len(k) != len(prefix)+8:
			fail(expect, "malformed key")
		case keySeq != expect:
			fail(expect, "missing or inserted record")
		case err != nil:
			fail(expect, "unreadable record")
		case r.Seq != keySeq:
			fail(expect, "record out of place")
		case r.Prev != prev:
			fail(expect, "previous hash does not match")
		case ChainHash(prev, r.Entry) != r.Hash:
			fail(expect, "entry does not match its hash")
		}
		if !v.Valid {
			return false
		}
		if expect == 1 {
			v.FirstHash = r.Hash
		}
		prev, v.LastHash, v.Length = r.Hash, r.Hash, expect
		expect++
		return true
	})
	if v.Valid && (v.Length != headSeq || v.LastHash != headHash) {
		fail(min(v.Length, headSeq)+1, "chain is shorter or longer than its head")
	}
	return v
}

// record layout: version(1) seq(8) len(prev)(2) prev len(hash)(2) hash entry
func encodeRecord(r AuditRecord) []byte {
	b := make([]byte, 0, 1+8+2+len(r.Prev)+2+len(r.Hash)+len(r.Entry))
	b = append(b, recordV1)
	b = append(b, U64(r.Seq)...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(r.Prev)))
	b = append(b, r.Prev...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(r.Hash)))
	b = append(b, r.Hash...)
	return append(b, r.Entry...)
}

var errRecord = errors.New("persistence: malformed audit record")

func decodeRecord(b []byte) (AuditRecord, error) {
	var r AuditRecord
	if len(b) < 1+8+2 || b[0] != recordV1 {
		return r, errRecord
	}
	r.Seq = binary.BigEndian.Uint64(b[1:9])
	rest := b[9:]
	field := func() (string, bool) {
		if len(rest) < 2 {
			return "", false
		}
		n := int(binary.BigEndian.Uint16(rest))
		if len(rest) < 2+n {
			return "", false
		}
		s := string(rest[2 : 2+n])
		rest = rest[2+n:]
		return s, true
	}
	var ok bool
	if r.Prev, ok = field(); !ok {
		return r, errRecord
	}
	if r.Hash, ok = field(); !ok {
		return r, errRecord
	}
	r.Entry = bytes.Clone(rest)
	return r, nil
}
