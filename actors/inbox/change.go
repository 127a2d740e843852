package inbox

import (
	"context"

	"folio/actors/model/fault"
	"folio/actors/registry"
)

// Change sends a reading-state command (MarkRead, Star, Archive) about entryID to
// the tenant's InboxActor, for the API's routes and the dashboard's buttons alike:
// nil, or 404 for an entry that is unknown or another tenant's (an id no entry can
// have is refused before any actor is asked). inboxes nil: this node keeps no
// inboxes, and every entry is unknown.
func Change(ctx context.Context, inboxes *registry.Registry, tenantID, entryID string, msg any) error {
	if inboxes == nil || entryID == "" || len(entryID) > 64 {
		return fault.Missing("inbox entry", entryID)
	}
	_, err := registry.Call[*Changed](ctx, inboxes, tenantID, msg)
	return err
}
