package inbox

import (
	"encoding/json"
	"fmt"

	"folio/persistence"
)

// List reads one page of a tenant's inbox, newest first, and the total of the
// filtered set, from the committed state. Without a status filter archived entries
// are left out (DELETE is a soft delete); status=archived lists them.
//
// Cost: one or two counter reads (rangeTotal), then a cursor walk over at most offset+limit index keys
// from whichever end of the range is nearer, then limit entry reads. No entry is
// decoded that is not returned.
func List(store *persistence.Store, tenantID string, f Filter) ([]*Entry, int, error) {
	out := []*Entry{}
	total := 0
	err := store.View(func(tx *persistence.Tx) error {
		prefix := filterRange(tenantID, f)
		total = rangeTotal(tx, tenantID, f)
		if f.Offset >= total || f.Limit <= 0 {
			return nil
		}
		want := min(f.Limit, total-f.Offset)
		ids := make([][]byte, 0, want)
		collect := func(k []byte) { ids = append(ids, entryIDOf(k, prefix)) }
		if fromOldest := total - f.Offset - want; fromOldest < f.Offset {
			// Deep page: walk from the oldest end, then reverse.
			i := 0
			tx.Scan(bucketIndex, prefix, false, func(k, _ []byte) bool {
				if i >= fromOldest {
					collect(k)
				}
				i++
				return len(ids) < want
			})
			for l, r := 0, len(ids)-1; l < r; l, r = l+1, r-1 {
				ids[l], ids[r] = ids[r], ids[l]
			}
		} else {
			i := 0
			tx.Scan(bucketIndex, prefix, true, func(k, _ []byte) bool {
				if i >= f.Offset {
					collect(k)
				}
				i++
				return len(ids) < want
			})
		}
		for _, id := range ids {
			b := tx.Get(bucketEntries, id)
			if b == nil {
				continue
			}
			e := &Entry{}
			if err := json.Unmarshal(b, e); err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, total, err
}

// Get reads one entry of a tenant (nil when unknown or another tenant's); err when
// the store did not answer (never "unknown").
func Get(store *persistence.Store, tenantID, entryID string) (*Entry, error) {
	var e *Entry
	if err := store.View(func(tx *persistence.Tx) error {
		e = loadEntry(tx, entryID)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("inbox: entry %s: %w", entryID, err)
	}
	if e == nil || e.TenantID != tenantID {
		return nil, nil
	}
	return e, nil
}
