package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/slack"
	"folio/actors/tenant"
	"folio/persistence"
)

// SlackDeps are what the Slack routes need.
type SlackDeps struct {
	Store        *persistence.Store
	Interactions *slack.Service
	// MaxBody bounds an interaction request's body (--slack-max-body).
	MaxBody int64
}

// MountSlack registers the Slack app's routes (routes.go): the tenant's credentials (write-only)
// and the interactivity endpoint Slack posts button clicks to.
func (s *Server) MountSlack(deps SlackDeps) {
	if deps.MaxBody <= 0 {
		deps.MaxBody = 256 << 10
	}
	h := &slackHandlers{s: s, deps: deps}
	h.routes()
}

type slackHandlers struct {
	s    *Server
	deps SlackDeps
}

// get is GET /v1/integrations/slack: whether the tenant's credentials are set,
// never the credentials.
func (h *slackHandlers) get(w http.ResponseWriter, _ *http.Request, _ httprouter.Params, who tenant.Principal) error {
	set, err := slack.Load(h.deps.Store, who.TenantID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, slack.ViewOf(set))
	return nil
}

// put is PUT /v1/integrations/slack {bot_token, signing_secret}: replaces the
// tenant's credentials and answers what GET does.
func (h *slackHandlers) put(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	var req slack.Request
	if err := h.s.decode(w, r, &req, false); err != nil {
		return err
	}
	set, err := slack.Save(h.deps.Store, who.TenantID, &req, h.s.now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, slack.ViewOf(set))
	return nil
}

// interaction is POST /v1/integrations/slack/interactions: the raw body (bounded)
// goes to the Slack service, which verifies it before anything else; a verified
// click is answered 200 with no body, as Slack expects.
func (h *slackHandlers) interaction(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.deps.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fault.New(fault.TooLarge, fmt.Sprintf("the body is larger than %d bytes (--slack-max-body)", h.deps.MaxBody),
				map[string]any{"limit": h.deps.MaxBody, "constraint": "max_body_bytes"})
		}
		return fault.New(fault.Invalid, "the body could not be read", map[string]any{"constraint": "readable"})
	}
	if err := h.deps.Interactions.Handle(r.Context(), r.Header, body); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
