// Package blocks is the block catalog: the stored shape of a content block and the
// advisory validation of its data. It is pure: no actors, no HTTP, no storage.
package blocks

import "encoding/json"

// Block is one content block as stored on a page and sent on the wire.
// Data is kept as the exact JSON the agent sent, so a block is stored as sent
// even when its data draws warnings.
type Block struct {
	ID    string          `json:"id,omitempty"`
	Type  string          `json:"type"`
	Data  json.RawMessage `json:"data"`
	Group string          `json:"group,omitempty"`
	Tab   string          `json:"tab,omitempty"`
	// Editable: the reviewer may edit the block before approving (editable.go);
	// only top-level blocks of an editable type keep it.
	Editable bool `json:"editable,omitempty"`
}
