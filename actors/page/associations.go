package page

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"folio/actors/model/audit"
	"folio/actors/model/fault"
	"folio/actors/model/ids"
	"folio/persistence"
)

// Associations are typed links between two pages of one tenant (spec 2.5, 4.1).
// The source page's actor creates them, so the uniqueness check and the write are
// one step per source page; the target is read from storage (its tenant never
// changes). They are stored once with an index by source and one by target.

// Buckets owned by associations.
const (
	bucketAssociations = "associations"      // id -> Association (JSON)
	bucketAssocSource  = "assoc_by_source"   // sourceId 0x00 createdAt(8) 0x00 id -> nil
	bucketAssocTarget  = "assoc_by_target"   // targetId 0x00 createdAt(8) 0x00 id -> nil
	bucketAssocUnique  = "assoc_unique"      // sourceId 0x00 relationType 0x00 targetId -> id
	maxAssociations    = 1000                // from one source page
	maxListed          = 2 * maxAssociations // per listing
	relationTypeList   = "follow_up, duplicate, related, blocks, supersedes"
)

// RelationTypes are the allowed relation types.
var RelationTypes = []string{"follow_up", "duplicate", "related", "blocks", "supersedes"}

// Association is one stored link, in its wire shape.
type Association struct {
	V            int       `json:"v"`
	ID           string    `json:"id"`
	SourcePageID string    `json:"sourcePageId"`
	TargetPageID string    `json:"targetPageId"`
	RelationType string    `json:"relationType"`
	TenantID     string    `json:"tenantId"`
	CreatedAt    time.Time `json:"createdAt"`
	CreatedBy    string    `json:"createdBy"`
}

// Associate is POST /v1/pages/:id/associations: link this page (the source) to
// TargetID. Answers *Association.
type Associate struct {
	Caller
	TargetID     string
	RelationType string
}

// ListAssociations is GET /v1/pages/:id/associations: the links from and to this
// page, oldest first. Answers *Associations.
type ListAssociations struct{ Caller }

// Associations answers ListAssociations.
type Associations struct {
	List []*Association
}

func (m *Associate) run(a *Actor) any {
	if !slices.Contains(RelationTypes, m.RelationType) {
		e := fault.Field("relationType", "enum", "relationType must be one of %s", relationTypeList)
		e.Details["allowed"] = RelationTypes
		return e
	}
	target := strings.TrimSpace(m.TargetID)
	if target == "" {
		return fault.Field("targetPageId", "required", "targetPageId is required")
	}
	if target == a.id {
		return fault.Field("targetPageId", "distinct", "a page cannot be associated with itself")
	}
	var existing []byte
	count := 0
	var tp *Page
	err := a.deps.Store.View(func(tx *persistence.Tx) error {
		if len(target) <= 64 {
			if b := tx.Get(bucketPages, []byte(target)); b != nil {
				tp = &Page{}
				if err := json.Unmarshal(b, tp); err != nil {
					return err
				}
			}
		}
		existing = tx.Get(bucketAssocUnique, uniqueKey(a.id, m.RelationType, target))
		tx.Scan(bucketAssocSource, append([]byte(a.id), 0), false, func(_, _ []byte) bool {
			count++
			return count <= maxAssociations
		})
		return nil
	})
	if err != nil {
		return err
	}
	if tp == nil || tp.TenantID != a.page.TenantID {
		e := fault.Missing("page", target)
		e.Details["field"] = "targetPageId"
		return e
	}
	if existing != nil {
		return fault.New(fault.Conflict, "these pages are already associated with this relation type",
			map[string]any{"associationId": string(existing), "relationType": m.RelationType})
	}
	if count >= maxAssociations {
		return fault.Limit("associations", "max_items", maxAssociations, "a page has at most %d associations of its own", maxAssociations)
	}
	now := a.deps.Now().UTC()
	as := &Association{V: schemaV1, ID: ids.New("asc"), SourcePageID: a.id, TargetPageID: target,
		RelationType: m.RelationType, TenantID: a.page.TenantID, CreatedAt: now, CreatedBy: m.Agent}
	body, err := json.Marshal(as)
	if err != nil {
		return err
	}
	at := persistence.Nanos(now)
	entry := audit.New("association.created", m.Agent, a.id, now, map[string]any{
		"association_id": as.ID, "target_page_id": target, "relation_type": m.RelationType})
	// The page itself is unchanged; the commit carries the association, its indexes
	// and the audit entry together.
	err = a.applyWith(a.page, []audit.Entry{entry}, nil, func(tx *persistence.Tx) error {
		if err := tx.Put(bucketAssociations, []byte(as.ID), body); err != nil {
			return err
		}
		if err := tx.Put(bucketAssocSource, persistence.Ordered{Scope: a.id, N: at, ID: as.ID}.Key(), nil); err != nil {
			return err
		}
		if err := tx.Put(bucketAssocTarget, persistence.Ordered{Scope: target, N: at, ID: as.ID}.Key(), nil); err != nil {
			return err
		}
		return tx.Put(bucketAssocUnique, uniqueKey(a.id, m.RelationType, target), []byte(as.ID))
	})
	if err != nil {
		return err
	}
	return as
}

func (m *ListAssociations) run(a *Actor) any {
	out := &Associations{List: []*Association{}}
	err := a.deps.Store.View(func(tx *persistence.Tx) error {
		for _, idx := range []string{bucketAssocSource, bucketAssocTarget} {
			var derr error
			n := 0
			tx.Scan(idx, persistence.ScopePrefix(a.id), false, func(k, _ []byte) bool {
				o, ok := persistence.ParseOrdered(k, a.id)
				if !ok {
					return true
				}
				b := tx.Get(bucketAssociations, []byte(o.ID))
				if b == nil {
					return true
				}
				as := &Association{}
				if derr = json.Unmarshal(b, as); derr != nil {
					return false
				}
				out.List = append(out.List, as)
				n++
				return n < maxListed
			})
			if derr != nil {
				return derr
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortStableFunc(out.List, func(x, y *Association) int { return x.CreatedAt.Compare(y.CreatedAt) })
	return out
}

func uniqueKey(source, relation, target string) []byte {
	return persistence.Key([]byte(source), []byte(relation), []byte(target))
}
