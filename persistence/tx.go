package persistence

import (
	"encoding/binary"
)

// Tx is a transaction over named buckets, on whichever engine the Store runs
// (bbolt or PostgreSQL). Buckets are created on first write; reading a bucket that
// was never written finds nothing. A read the engine could not carry out (the
// database went away) fails the whole transaction: the function's own result is
// replaced by that error, so nothing is committed on the strength of a read that
// silently found nothing.
type Tx struct {
	t      txn
	err    error
	noTree bool // the store's Options.NoAuditTree
}

// AuditTreeOff reports whether the store keeps no audit trees (Options.NoAuditTree).
func (t *Tx) AuditTreeOff() bool { return t.noTree }

// fail records the first engine error of the transaction.
func (t *Tx) fail(err error) {
	if err != nil && t.err == nil {
		t.err = err
	}
}

// Read names one record for Prefetch.
type Read struct {
	Bucket string
	Key    []byte
}

// Prefetch reads records a function is about to Get, all at once: on PostgreSQL
// in one round trip instead of one each, locking them (in a write) in the order
// given, as the Gets would have. The Gets that follow are answered from what it
// read. A caller names records in the order its Gets would take them, so that
// every writer of a set of rows locks them in one order.
func (t *Tx) Prefetch(reads ...Read) {
	t.fail(t.t.prefetch(reads))
}

// Get returns a copy of the value at key, or nil.
func (t *Tx) Get(bucket string, key []byte) []byte {
	v, err := t.t.get(bucket, key)
	t.fail(err)
	return v
}

// Put stores value at key.
func (t *Tx) Put(bucket string, key, value []byte) error {
	err := t.t.put(bucket, key, value)
	t.fail(err)
	return err
}

// Delete removes key (absent keys are fine).
func (t *Tx) Delete(bucket string, key []byte) error {
	err := t.t.delete(bucket, key)
	t.fail(err)
	return err
}

// Scan visits the keys starting with prefix in ascending order (descending when
// reverse) until fn returns false. Keys and values are valid only inside fn.
func (t *Tx) Scan(bucket string, prefix []byte, reverse bool, fn func(k, v []byte) bool) {
	t.fail(t.t.scan(bucket, prefix, prefixEnd(prefix), reverse, fn))
}

// ScanRange visits keys in [from, to) ascending until fn returns false.
func (t *Tx) ScanRange(bucket string, from, to []byte, fn func(k, v []byte) bool) {
	t.fail(t.t.scan(bucket, from, to, false, fn))
}

// NextSequence returns the bucket's next autoincrement value (starting at 1).
func (t *Tx) NextSequence(bucket string) (uint64, error) {
	n, err := t.t.nextSequence(bucket)
	t.fail(err)
	return n, err
}

// Sequence returns the bucket's current autoincrement value.
func (t *Tx) Sequence(bucket string) uint64 {
	n, err := t.t.sequence(bucket)
	t.fail(err)
	return n
}

// prefixEnd is the smallest key greater than every key with prefix, or nil when
// there is none (an empty prefix, or one of 0xff bytes only): no upper bound.
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// Key joins parts with a 0x00 separator; ordered listings use it with U64 parts.
func Key(parts ...[]byte) []byte {
	n := len(parts)
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			k = append(k, 0)
		}
		k = append(k, p...)
	}
	return k
}

// U64 is v as 8 big-endian bytes, so numeric order is byte order.
func U64(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

// ReadU64 decodes U64.
func ReadU64(b []byte) uint64 {
	if len(b) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
