package persistence

import (
	"bytes"
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// Tx is a transaction over named buckets. Buckets are created on first write; reading
// a bucket that was never written finds nothing.
type Tx struct {
	btx *bolt.Tx
}

func (t *Tx) bucket(name string) *bolt.Bucket {
	b := t.btx.Bucket([]byte(name))
	if b == nil && t.btx.Writable() {
		b, _ = t.btx.CreateBucketIfNotExists([]byte(name))
	}
	if b != nil && t.btx.Writable() {
		b.FillPercent = fillPercent
	}
	return b
}

// fillPercent is how full bbolt packs the pages it splits. Nearly every key Folio
// writes grows at the right edge (time-ordered ids, sequence numbers, time-keyed
// indexes), where bbolt's default of one half leaves every page half empty, so
// twice the pages are written and kept.
const fillPercent = 0.9

// Get returns a copy of the value at key, or nil.
func (t *Tx) Get(bucket string, key []byte) []byte {
	b := t.bucket(bucket)
	if b == nil {
		return nil
	}
	v := b.Get(key)
	if v == nil {
		return nil
	}
	return append([]byte(nil), v...)
}

// Put stores value at key.
func (t *Tx) Put(bucket string, key, value []byte) error {
	return t.bucket(bucket).Put(key, value)
}

// Delete removes key (absent keys are fine).
func (t *Tx) Delete(bucket string, key []byte) error {
	b := t.bucket(bucket)
	if b == nil {
		return nil
	}
	return b.Delete(key)
}

// Scan visits the keys starting with prefix in ascending order (descending when
// reverse) until fn returns false. Keys and values are valid only inside fn.
func (t *Tx) Scan(bucket string, prefix []byte, reverse bool, fn func(k, v []byte) bool) {
	b := t.bucket(bucket)
	if b == nil {
		return
	}
	c := b.Cursor()
	if !reverse {
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if !fn(k, v) {
				return
			}
		}
		return
	}
	var k, v []byte
	if first, _ := c.Seek(prefixEnd(prefix)); first == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Prev() {
		if !fn(k, v) {
			return
		}
	}
}

// ScanRange visits keys in [from, to) ascending until fn returns false.
func (t *Tx) ScanRange(bucket string, from, to []byte, fn func(k, v []byte) bool) {
	b := t.bucket(bucket)
	if b == nil {
		return
	}
	c := b.Cursor()
	for k, v := c.Seek(from); k != nil && bytes.Compare(k, to) < 0; k, v = c.Next() {
		if !fn(k, v) {
			return
		}
	}
}

// NextSequence returns the bucket's next autoincrement value (starting at 1).
func (t *Tx) NextSequence(bucket string) (uint64, error) {
	return t.bucket(bucket).NextSequence()
}

// Sequence returns the bucket's current autoincrement value.
func (t *Tx) Sequence(bucket string) uint64 {
	b := t.bucket(bucket)
	if b == nil {
		return 0
	}
	return b.Sequence()
}

// prefixEnd is the smallest key greater than every key with prefix (nil when none).
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
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
