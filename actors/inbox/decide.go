package inbox

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strings"
	"time"

	"folio/actors/page"
	"folio/persistence"
)

// "Needs my decision" (docs/behaviour.md): the active pages that wait on a person,
// across the workspaces they belong to. An active page of a workspace waits on the
// assignees of its approval chain's open steps who have not decided them yet (a
// later step's assignees wait their turn), or, without a chain, on any member of
// its workspace when it carries actions.
//
// The decision index keeps one row per page and audience, written in the page's
// own commit (Outlet.Stage) so it never disagrees with the page:
//
//	tenant 0x00 audience due(8) priority(1) createdAt(8) pageId -> Awaited (JSON)
//
// audience is "@" + the assignee's lower-cased address, or "*" for a page any
// member may decide; due is the page's nearest running due time (math.MaxUint64
// when it has none), so a range reads deadline first, then priority, then the
// oldest first. A person's listing reads at most limit rows from each of two
// ranges per workspace (theirs and the workspace's), whatever the store holds.
// What rows a page has is kept beside them (bucketDecideRows) so the next commit
// of the page removes exactly those.

const (
	bucketDecide     = "decide_index" // the rows above
	bucketDecideRows = "decide_rows"  // pageId -> decideRows (JSON): the page's rows and what they say
	bucketDecideN    = "decide_count" // tenant 0x00 audience -> count(8)
	// bucketDecideReach: len-prefixed "@"+address, tenant -> count(8): the
	// workspaces whose pages await a person, theirs or not (reach.go).
	bucketDecideReach = "decide_reach"
)

// Awaited is one page awaiting a person's decision, as the list shows it.
type Awaited struct {
	PageID    string     `json:"page_id"`
	TenantID  string     `json:"tenant_id"`
	Title     string     `json:"title"`
	PageType  string     `json:"page_type,omitempty"`
	Priority  string     `json:"priority"`
	Steps     []string   `json:"steps,omitempty"` // the open steps (empty without a chain)
	DueAt     *time.Time `json:"due_at,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
}

// Overdue tells whether the due time has passed at now.
func (a *Awaited) Overdue(now time.Time) bool { return a.DueAt != nil && !now.Before(*a.DueAt) }

// decideRows is what bucketDecideRows keeps of a page.
type decideRows struct {
	Keys      [][]byte `json:"keys"`
	Audiences []string `json:"audiences,omitempty"` // one per key
	Row       Awaited  `json:"row"`
}

// priorityRank orders priorities most urgent first; an unknown one sorts as normal.
func priorityRank(p string) byte {
	switch p {
	case "urgent":
		return 0
	case "high":
		return 1
	case "low":
		return 3
	}
	return 2
}

// decidePrefix is the range of one audience of a tenant (and its counter key).
func decidePrefix(tenant, audience string) []byte {
	k := append([]byte(tenant), 0)
	return appendStr(k, audience)
}

// AudienceOf is a person's own audience (their address, compared case-blind).
func audienceOf(email string) string { return "@" + strings.ToLower(email) }

const audienceAnyone = "*"

func dueKey(t *time.Time) []byte {
	if t == nil {
		return persistence.U64(math.MaxUint64)
	}
	return persistence.U64(uint64(t.UnixNano()))
}

// decideRowsOf is the rows p should have (none when it awaits nobody).
func decideRowsOf(p *page.Page) *decideRows {
	w := p.AwaitingDecision()
	var audiences []string
	if w.Anyone {
		audiences = append(audiences, audienceAnyone)
	}
	for _, a := range w.Assignees {
		audiences = append(audiences, "@"+a)
	}
	if len(audiences) == 0 {
		return nil
	}
	r := &decideRows{Row: Awaited{PageID: p.ID, TenantID: p.TenantID, Title: p.Title, PageType: p.PageType,
		Priority: p.Priority, Steps: w.Steps, DueAt: utc(p.DueAt()), ExpiresAt: utc(p.ExpiresAt), CreatedAt: p.CreatedAt.UTC()}}
	for _, a := range audiences {
		k := decidePrefix(p.TenantID, a)
		k = append(k, dueKey(r.Row.DueAt)...)
		k = append(k, priorityRank(p.Priority))
		k = append(k, timeKey(r.Row.CreatedAt)...)
		r.Keys = append(r.Keys, append(k, p.ID...))
		r.Audiences = append(r.Audiences, a)
	}
	return r
}

// decideReads are the counters stageDecisions reads to move p's rows from old to
// next (either nil), in the order it reads them.
func decideReads(p *page.Page, old, next *decideRows) []persistence.Read {
	var reads []persistence.Read
	for _, r := range []*decideRows{old, next} {
		if r == nil {
			continue
		}
		for _, k := range r.Keys {
			reads = append(reads, persistence.Read{Bucket: bucketDecideN, Key: countKey(k, p.ID)})
		}
		for _, a := range r.Audiences {
			if a != audienceAnyone {
				reads = append(reads, persistence.Read{Bucket: bucketDecideReach, Key: reachKey(a, p.TenantID)})
			}
		}
	}
	return reads
}

// countKey is the counter of the range a decision row k (of page id) is in: k
// without its due(8), priority(1), createdAt(8) and page id.
func countKey(k []byte, id string) []byte { return k[:len(k)-len(id)-17] }

// stageDecisions moves p's rows in the decision index to what p now awaits, in
// p's commit; a commit that changes nothing the index holds writes nothing. A pure
// function of the transaction.
func stageDecisions(tx *persistence.Tx, p *page.Page) error {
	var old *decideRows
	if b := tx.Get(bucketDecideRows, []byte(p.ID)); b != nil {
		old = &decideRows{}
		if err := json.Unmarshal(b, old); err != nil {
			return err
		}
	}
	next := decideRowsOf(p)
	if old == nil && next == nil {
		return nil
	}
	tx.Prefetch(decideReads(p, old, next)...)
	nb, err := json.Marshal(next)
	if err != nil {
		return err
	}
	if old != nil {
		ob, err := json.Marshal(old)
		if err != nil {
			return err
		}
		if bytes.Equal(ob, nb) {
			return nil
		}
		for _, k := range old.Keys {
			if err := tx.Delete(bucketDecide, k); err != nil {
				return err
			}
			if err := addCount(tx, bucketDecideN, countKey(k, p.ID), -1); err != nil {
				return err
			}
		}
		if err := addReach(tx, p.TenantID, old.Audiences, -1); err != nil {
			return err
		}
	}
	if next == nil {
		return tx.Delete(bucketDecideRows, []byte(p.ID))
	}
	row, err := json.Marshal(&next.Row)
	if err != nil {
		return err
	}
	for _, k := range next.Keys {
		if err := tx.Put(bucketDecide, k, row); err != nil {
			return err
		}
		if err := addCount(tx, bucketDecideN, countKey(k, p.ID), 1); err != nil {
			return err
		}
	}
	if err := addReach(tx, p.TenantID, next.Audiences, 1); err != nil {
		return err
	}
	return tx.Put(bucketDecideRows, []byte(p.ID), nb)
}

// needsDecision lists what waits on the person with address email in the
// workspaces tenants, deadline first (none last), then priority (urgent first),
// then the oldest first; at most limit rows, and Total counts them all (pages
// past their expiry time that the expiry sweep has not ended yet are left out of
// the rows; Total may count them until it does). Reads at most limit rows of two
// ranges per workspace.
func needsDecision(store *persistence.Store, tenants []string, email string, now time.Time, limit int) ([]Awaited, int, error) {
	var out []Awaited
	total := 0
	if email == "" || limit <= 0 {
		return out, 0, nil
	}
	err := store.View(func(tx *persistence.Tx) error {
		for _, t := range tenants {
			for _, aud := range []string{audienceOf(email), audienceAnyone} {
				prefix := decidePrefix(t, aud)
				total += int(persistence.ReadU64(tx.Get(bucketDecideN, prefix)))
				var err error
				if out, err = awaiting(tx, prefix, now, limit, out); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	sort.SliceStable(out, func(i, j int) bool { return awaitedBefore(&out[i], &out[j]) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, total, nil
}

// awaiting appends to out the rows of one range of the decision index (a tenant's
// audience: decidePrefix) in key order, at most limit of them, leaving out those
// past their expiry time (the expiry sweep removes them). A row that does not
// decode stops the scan with its error. Both listings, a workspace's own and the
// pages of other workspaces that reach a person, read through it.
func awaiting(tx *persistence.Tx, prefix []byte, now time.Time, limit int, out []Awaited) ([]Awaited, error) {
	n := 0
	var derr error
	tx.Scan(bucketDecide, prefix, false, func(_, v []byte) bool {
		var a Awaited
		if derr = json.Unmarshal(v, &a); derr != nil {
			return false
		}
		if a.ExpiresAt != nil && !now.Before(*a.ExpiresAt) {
			return true // expired; the sweep removes it
		}
		out = append(out, a)
		n++
		return n < limit
	})
	return out, derr
}

// awaitedBefore is the list's order: due time (none last), priority, creation, id.
func awaitedBefore(a, b *Awaited) bool {
	if c := bytes.Compare(dueKey(a.DueAt), dueKey(b.DueAt)); c != 0 {
		return c < 0
	}
	if ra, rb := priorityRank(a.Priority), priorityRank(b.Priority); ra != rb {
		return ra < rb
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.PageID < b.PageID
}
