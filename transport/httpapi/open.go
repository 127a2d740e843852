package httpapi

import (
	"net/http"

	"folio/transport/admission"
)

// The streams and long-polls a client holds open are bounded by the node's
// admission rules (transport/admission, OpenLimits), the same the pages for people
// count their streams against. A refusal is the handler's error: writeError sets
// Retry-After from its retry_after.

// holdStream takes a stream's place for r's client and credential.
func (s *Server) holdStream(r *http.Request, keyID, sessionID string) (release func(), err error) {
	return s.admit.HoldStream(s.ClientAddress(r), admission.CredentialKey(keyID, sessionID))
}

// holdWait takes a long-poll's place for r's client and credential.
func (s *Server) holdWait(r *http.Request, keyID string) (release func(), err error) {
	return s.admit.HoldWait(s.ClientAddress(r), admission.CredentialKey(keyID, ""))
}
