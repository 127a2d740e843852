package page

import (
	"encoding/json"
	"time"

	"folio/actors/model/audit"
	"folio/persistence"
)

// Buckets owned by pages.
const (
	bucketPages       = "pages"        // pageId -> Page (JSON)
	bucketTenantPages = "tenant_pages" // tenantId 0x00 createdAt(8) 0x00 pageId -> nil
	bucketShortCodes  = "short_codes"  // code -> pageId
	bucketExpiry      = "expiry"       // expiresAt(8) 0x00 pageId -> nil, for active pages only
)

// load reads a page; nil when it does not exist.
func load(store *persistence.Store, id string) (*Page, error) {
	var p *Page
	err := store.View(func(tx *persistence.Tx) error {
		b := tx.Get(bucketPages, []byte(id))
		if b == nil {
			return nil
		}
		p = &Page{}
		return json.Unmarshal(b, p)
	})
	return p, err
}

// commit writes next (replacing prev, nil on creation), its audit entries, every
// index that depends on it, the outlets' rows for its events and extra, in one
// transaction: the change and everything it causes are durable together or not at all.
// Everything that can be encoded without the transaction is encoded before it: the
// store has one commit loop, and time spent in it is time every writer waits.
func commit(d *Deps, prev, next *Page, entries []audit.Entry, events []Event, extra func(*persistence.Tx) error) error {
	body, enc, err := encode(next, entries, events)
	if err != nil {
		return err
	}
	return d.Store.Update(func(tx *persistence.Tx) error {
		return write(tx, d, prev, next, body, enc, events, extra)
	})
}

// encode encodes the page record and the audit entries and seals the events.
func encode(next *Page, entries []audit.Entry, events []Event) ([]byte, []audit.Encoded, error) {
	body, err := json.Marshal(next)
	if err != nil {
		return nil, nil, err
	}
	enc, err := audit.EncodeAll(entries)
	if err != nil {
		return nil, nil, err
	}
	for i := range events {
		events[i].Seal()
	}
	return body, enc, nil
}

// write is commit's transaction body (also used to stage new pages created outside
// their actor, see Prepared).
func write(tx *persistence.Tx, d *Deps, prev, next *Page, body []byte, entries []audit.Encoded, events []Event, extra func(*persistence.Tx) error) error {
	if err := tx.Put(bucketPages, []byte(next.ID), body); err != nil {
		return err
	}
	if prev == nil {
		if err := tx.Put(bucketTenantPages, tenantPageKey(next), nil); err != nil {
			return err
		}
		if err := tx.Put(bucketShortCodes, []byte(next.ShortCode), []byte(next.ID)); err != nil {
			return err
		}
	}
	if old, nw := expiryKey(prev), expiryKey(next); string(old) != string(nw) {
		if old != nil {
			if err := tx.Delete(bucketExpiry, old); err != nil {
				return err
			}
		}
		if nw != nil {
			if err := tx.Put(bucketExpiry, nw, nil); err != nil {
				return err
			}
		}
	}
	if err := appendAudits(tx, next.TenantID, entries); err != nil {
		return err
	}
	if len(events) > 0 {
		for _, o := range d.Outlets {
			if err := o.Stage(tx, next, events); err != nil {
				return err
			}
		}
	}
	if extra != nil {
		return extra(tx)
	}
	return nil
}

func tenantPageKey(p *Page) []byte {
	return persistence.Key([]byte(p.TenantID), persistence.U64(uint64(p.CreatedAt.UnixNano())), []byte(p.ID))
}

// expiryKey is the page's row in the expiry index, nil when it is not due to expire.
func expiryKey(p *Page) []byte {
	if p == nil || p.Status != Active || p.ExpiresAt == nil {
		return nil
	}
	return persistence.Key(persistence.U64(uint64(p.ExpiresAt.UnixNano())), []byte(p.ID))
}

// ResolveShortCode finds the page a short code points to.
func ResolveShortCode(store *persistence.Store, code string) (string, bool) {
	var id []byte
	_ = store.View(func(tx *persistence.Tx) error {
		id = tx.Get(bucketShortCodes, []byte(code))
		return nil
	})
	return string(id), id != nil
}

// DueForExpiry lists pages whose expiry time is at or before now (at most limit).
func DueForExpiry(store *persistence.Store, now time.Time, limit int) []string {
	var out []string
	_ = store.View(func(tx *persistence.Tx) error {
		end := persistence.U64(uint64(now.UnixNano()) + 1)
		tx.ScanRange(bucketExpiry, nil, end, func(k, _ []byte) bool {
			out = append(out, string(k[9:]))
			return len(out) < limit
		})
		return nil
	})
	return out
}

// appendAudits links encoded entries, in order, to the tenant's chain inside tx,
// grouped by page for the page's audit listing.
func appendAudits(tx *persistence.Tx, tenant string, es []audit.Encoded) error {
	if len(es) == 0 {
		return nil
	}
	raw, groups := make([][]byte, len(es)), make([]string, len(es))
	for i, e := range es {
		raw[i], groups[i] = e.JSON, e.PageID
	}
	_, _, err := tx.AppendAuditsGrouped(tenant, raw, groups)
	return err
}
