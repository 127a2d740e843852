package auditlog

import (
	"encoding/json"
	"time"

	"folio/actors/page"
	"folio/persistence"
)

// Receipt is the receipt of execution exec of tenant's page pageID, as read after
// its commit: the audit entry that recorded it, the latest signed checkpoint
// (whose tree includes the entry, committed before this read) and the entry's
// inclusion proof in that tree. nil when no entry of the page records exec (an
// execution recorded before receipts had the same entry; a chain still catching up
// with its tree has the entry but no leaf yet: then no checkpoint nor proof).
func (l *Log) Receipt(tenant, pageID string, exec page.Execution) (*page.Receipt, error) {
	at := exec.ExecutedAt.UTC().Format(time.RFC3339Nano)
	rec, ok, err := l.store.LastAuditInGroup(tenant, pageID, func(r persistence.AuditRecord) bool {
		var e struct {
			EventType string `json:"event_type"`
			Timestamp string `json:"timestamp"`
			Details   struct {
				ActionID string `json:"action_id"`
			} `json:"details"`
		}
		return json.Unmarshal(r.Entry, &e) == nil && e.EventType == "action.executed" && e.Timestamp == at && e.Details.ActionID == exec.ActionID
	})
	if err != nil || !ok {
		return nil, err
	}
	rc := page.NewReceipt(rec, exec.Verdict)
	cp, err := l.Latest(tenant)
	if err != nil {
		return nil, err
	}
	if cp.Size < rc.Entry { // the tree is still catching up with an older chain
		return rc, nil
	}
	inc, err := l.Inclusion(tenant, rc.Entry, cp.Size)
	if err != nil {
		return nil, err
	}
	if inc.RootHash != cp.Root { // cannot happen: the tree only grows
		return rc, nil
	}
	note := string(cp.Note)
	rc.Checkpoint, rc.Proof, rc.ProofURL = &note, inc.Proof, page.ProofPath(rc.Entry, cp.Size)
	return rc, nil
}
