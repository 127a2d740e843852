// Package audit is the domain side of the tenant hash chain: the entry a page
// operation records, written in the same transaction as the change it describes,
// plus the per-page index used by the audit listing.
package audit

import (
	"encoding/json"
	"time"

	"folio/actors/model/ids"
	"folio/persistence"
)

const pageIndex = "audit_by_page" // pageId 0x00 seq(8) -> nil

// Entry is one audit record as hashed and as listed (without ChainHash, which is
// derived from the chain and added on reads).
type Entry struct {
	EventID   string         `json:"event_id"`
	EventType string         `json:"event_type"`
	Timestamp string         `json:"timestamp"`
	Actor     string         `json:"actor"`
	PageID    string         `json:"page_id,omitempty"`
	Details   map[string]any `json:"details,omitempty"`
	ChainHash string         `json:"chain_hash,omitempty"`
}

// New builds an entry with a fresh id.
func New(eventType, actor, pageID string, at time.Time, details map[string]any) Entry {
	return Entry{
		EventID:   ids.New("aud"),
		EventType: eventType,
		Timestamp: at.UTC().Format(time.RFC3339Nano),
		Actor:     actor,
		PageID:    pageID,
		Details:   details,
	}
}

// Encoded is an entry as hashed: encoded before the write transaction, so the store's
// single commit loop only links it.
type Encoded struct {
	PageID string
	JSON   []byte
}

// Encode encodes e for AppendEncoded.
func Encode(e Entry) (Encoded, error) {
	e.ChainHash = ""
	b, err := json.Marshal(e)
	return Encoded{PageID: e.PageID, JSON: b}, err
}

// EncodeAll encodes entries in order.
func EncodeAll(entries []Entry) ([]Encoded, error) {
	out := make([]Encoded, len(entries))
	for i, e := range entries {
		var err error
		if out[i], err = Encode(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Append links e to tenant's chain inside tx and indexes it under its page.
func Append(tx *persistence.Tx, tenant string, e Entry) error {
	enc, err := Encode(e)
	if err != nil {
		return err
	}
	return AppendEncoded(tx, tenant, enc)
}

// AppendEncoded links encoded entries, in order, to tenant's chain inside tx and
// indexes each under its page.
func AppendEncoded(tx *persistence.Tx, tenant string, es ...Encoded) error {
	if len(es) == 0 {
		return nil
	}
	raw := make([][]byte, len(es))
	for i, e := range es {
		raw[i] = e.JSON
	}
	first, _, err := tx.AppendAudits(tenant, raw)
	if err != nil {
		return err
	}
	for i, e := range es {
		if e.PageID != "" {
			if err := tx.Put(pageIndex, persistence.Key([]byte(e.PageID), persistence.U64(first+uint64(i))), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// Page lists a page's entries oldest first: page is 1-based, perPage its size.
func Page(store *persistence.Store, tenant, pageID string, page, perPage int) (items []Entry, total int, err error) {
	items = []Entry{}
	skip := (page - 1) * perPage
	err = store.View(func(tx *persistence.Tx) error {
		prefix := append([]byte(pageID), 0)
		tx.Scan(pageIndex, prefix, false, func(k, _ []byte) bool {
			total++
			if total <= skip || len(items) >= perPage {
				return true
			}
			rec, ok := tx.AuditRecordAt(tenant, persistence.ReadU64(k[len(prefix):]))
			if !ok {
				return true
			}
			var e Entry
			if json.Unmarshal(rec.Entry, &e) == nil {
				e.ChainHash = rec.Hash
				items = append(items, e)
			}
			return true
		})
		return nil
	})
	return items, total, err
}
