package httpapi

import (
	"net/http"

	"folio/actors/page"
	"folio/transport/admission"
	"folio/transport/status"
)

// Writes to pages without a credential spend the client address's anonymous
// budgets (transport/admission, anon.go: the rule, shared with the review page's
// comment form); the route writes the budget's rate headers either way.

// admitAnonComment spends one of the address's anonymous comments.
func (rt *realtime) admitAnonComment(w http.ResponseWriter, r *http.Request, v page.Viewer) error {
	rate, err := rt.admit.AnonComment(rt.ClientAddress(r), admission.CredentialKey(v.KeyID, v.SessionID))
	status.SetRate(w.Header(), rate, err)
	return err
}

// admitAnonUpload spends size bytes of the address's anonymous upload budget.
func (rt *realtime) admitAnonUpload(w http.ResponseWriter, r *http.Request, v page.Viewer, size int64) error {
	rate, err := rt.admit.AnonUpload(rt.ClientAddress(r), admission.CredentialKey(v.KeyID, v.SessionID), size)
	status.SetRate(w.Header(), rate, err)
	return err
}
