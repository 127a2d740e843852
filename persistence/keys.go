package persistence

import "time"

// Ordered is the key of a row kept in order inside a scope, the shape of every
// listing and due index: scope 0x00 n(8 bytes, big-endian) 0x00 id. N is a
// sequence or a time (Nanos); an empty Scope is left out (n 0x00 id: the due
// indexes, ordered across all scopes). Encoding and parsing live here so that no
// caller counts offsets into a key.
type Ordered struct {
	Scope string
	N     uint64
	ID    string
}

// Nanos is t as an Ordered N: byte order is time order for times after 1970.
func Nanos(t time.Time) uint64 { return uint64(t.UnixNano()) }

// Time is N read back as a time (the inverse of Nanos).
func (o Ordered) Time() time.Time { return time.Unix(0, int64(o.N)).UTC() }

// Key encodes o.
func (o Ordered) Key() []byte {
	if o.Scope == "" {
		return Key(U64(o.N), []byte(o.ID))
	}
	return Key([]byte(o.Scope), U64(o.N), []byte(o.ID))
}

// ScopePrefix is what every key of scope starts with: scans of one scope use it.
func ScopePrefix(scope string) []byte { return append([]byte(scope), 0) }

// ParseOrdered reads a key written by Ordered.Key with the given scope ("" for an
// unscoped one); ok is false for a key of another shape or scope.
func ParseOrdered(k []byte, scope string) (o Ordered, ok bool) {
	rest := k
	if scope != "" {
		p := len(scope)
		if len(k) < p+1 || string(k[:p]) != scope || k[p] != 0 {
			return Ordered{}, false
		}
		rest = k[p+1:]
	}
	if len(rest) < 9 || rest[8] != 0 {
		return Ordered{}, false
	}
	return Ordered{Scope: scope, N: ReadU64(rest[:8]), ID: string(rest[9:])}, true
}

// Paged scans the rows under prefix in key order (reverse: newest first), counts
// in total every row keep accepts (nil keeps all), and hands take only the rows of
// the page [offset, offset+limit): a listing decodes what it returns, not what it
// skips. An error from take ends the scan and is returned.
func (t *Tx) Paged(bucket string, prefix []byte, reverse bool, limit, offset int,
	keep func(k, v []byte) bool, take func(k, v []byte) error) (total int, err error) {
	taken := 0
	t.Scan(bucket, prefix, reverse, func(k, v []byte) bool {
		if keep != nil && !keep(k, v) {
			return true
		}
		total++
		if total <= offset || taken >= limit {
			return true
		}
		taken++
		if err = take(k, v); err != nil {
			return false
		}
		return true
	})
	return total, err
}

// DueKey is id's row in a due index, a bucket of rows ordered by when they fall
// due across all scopes (a page's expiry, deadline, files' end): Ordered without
// a scope, so that a scan from the start meets the earliest first.
func DueKey(at time.Time, id string) []byte { return Ordered{N: Nanos(at), ID: id}.Key() }

// Due lists the rows of a due index (written with DueKey) due at or before by,
// earliest first, at most limit. A row of another shape is skipped.
func (t *Tx) Due(bucket string, by time.Time, limit int) []Ordered {
	var out []Ordered
	t.ScanRange(bucket, nil, U64(Nanos(by)+1), func(k, _ []byte) bool {
		if o, ok := ParseOrdered(k, ""); ok {
			out = append(out, o)
		}
		return len(out) < limit
	})
	return out
}
