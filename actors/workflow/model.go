// Package workflow groups pages into multi-page workflows (spec 4.4): sequential
// (one page active at a time, the next draft published when the one before
// completes) or parallel (all active at once).
//
// A workflow has no actor and no in-memory state. Its record is a projection of its
// pages, kept by an outlet of the page actors: every lifecycle change of a member
// page updates the record in the page's own commit transaction, so the record can
// never disagree with the pages. The one side effect, publishing the next draft, is
// first stored as a pending step in that same transaction and then driven by a
// message to the next page's actor; the commit that publishes the page deletes the
// pending step, and pending steps left by a crash are driven again at start.
package workflow

import (
	"encoding/json"
	"time"

	"folio/actors/page"
	"folio/persistence"
)

// Buckets owned by workflows.
const (
	bucketWorkflows = "workflows"        // groupId -> Workflow (JSON)
	bucketMembers   = "workflow_pages"   // pageId -> groupId: which workflow a page belongs to
	bucketPending   = "workflow_pending" // groupId 0x00 pageId -> tenantId: a draft to publish (the next step)
)

// Flows.
const (
	Sequential = "sequential"
	Parallel   = "parallel"
)

// Statuses of a workflow. Completed and cancelled are final.
const (
	Active     = "active"      // no page completed yet
	InProgress = "in_progress" // at least one page completed
	Completed  = "completed"   // every page completed
	Cancelled  = "cancelled"   // a page was revoked or expired
)

const schemaV1 = 1

// Workflow is the stored record (JSON, schema version V).
type Workflow struct {
	V           int        `json:"v"`
	ID          string     `json:"id"`
	TenantID    string     `json:"tenant_id"`
	Name        string     `json:"name"`
	Flow        string     `json:"flow"`
	Status      string     `json:"status"`
	Steps       []Step     `json:"steps"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
	CancelledAt *time.Time `json:"cancelled_at,omitempty"`
}

// Step is one member page and its last committed status.
type Step struct {
	PageID    string     `json:"page_id"`
	Status    string     `json:"status"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"` // while active, to read an overdue page as expired
}

// final reports whether the workflow's status can no longer change.
func (w *Workflow) final() bool { return w.Status == Completed || w.Status == Cancelled }

// index finds a member page.
func (w *Workflow) index(pageID string) int {
	for i, s := range w.Steps {
		if s.PageID == pageID {
			return i
		}
	}
	return -1
}

// derive recomputes the status from the steps' statuses as seen at now. Completed
// and cancelled stay as they are; a revoked or expired page cancels the workflow.
func (w *Workflow) derive(now time.Time) {
	if w.final() {
		return
	}
	done := 0
	for _, s := range w.Steps {
		switch s.status(now) {
		case page.Revoked, page.Expired:
			w.Status, w.CancelledAt = Cancelled, &now
			return
		case page.Completed:
			done++
		}
	}
	switch {
	case done == len(w.Steps):
		w.Status, w.CompletedAt = Completed, &now
	case done > 0:
		w.Status = InProgress
	default:
		w.Status = Active
	}
}

// status is the page's status as a reader sees it at now (an active page past its
// expiry time reads as expired, as pages themselves do).
func (s Step) status(now time.Time) string {
	if s.Status == page.Active && s.ExpiresAt != nil && !now.Before(*s.ExpiresAt) {
		return page.Expired
	}
	return s.Status
}

func load(tx *persistence.Tx, id string) (*Workflow, error) {
	b := tx.Get(bucketWorkflows, []byte(id))
	if b == nil {
		return nil, nil
	}
	w := &Workflow{}
	return w, json.Unmarshal(b, w)
}

func put(tx *persistence.Tx, w *Workflow) error {
	b, err := json.Marshal(w)
	if err != nil {
		return err
	}
	return tx.Put(bucketWorkflows, []byte(w.ID), b)
}

func pendingKey(groupID, pageID string) []byte {
	return persistence.Key([]byte(groupID), []byte(pageID))
}
