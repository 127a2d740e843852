package workflow

import (
	"folio/actors/model/fault"
	"folio/persistence"
)

// View is a workflow as GET /v1/workflows/:groupId shows it, at the time of reading.
type View struct {
	*Workflow
	Statuses []string // the pages' statuses, in order (an overdue active page reads expired)
}

// Get reads the workflow groupID of tenantID; another tenant's workflow is 404.
// Statuses are as committed, except that an active page past its expiry reads as
// expired (and cancels the workflow) just as the page itself would.
func (s *Service) Get(tenantID, groupID string) (*View, error) {
	var w *Workflow
	err := s.d.Store.View(func(tx *persistence.Tx) error {
		var err error
		w, err = load(tx, groupID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if w == nil || w.TenantID != tenantID {
		return nil, fault.Missing("workflow", groupID)
	}
	now := s.d.Now().UTC()
	w.derive(now)
	v := &View{Workflow: w, Statuses: make([]string, len(w.Steps))}
	for i, st := range w.Steps {
		v.Statuses[i] = st.status(now)
	}
	return v, nil
}
