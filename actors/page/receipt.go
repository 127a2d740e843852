package page

import (
	"strconv"

	"folio/actors/model/audit"
	"folio/persistence"

	"golang.org/x/mod/sumdb/tlog"
)

// Receipts. A decision's action.executed event (the callback, the agent's stream)
// and the wait answer carry a receipt: the audit entry that recorded the decision,
// its place in the tenant's audit tree, and the content version and hash decided
// on. With the entry's exact bytes in it, a third party checks offline (folio audit
// verify-receipt) that the entry says what the receipt says and that a checkpoint
// signed by the server's key includes it.
//
// The receipt is stamped inside the commit transaction, after the entry was
// linked, so it names the entry's real sequence; no checkpoint can be signed for a
// tree that is not committed yet, so a receipt made there names the proof to fetch
// (ProofURL) instead. One read after the commit (the wait answer) adds a signed
// checkpoint and the inclusion proof in its tree.
//
// The fields are declared in byte order of their keys, as every payload is.
type Receipt struct {
	ChainHash   string    `json:"chain_hash"`   // the entry's hash in the tenant's audit chain
	Checkpoint  *string   `json:"checkpoint"`   // a signed checkpoint whose tree includes the entry; null: fetch ProofURL
	ContentHash string    `json:"content_hash"` // the content decided on (Verdict)
	Entry       int64     `json:"entry"`        // the entry's sequence in the chain, from 1
	EntryBase64 []byte    `json:"entry_base64"` // the entry's exact bytes, which the chain and the tree hash
	LeafHash    tlog.Hash `json:"leaf_hash"`    // SHA-256(0x00 || entry bytes), base64
	LeafIndex   int64     `json:"leaf_index"`   // the entry's leaf in the tenant's audit tree: Entry-1
	PageVersion int       `json:"page_version"` // the content version decided on (Verdict)
	// Proof is the inclusion proof of the leaf in Checkpoint's tree (null without one).
	Proof    []tlog.Hash `json:"proof"`
	ProofURL string      `json:"proof_url"` // where to fetch the inclusion proof, relative to the API
}

// ProofPath is the API path of the inclusion proof of entry (in the tree of size
// leaves; 0: the latest).
func ProofPath(entry, size int64) string {
	p := "/v1/audit/proof/inclusion?entry=" + strconv.FormatInt(entry, 10)
	if size > 0 {
		p += "&size=" + strconv.FormatInt(size, 10)
	}
	return p
}

// NewReceipt is the receipt of the audit record rec for verdict v.
func NewReceipt(rec persistence.AuditRecord, v Verdict) *Receipt {
	seq := int64(rec.Seq)
	return &Receipt{ChainHash: rec.Hash, ContentHash: v.ContentHash, Entry: seq, EntryBase64: rec.Entry,
		LeafHash: tlog.RecordHash(rec.Entry), LeafIndex: seq - 1, PageVersion: v.PageVersion, ProofURL: ProofPath(seq, 0)}
}

// stampReceipts gives each action.executed event of a commit the receipt of its
// audit entry: the k-th such event is recorded by the k-th action.executed entry,
// linked from sequence first on. Events that get one are sealed again. It reads
// and writes only through tx and the events, so the commit may run it again.
func stampReceipts(tx *persistence.Tx, tenant string, first uint64, entries []audit.Encoded, events []Event) {
	var seqs []uint64
	for i, e := range entries {
		if e.Type == "action.executed" {
			seqs = append(seqs, first+uint64(i))
		}
	}
	for i := range events {
		d, ok := events[i].Data.(ActionExecuted)
		if !ok || len(seqs) == 0 {
			continue
		}
		rec, found := tx.AuditRecordAt(tenant, seqs[0])
		seqs = seqs[1:]
		if !found {
			continue
		}
		d.Receipt = NewReceipt(rec, d.Verdict)
		events[i].Data = d
		events[i].body = nil
		events[i].Seal()
	}
}
