package page

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
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
	// bucketPageRevs counts the commits of each page record (pageId -> rev(8); absent:
	// 0, a page stored before revisions were counted). A commit writes only over the
	// revision its actor read, so two nodes holding the same page never both decide.
	bucketPageRevs = "page_revs"
)

// errStale fails a commit whose page was committed by someone else (another node)
// since the actor read it; the actor reloads the page and decides again (actor.go).
var errStale = errors.New("page: the stored page changed since it was read")

// load reads a page and its revision; nil when it does not exist.
func load(store *persistence.Store, id string) (p *Page, rev uint64, err error) {
	err = store.View(func(tx *persistence.Tx) error {
		rev = storedRev(tx, id)
		b := tx.Get(bucketPages, []byte(id))
		if b == nil {
			return nil
		}
		p = &Page{}
		return json.Unmarshal(b, p)
	})
	return p, rev, err
}

// revision reads the page's committed revision.
func revision(store *persistence.Store, id string) (uint64, error) {
	b, err := store.Get(bucketPageRevs, []byte(id))
	return revOf(b), err
}

// storedRev is the page's committed revision (0 when none is stored).
func storedRev(tx *persistence.Tx, id string) uint64 {
	return revOf(tx.Get(bucketPageRevs, []byte(id)))
}

// revOf decodes a stored revision (0 for none).
func revOf(b []byte) uint64 {
	if len(b) == 8 {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// commit writes next (replacing prev, nil on creation, read at revision rev), its
// audit entries, every index that depends on it, the outlets' rows for its events and
// extra, in one transaction: the change and everything it causes are durable together
// or not at all, and only over the revision it was decided on (errStale otherwise).
// Everything that can be encoded without the transaction is encoded before it: the
// store has one commit loop, and time spent in it is time every writer waits.
func commit(d *Deps, rev uint64, prev, next *Page, entries []audit.Entry, events []Event, extra func(*persistence.Tx) error) error {
	body, enc, err := encode(next, entries, events)
	if err != nil {
		return err
	}
	return d.Store.UpdateOrdered(next.TenantID, func(tx *persistence.Tx) error {
		return write(tx, d, rev, prev, next, body, enc, events, extra)
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
// their actor, see Prepared). The revision check reads the page's row inside the
// transaction, so on PostgreSQL (serializable) a concurrent commit of the same page
// makes one of the two retry, and the retry finds the new revision.
func write(tx *persistence.Tx, d *Deps, rev uint64, prev, next *Page, body []byte, entries []audit.Encoded, events []Event, extra func(*persistence.Tx) error) error {
	// The revision, then the chain's head: the order every writer locks them in;
	// then what the outlets read first, rows of this page and its workspace that
	// those two locks already guard.
	reads := []persistence.Read{{Bucket: bucketPageRevs, Key: []byte(next.ID)}}
	if prev == nil { // a creation: nothing may be stored under the id (assumeNew)
		reads = append(reads, persistence.Read{Bucket: bucketPages, Key: []byte(next.ID)})
	}
	if len(entries) > 0 {
		reads = append(reads, tx.ChainReads(next.TenantID)...)
	}
	if len(events) > 0 {
		for _, o := range d.Outlets {
			if r, ok := o.(Reader); ok {
				reads = append(reads, r.Reads(next, events)...)
			}
		}
	}
	tx.Prefetch(reads...)
	if storedRev(tx, next.ID) != rev || prev == nil && tx.Get(bucketPages, []byte(next.ID)) != nil {
		return errStale
	}
	if err := tx.Put(bucketPageRevs, []byte(next.ID), persistence.U64(rev+1)); err != nil {
		return err
	}
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
	if err := writeDeadlineIndex(tx, prev, next); err != nil {
		return err
	}
	if old, nw := filesDueKey(prev), filesDueKey(next); string(old) != string(nw) {
		if old != nil {
			if err := tx.Delete(bucketFilesDue, old); err != nil {
				return err
			}
		}
		if nw != nil {
			if err := tx.Put(bucketFilesDue, nw, nil); err != nil {
				return err
			}
		}
	}
	first, err := appendAudits(tx, next.TenantID, entries)
	if err != nil {
		return err
	}
	if !tx.AuditTreeOff() {
		stampReceipts(tx, next.TenantID, first, entries, events)
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
	return persistence.Ordered{Scope: p.TenantID, N: persistence.Nanos(p.CreatedAt), ID: p.ID}.Key()
}

// expiryKey is the page's row in the expiry index, nil when it is not due to expire.
func expiryKey(p *Page) []byte {
	if p == nil || p.Status != Active || p.ExpiresAt == nil {
		return nil
	}
	return persistence.DueKey(*p.ExpiresAt, p.ID)
}

// ResolveShortCode finds the page a short code points to: ok false when none does.
// err is a failed store read (persistence.ErrUnavailable), never "no such code".
func ResolveShortCode(store *persistence.Store, code string) (id string, ok bool, err error) {
	var b []byte
	if err := store.View(func(tx *persistence.Tx) error {
		b = tx.Get(bucketShortCodes, []byte(code))
		return nil
	}); err != nil {
		return "", false, fmt.Errorf("page: short code: %w", err)
	}
	return string(b), b != nil, nil
}

// DueForExpiry lists pages whose expiry time is at or before now (at most limit).
// err is a store that did not answer (nothing is due is no error).
func DueForExpiry(store *persistence.Store, now time.Time, limit int) ([]string, error) {
	var out []string
	err := store.View(func(tx *persistence.Tx) error {
		for _, o := range tx.Due(bucketExpiry, now, limit) {
			out = append(out, o.ID)
		}
		return nil
	})
	return out, err
}

// appendAudits links encoded entries, in order, to the tenant's chain inside tx,
// grouped by page for the page's audit listing.
// It returns the sequence of the first.
func appendAudits(tx *persistence.Tx, tenant string, es []audit.Encoded) (uint64, error) {
	if len(es) == 0 {
		return 0, nil
	}
	raw, groups := make([][]byte, len(es)), make([]string, len(es))
	for i, e := range es {
		raw[i], groups[i] = e.JSON, e.PageID
	}
	first, _, err := tx.AppendAuditsGrouped(tenant, raw, groups)
	return first, err
}
