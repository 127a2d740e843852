package inbox

import (
	"encoding/binary"
	"encoding/json"

	"folio/persistence"
)

// The quality score looks at a tenant's most recent WindowSize pages (by creation
// time). The window is kept as rows, one per page in it,
//
//	tenant 0x00 createdAt(8) pageId -> outcome(1) decisionMs(8)
//
// plus one aggregate record per tenant (pages, completed, revoked, sum of decision
// times). A new page enters the window and, past WindowSize, the oldest row leaves
// it; a page in the window that changes outcome updates its row. All of it happens
// in the page's commit, so reading the score is one record read, not a scan.

// WindowSize is how many recent pages the quality score covers.
const WindowSize = 100

// Outcomes of a page in the window. Accepted means completed with an approving
// decision; a rejecting decision and a revoke are rejections.
const (
	outcomeNone      byte = 0
	outcomeCompleted byte = 1 // completed and approved
	outcomeRevoked   byte = 2
	outcomeRejected  byte = 3 // completed and rejected
	outcomeNeutral   byte = 4 // completed by a neutral action (decision "none"): no verdict, not counted
)

type qualityAgg struct {
	V          int   `json:"v"`
	Pages      int   `json:"pages"`
	Completed  int   `json:"completed"` // completed and approved
	Rejected   int   `json:"rejected"`  // completed and rejected
	Revoked    int   `json:"revoked"`
	DecisionMs int64 `json:"decision_ms"` // over the completed pages in the window, approved or rejected
}

func outcomeOf(e *Entry) (byte, int64) {
	switch e.PageStatus {
	case "completed":
		switch {
		case e.Decision == "rejected":
			return outcomeRejected, decisionMs(e)
		case e.neutral():
			return outcomeNeutral, 0
		}
		return outcomeCompleted, decisionMs(e)
	case "revoked":
		return outcomeRevoked, 0
	}
	return outcomeNone, 0
}

func encodeOutcome(o byte, ms int64) []byte {
	return binary.BigEndian.AppendUint64([]byte{o}, uint64(ms))
}

func decodeOutcome(v []byte) (byte, int64) {
	if len(v) < 9 {
		return outcomeNone, 0
	}
	return v[0], int64(binary.BigEndian.Uint64(v[1:]))
}

func (q *qualityAgg) apply(o byte, ms int64, sign int) {
	switch o {
	case outcomeCompleted:
		q.Completed += sign
		q.DecisionMs += int64(sign) * ms
	case outcomeRejected:
		q.Rejected += sign
		q.DecisionMs += int64(sign) * ms
	case outcomeRevoked:
		q.Revoked += sign
	}
}

func windowKey(e *Entry) []byte {
	return persistence.Key([]byte(e.TenantID), timeKey(e.CreatedAt), []byte(e.PageID))
}

func loadAgg(tx *persistence.Tx, tenant string) (qualityAgg, error) {
	var q qualityAgg
	if b := tx.Get(bucketQuality, []byte(tenant)); b != nil {
		if err := json.Unmarshal(b, &q); err != nil {
			return q, err
		}
	}
	return q, nil
}

func putAgg(tx *persistence.Tx, tenant string, q qualityAgg) error {
	q.V = schemaV1
	b, err := json.Marshal(q)
	if err != nil {
		return err
	}
	return tx.Put(bucketQuality, []byte(tenant), b)
}

// requality moves the page into, within or out of the tenant's window.
//
// The tenant's aggregate is read first, before any window row: on PostgreSQL a
// write's read locks the row (persistence/postgres.go), so every change to a
// tenant's window holds that tenant's aggregate lock, always taken before the
// window's rows (one order: no deadlock between a page moving within the window
// and one evicting it). The scan for the oldest row below runs under that lock,
// so at read committed it sees every window row committed, and none can be added
// or removed until this commit: no phantom, though the scan locks no row.
func requality(tx *persistence.Tx, old, next *Entry) error {
	o, ms := outcomeOf(next)
	key := windowKey(next)
	q, err := loadAgg(tx, next.TenantID)
	if err != nil {
		return err
	}
	if old != nil {
		prev := tx.Get(bucketWindow, key)
		if prev == nil {
			return nil // the page has left the window (or was never in it)
		}
		po, pms := decodeOutcome(prev)
		if po == o && pms == ms {
			return nil
		}
		q.apply(po, pms, -1)
		q.apply(o, ms, 1)
		if err := tx.Put(bucketWindow, key, encodeOutcome(o, ms)); err != nil {
			return err
		}
		return putAgg(tx, next.TenantID, q)
	}
	if err := tx.Put(bucketWindow, key, encodeOutcome(o, ms)); err != nil {
		return err
	}
	q.Pages++
	q.apply(o, ms, 1)
	if q.Pages > WindowSize {
		var oldest []byte
		var oo byte
		var oms int64
		tx.Scan(bucketWindow, append([]byte(next.TenantID), 0), false, func(k, v []byte) bool {
			oldest = append([]byte(nil), k...)
			oo, oms = decodeOutcome(v)
			return false
		})
		if oldest != nil {
			if err := tx.Delete(bucketWindow, oldest); err != nil {
				return err
			}
			q.Pages--
			q.apply(oo, oms, -1)
		}
	}
	return putAgg(tx, next.TenantID, q)
}

// Score is the quality score of a tenant's most recent pages.
type Score struct {
	TenantID               string  `json:"tenantId"`
	TotalPages             int     `json:"totalPages"`
	TotalDecisions         int     `json:"totalDecisions"`
	AcceptanceRate         float64 `json:"acceptanceRate"`
	DecisionSpeed          float64 `json:"decisionSpeed"`
	AvgDecisionTimeMinutes float64 `json:"avgDecisionTimeMinutes"`
	Score                  float64 `json:"score"`
	Period                 string  `json:"period"`
}

// Quality computes the score from the window's aggregate:
//
//	acceptanceRate = approved / (approved + rejected + revoked) × 100     (0 when none)
//	decisionSpeed  = 100 × max(0, 1 − avg hours publish→completion / 24)   (0 when nothing completed)
//
// where approved and rejected are pages completed with that decision; a page
// completed by a neutral action (decision "none") counts in neither, nor in the
// decision speed.
//
//	score          = 0.7 × acceptanceRate + 0.3 × decisionSpeed
//
// rounded to two decimals.
func Quality(store *persistence.Store, tenantID string) (Score, error) {
	var q qualityAgg
	err := store.View(func(tx *persistence.Tx) error {
		var err error
		q, err = loadAgg(tx, tenantID)
		return err
	})
	s := Score{TenantID: tenantID, TotalPages: q.Pages, TotalDecisions: q.Completed + q.Rejected + q.Revoked, Period: "last_100_pages"}
	var acceptance, speed, avgMin float64
	if s.TotalDecisions > 0 {
		acceptance = float64(q.Completed) / float64(s.TotalDecisions) * 100
	}
	if done := q.Completed + q.Rejected; done > 0 {
		avgMin = float64(q.DecisionMs) / float64(done) / 60_000
		speed = 100 * max(0, 1-avgMin/60/24)
	}
	s.AcceptanceRate = round(acceptance, 2)
	s.DecisionSpeed = round(speed, 2)
	s.AvgDecisionTimeMinutes = round(avgMin, 2)
	s.Score = round(0.7*acceptance+0.3*speed, 2)
	return s, err
}
