package inbox

import (
	"bytes"
	"slices"

	"folio/persistence"
)

// The listing index. GET /v1/inbox filters on any combination of reading state,
// priority and page type, newest first, with the total of the filtered set. Every
// combination a request can ask for is its own ordered range in bbolt:
//
//	tenant 0x00 mask [status] [priority] [pageType] createdAt(8) entryId
//
// where mask says which filters the range is for and the filter values follow,
// length-prefixed. The status part is either one reading state (mask bit
// maskStatus) or "not archived" (maskLive, the listing without a status filter), so
// an entry sits in 8 ranges (4 once archived). Each status range has an exact
// counter in bucketCounts, updated in the same transaction as its keys; a live
// range's total is its unread and its read range's together (rangeTotal), so a new
// entry updates four counters, not eight: a counter is a workspace's row that every
// writer of the workspace locks. A listing is then one or two counter reads and one
// cursor walk of offset+limit keys at most (from whichever end of the range is
// nearer), whatever the tenant holds. (Databases written before this keep live
// ranges' counters that nothing reads or updates any more.)

const (
	maskStatus   byte = 1 << iota // one reading state
	maskLive                      // unread or read
	maskPriority                  // one priority
	maskPageType                  // one page type
)

// Filter selects entries for a listing; empty fields do not filter.
type Filter struct {
	Status   string
	Priority string
	PageType string
	Limit    int
	Offset   int
}

// indexAttrs are the fields an entry is indexed by.
type indexAttrs struct {
	status, priority, pageType string
}

func attrsOf(e *Entry) indexAttrs { return indexAttrs{e.Status, e.Priority, e.PageType} }

// rangePrefix is the range (and counter key) of one filter combination.
func rangePrefix(tenant string, mask byte, a indexAttrs) []byte {
	k := make([]byte, 0, len(tenant)+2+len(a.status)+len(a.priority)+len(a.pageType)+3)
	k = append(append(k, tenant...), 0, mask)
	if mask&maskStatus != 0 {
		k = appendStr(k, a.status)
	}
	if mask&maskPriority != 0 {
		k = appendStr(k, a.priority)
	}
	if mask&maskPageType != 0 {
		k = appendStr(k, a.pageType)
	}
	return k
}

// masksOf lists the ranges an entry with these attributes belongs to.
func masksOf(a indexAttrs) []byte {
	out := make([]byte, 0, 8)
	for _, st := range []byte{maskStatus, maskLive} {
		if st == maskLive && a.status == Archived {
			continue
		}
		for _, p := range []byte{0, maskPriority} {
			for _, t := range []byte{0, maskPageType} {
				out = append(out, st|p|t)
			}
		}
	}
	return out
}

// filterRange is the range a listing reads.
func filterRange(tenant string, f Filter) []byte {
	mask := maskLive
	if f.Status != "" {
		mask = maskStatus
	}
	if f.Priority != "" {
		mask |= maskPriority
	}
	if f.PageType != "" {
		mask |= maskPageType
	}
	return rangePrefix(tenant, mask, indexAttrs{f.Status, f.Priority, f.PageType})
}

// entryIDOf is the entry id of k, a key of the range prefix: prefix, then the
// entry's creation time (8 bytes), then its id (reindex writes it so). A copy.
func entryIDOf(k, prefix []byte) []byte {
	return append([]byte(nil), k[len(prefix)+timeKeyLen:]...)
}

// rangeTotal is the number of entries in the range f lists: its counter, or for
// the live range (no status filter) its unread and read ranges' counters added.
func rangeTotal(tx *persistence.Tx, tenant string, f Filter) int {
	if f.Status != "" {
		return int(persistence.ReadU64(tx.Get(bucketCounts, filterRange(tenant, f))))
	}
	n := 0
	for _, st := range []string{Unread, Read} {
		g := f
		g.Status = st
		n += int(persistence.ReadU64(tx.Get(bucketCounts, filterRange(tenant, g))))
	}
	return n
}

// counted reports whether range p (a rangePrefix) keeps a counter: a status
// range does, a live range does not (rangeTotal).
func counted(p []byte) bool {
	i := bytes.IndexByte(p, 0)
	return i >= 0 && i+1 < len(p) && p[i+1]&maskStatus != 0
}

// reindex moves an entry's index keys and counters from old (nil: new entry) to
// next. Ranges that hold the entry under both stay untouched.
func reindex(tx *persistence.Tx, old, next *Entry) error {
	gone, added := rangeChanges(old, next)
	suffix := append(timeKey(next.CreatedAt), next.ID...)
	for _, p := range gone {
		if err := tx.Delete(bucketIndex, append(p, suffix...)); err != nil {
			return err
		}
		if counted(p) {
			if err := addCount(tx, bucketCounts, p, -1); err != nil {
				return err
			}
		}
	}
	for _, p := range added {
		if err := tx.Put(bucketIndex, append(p, suffix...), nil); err != nil {
			return err
		}
		if counted(p) {
			if err := addCount(tx, bucketCounts, p, 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// rangeChanges are the range prefixes an entry leaves (gone) and joins (added)
// going from old (nil: new entry) to next, each sorted, so that every writer
// locks a tenant's range counters in one order.
func rangeChanges(old, next *Entry) (gone, added [][]byte) {
	if old != nil && old.TenantID == next.TenantID && attrsOf(old) == attrsOf(next) {
		return nil, nil // same ranges, same key (fromPage keeps the id and creation time)
	}
	want := map[string]bool{}
	for _, m := range masksOf(attrsOf(next)) {
		want[string(rangePrefix(next.TenantID, m, attrsOf(next)))] = true
	}
	have := map[string]bool{}
	if old != nil {
		for _, m := range masksOf(attrsOf(old)) {
			have[string(rangePrefix(old.TenantID, m, attrsOf(old)))] = true
		}
	}
	for p := range have {
		if !want[p] {
			gone = append(gone, []byte(p))
		}
	}
	for p := range want {
		if !have[p] {
			added = append(added, []byte(p))
		}
	}
	slices.SortFunc(gone, bytes.Compare)
	slices.SortFunc(added, bytes.Compare)
	return gone, added
}
