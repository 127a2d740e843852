package auditlog

import (
	"encoding/json"
	"fmt"

	"folio/actors/page"

	"golang.org/x/mod/sumdb/tlog"
)

// VerifyReceipt checks a decision's receipt offline, with nothing but the
// verifier key vkey, a signed checkpoint and the entry's inclusion proof in that
// checkpoint's tree (the receipt's own when it carries them: pass nil). In order:
//
//  1. the entry bytes hash to the receipt's leaf hash, and the leaf is entry-1;
//  2. the entry records action.executed, on the receipt's page version and
//     content hash (what the receipt claims is what the log holds);
//  3. the checkpoint is signed by vkey;
//  4. its tree is large enough to hold the entry, and the proof leads from the
//     leaf to the checkpoint's root (RFC 6962 inclusion).
//
// checked lists, for a person, each step that held; err is the first that did not.
// The chain hash is not checked here: it needs the entries before (folio audit
// verify over an export does that).
func VerifyReceipt(r page.Receipt, vkey string, checkpoint []byte, proof *Inclusion) (checked []string, err error) {
	if r.Entry < 1 || r.LeafIndex != r.Entry-1 {
		return checked, fmt.Errorf("receipt: leaf_index %d is not entry %d - 1", r.LeafIndex, r.Entry)
	}
	if len(r.EntryBase64) == 0 {
		return checked, fmt.Errorf("receipt: it holds no entry bytes (entry_base64)")
	}
	if tlog.RecordHash(r.EntryBase64) != r.LeafHash {
		return checked, fmt.Errorf("receipt: the entry bytes do not hash to leaf_hash: the entry or the hash was changed")
	}
	checked = append(checked, fmt.Sprintf("entry %d's bytes hash to leaf %d's hash %s", r.Entry, r.LeafIndex, r.LeafHash))
	var e struct {
		EventType string `json:"event_type"`
		PageID    string `json:"page_id"`
		Details   struct {
			PageVersion int    `json:"page_version"`
			ContentHash string `json:"content_hash"`
			ActionID    string `json:"action_id"`
		} `json:"details"`
	}
	switch {
	case json.Unmarshal(r.EntryBase64, &e) != nil:
		return checked, fmt.Errorf("receipt: the entry is not an audit entry (JSON)")
	case e.EventType != "action.executed":
		return checked, fmt.Errorf("receipt: the entry records %q, not action.executed", e.EventType)
	case e.Details.PageVersion != r.PageVersion || e.Details.ContentHash != r.ContentHash:
		return checked, fmt.Errorf("receipt: it says page_version %d and content_hash %q but its entry records %d and %q",
			r.PageVersion, r.ContentHash, e.Details.PageVersion, e.Details.ContentHash)
	}
	checked = append(checked, fmt.Sprintf("the entry records action %s on page %s, version %d, content %s",
		e.Details.ActionID, e.PageID, r.PageVersion, r.ContentHash))

	if checkpoint == nil && r.Checkpoint != nil {
		checkpoint = []byte(*r.Checkpoint)
	}
	if checkpoint == nil {
		return checked, fmt.Errorf("no checkpoint: the receipt carries none; fetch GET /v1/audit/checkpoint (or pass --server)")
	}
	origin, size, root, err := OpenCheckpoint(checkpoint, vkey)
	if err != nil {
		return checked, err
	}
	checked = append(checked, fmt.Sprintf("checkpoint of %s, tree size %d, is signed by the key", origin, size))

	hashes := r.Proof
	if proof != nil {
		switch {
		case proof.Entry != r.Entry || proof.LeafHash != r.LeafHash:
			return checked, fmt.Errorf("the inclusion proof is for entry %d (leaf hash %s), not this receipt's entry %d", proof.Entry, proof.LeafHash, r.Entry)
		case proof.Size != size:
			return checked, fmt.Errorf("the inclusion proof is in the tree of %d entries but the checkpoint's has %d: fetch it with size=%d", proof.Size, size, size)
		}
		hashes = proof.Proof
	} else if r.Checkpoint == nil || string(checkpoint) != *r.Checkpoint {
		return checked, fmt.Errorf("no inclusion proof for this checkpoint: fetch GET %s", page.ProofPath(r.Entry, size))
	}
	if r.Entry > size {
		return checked, fmt.Errorf("the checkpoint's tree has %d entries, not yet entry %d: use a later checkpoint", size, r.Entry)
	}
	if err := tlog.CheckRecord(hashes, size, root, r.LeafIndex, r.LeafHash); err != nil {
		return checked, fmt.Errorf("the inclusion proof does not lead from leaf %d to the checkpoint's root: %v", r.LeafIndex, err)
	}
	checked = append(checked, fmt.Sprintf("leaf %d is in the signed tree of %d entries (inclusion proof of %d hashes)", r.LeafIndex, size, len(hashes)))
	return checked, nil
}
