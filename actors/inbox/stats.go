package inbox

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"folio/persistence"
)

// Dashboard counters. For every tenant and every UTC hour in which it created
// pages, one record counts those pages by their current status, with the sum of
// their decision times (publish -> completion) for the completed ones; one more
// record holds the same for all time. The outlet moves a page between counters in
// the page's own commit, so a dashboard is the sum of at most 30×24+1 small records
// (one range read), never a scan of pages.

// counters are the per-hour and all-time tallies.
type counters struct {
	V          int   `json:"v"`
	Total      int   `json:"total"`
	Draft      int   `json:"draft"`
	Active     int   `json:"active"`
	Completed  int   `json:"completed"`
	Revoked    int   `json:"revoked"`
	Expired    int   `json:"expired"`
	DecisionMs int64 `json:"decision_ms"` // sum over completed pages of completedAt - publishedAt
	Rejected   int   `json:"rejected"`    // completed pages whose decision rejected (counted in Completed too)
	// Neutral counts completed pages whose decision neither approved nor rejected
	// (an action declared decision:"none"; counted in Completed too).
	Neutral int `json:"neutral,omitempty"`
}

func (c *counters) add(o *counters) {
	c.Total += o.Total
	c.Draft += o.Draft
	c.Active += o.Active
	c.Completed += o.Completed
	c.Revoked += o.Revoked
	c.Expired += o.Expired
	c.DecisionMs += o.DecisionMs
	c.Rejected += o.Rejected
	c.Neutral += o.Neutral
}

// contribution is what one entry adds to the counters of its creation hour.
func contribution(e *Entry, sign int) counters {
	c := counters{Total: sign}
	switch e.PageStatus {
	case "draft":
		c.Draft = sign
	case "active":
		c.Active = sign
	case "completed":
		c.Completed = sign
		c.DecisionMs = int64(sign) * decisionMs(e)
		switch {
		case e.Decision == "rejected":
			c.Rejected = sign
		case e.neutral():
			c.Neutral = sign
		}
	case "revoked":
		c.Revoked = sign
	case "expired":
		c.Expired = sign
	}
	return c
}

// decisionMs is the time from publishing to completion (0 when either is missing).
func decisionMs(e *Entry) int64 {
	if e.PublishedAt == nil || e.CompletedAt == nil {
		return 0
	}
	d := e.CompletedAt.Sub(*e.PublishedAt).Milliseconds()
	return max(d, 0)
}

func hourKey(tenant string, at time.Time) []byte {
	h := at.UTC().Truncate(time.Hour)
	return persistence.Key([]byte(tenant), persistence.U64(uint64(h.Unix())))
}

func addCounters(tx *persistence.Tx, bucket string, key []byte, delta counters) error {
	c, err := decodeCounters(tx.Get(bucket, key))
	if err != nil {
		return err
	}
	c.add(&delta)
	return tx.Put(bucket, key, c.encode())
}

// Counters are stored as countersV3 followed by the eight tallies (int64, big
// endian): every page change rewrites two of them inside the store's single commit
// loop, where a JSON round trip cost more than the rest of the inbox's writes.
// Version 4 adds Neutral as a ninth tally. Records of version 3 (no Neutral), 2
// (seven tallies, no Rejected) and 1 (JSON) are still read; the next change
// rewrites them.
const (
	countersV2 = 2
	countersV3 = 3
	countersV4 = 4
)

func (c *counters) encode() []byte {
	out := make([]byte, 1, 1+9*8)
	out[0] = countersV4
	for _, n := range []int64{int64(c.Total), int64(c.Draft), int64(c.Active), int64(c.Completed), int64(c.Revoked), int64(c.Expired), c.DecisionMs, int64(c.Rejected), int64(c.Neutral)} {
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	return out
}

// decodeCounters reads a stored record; nil is all zeros.
func decodeCounters(b []byte) (counters, error) {
	var c counters
	switch {
	case len(b) == 0:
		return c, nil
	case b[0] == '{':
		err := json.Unmarshal(b, &c)
		return c, err
	case !(b[0] == countersV2 && len(b) == 1+7*8) && !(b[0] == countersV3 && len(b) == 1+8*8) && !(b[0] == countersV4 && len(b) == 1+9*8):
		return c, fmt.Errorf("inbox: counters record of %d bytes, version %d", len(b), b[0])
	}
	n := func(i int) int64 { return int64(binary.BigEndian.Uint64(b[1+8*i:])) }
	c = counters{V: int(b[0]), Total: int(n(0)), Draft: int(n(1)), Active: int(n(2)), Completed: int(n(3)),
		Revoked: int(n(4)), Expired: int(n(5)), DecisionMs: n(6)}
	if b[0] >= countersV3 {
		c.Rejected = int(n(7))
	}
	if b[0] >= countersV4 {
		c.Neutral = int(n(8))
	}
	return c, nil
}

// restat moves an entry's contribution from old (nil: new entry) to next.
func restat(tx *persistence.Tx, old, next *Entry) error {
	var delta counters
	if old != nil {
		if old.PageStatus == next.PageStatus && old.Decision == next.Decision && decisionMs(old) == decisionMs(next) {
			return nil
		}
		delta = contribution(old, -1)
	}
	n := contribution(next, 1)
	delta.add(&n)
	if err := addCounters(tx, bucketHours, hourKey(next.TenantID, next.CreatedAt), delta); err != nil {
		return err
	}
	return addCounters(tx, bucketAll, []byte(next.TenantID), delta)
}

// Periods of the dashboard.
var Periods = map[string]time.Duration{"7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour, "all": 0}

// Metrics are the dashboard's numbers for one period.
type Metrics struct {
	TotalPages             int     `json:"total_pages"`
	ActivePages            int     `json:"active_pages"`
	CompletedPages         int     `json:"completed_pages"`
	AvgResolutionTimeHours float64 `json:"avg_resolution_time_hours"`
	ApprovalRate           float64 `json:"approval_rate"`
}

// Dashboard sums the counters of pages created in the period: "7d" and "30d" start
// at the beginning of the UTC hour that was 7 (30) days before now; "all" is every
// page. Resolution time is publish -> completion averaged over completed pages, in
// hours; approval rate is approved / (approved + rejected + revoked), where approved
// and rejected are the completed pages whose decision approved or rejected (a page
// completed by a neutral action, decision:"none", counts in neither); 0 when there
// are none.
func Dashboard(store *persistence.Store, tenantID, period string, now time.Time) (Metrics, error) {
	var sum counters
	err := store.View(func(tx *persistence.Tx) error {
		d := Periods[period]
		if d == 0 {
			var err error
			sum, err = decodeCounters(tx.Get(bucketAll, []byte(tenantID)))
			return err
		}
		from := hourKey(tenantID, now.Add(-d))
		to := persistence.Key([]byte(tenantID), persistence.U64(math.MaxUint64))
		var derr error
		tx.ScanRange(bucketHours, from, to, func(_, v []byte) bool {
			var c counters
			if c, derr = decodeCounters(v); derr != nil {
				return false
			}
			sum.add(&c)
			return true
		})
		return derr
	})
	m := Metrics{TotalPages: sum.Total, ActivePages: sum.Active, CompletedPages: sum.Completed}
	if sum.Completed > 0 {
		m.AvgResolutionTimeHours = round(float64(sum.DecisionMs)/float64(sum.Completed)/3_600_000, 2)
	}
	if decided := sum.Completed - sum.Neutral + sum.Revoked; decided > 0 {
		m.ApprovalRate = round(float64(sum.Completed-sum.Rejected-sum.Neutral)/float64(decided), 4)
	}
	return m, err
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}
