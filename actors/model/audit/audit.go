// Package audit is the domain side of the tenant hash chain: the entry an operation
// records (written in the same transaction as the change it describes, through
// persistence's chain, grouped by page for the page's audit listing) and its
// encoding. It is pure: the chain itself is persistence's.
package audit

import (
	"encoding/json"
	"time"

	"folio/actors/model/ids"
)

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
	Type   string // the entry's event_type
	JSON   []byte
}

// Encode encodes e for AppendEncoded.
func Encode(e Entry) (Encoded, error) {
	e.ChainHash = ""
	b, err := json.Marshal(e)
	return Encoded{PageID: e.PageID, Type: e.EventType, JSON: b}, err
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

// Decode reads an entry back from the exact bytes the chain stored, with the hash
// the chain gave it.
func Decode(entry []byte, hash string) (Entry, bool) {
	var e Entry
	if json.Unmarshal(entry, &e) != nil {
		return Entry{}, false
	}
	e.ChainHash = hash
	return e, true
}
