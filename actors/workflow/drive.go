package workflow

import (
	"time"

	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
)

// systemAgent is the audit actor of a page the workflow publishes as its next step.
const systemAgent = "system"

// drive tells the page actors of the pending steps of pageID's workflow to publish.
func (s *Service) drive(pageID string) {
	var todo [][2]string // pageId, tenantId
	if err := s.d.Store.View(func(tx *persistence.Tx) error {
		gid := tx.Get(bucketMembers, []byte(pageID))
		if gid == nil {
			return nil
		}
		prefix := append(gid, 0)
		tx.Scan(bucketPending, prefix, false, func(k, v []byte) bool {
			todo = append(todo, [2]string{string(k[len(prefix):]), string(v)})
			return true
		})
		return nil
	}); err != nil {
		return // the store did not answer: the periodic Redrive publishes the step
	}
	s.publish(todo)
}

// Redrive tells every page with a pending step to publish (after a restart, or when
// an earlier attempt failed). A page that is no longer a draft answers 409 and
// its pending step has already been removed by the commit that changed it.
func (s *Service) Redrive() int {
	var todo [][2]string
	if err := s.d.Store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketPending, nil, false, func(k, v []byte) bool {
			if sep := indexByte(k, 0); sep >= 0 {
				todo = append(todo, [2]string{string(k[sep+1:]), string(v)})
			}
			return len(todo) < 10000
		})
		return nil
	}); err != nil {
		return 0 // the store did not answer: the next round tries again
	}
	s.publish(todo)
	return len(todo)
}

func (s *Service) publish(todo [][2]string) {
	for _, t := range todo {
		s.d.Pages.Tell(t[0], &page.PublishDraft{Caller: page.Caller{TenantID: t[1], Agent: systemAgent}})
	}
}

// Run drives pending steps at start (the ones a crash left between a page's
// completion and the next page's publication) and then every `every`, until stop.
func (s *Service) Run(every time.Duration, stop <-chan struct{}) {
	s.Redrive()
	registry.Every(every, stop, func() { s.Redrive() })
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
