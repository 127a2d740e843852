package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/workflow"
)

// ContentDeps wire the Content area's routes: block schema, protocol and template
// publishing, workflows and associations.
type ContentDeps struct {
	Workflows *workflow.Service
	// TitleChars is the page title limit; titles a translator derives are clipped to it.
	TitleChars int
}

// MountContent registers the Content area's routes (routes.go).
func (s *Server) MountContent(d ContentDeps) {
	if d.TitleChars <= 0 {
		d.TitleChars = page.DefaultLimits.TitleChars
	}
	(&content{s: s, d: d}).routes()
}

type content struct {
	s *Server
	d ContentDeps
}

// blockSchema serves the block catalog's JSON Schema (2020-12). No credential: agents
// validate before they have a key.
func (c *content) blockSchema(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) error {
	w.Header().Set("Content-Type", "application/schema+json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(blocks.Schema())
	return nil
}

// readBody reads the raw body (at most maxBody bytes), for routes whose body is not
// one JSON value of a Go type (A2UI accepts JSON Lines).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, fault.New(fault.TooLarge, fmt.Sprintf("the body is larger than %d bytes", s.maxBody),
				map[string]any{"limit": s.maxBody, "constraint": "max_body_bytes"})
		}
		return nil, fault.New(fault.Invalid, "the body could not be read", map[string]any{"constraint": "readable"})
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fault.New(fault.Invalid, "a JSON body is required", map[string]any{"constraint": "required", "field": ""})
	}
	return raw, checkShape(raw)
}

// pageExtras are the page request fields that protocol and template publishing
// accept beside their own body (callbacks, access, expiry, labels). Title, blocks and
// actions come from the translation or the template.
type pageExtras struct {
	PageType        *string         `json:"page_type"`
	Summary         *string         `json:"summary"`
	Priority        *string         `json:"priority"`
	Tags            *[]string       `json:"tags"`
	Access          *page.Access    `json:"access"`
	Notify          json.RawMessage `json:"notify"`
	OnAction        json.RawMessage `json:"on_action"`
	ApprovalChain   json.RawMessage `json:"approval_chain"`
	RequireVerified *bool           `json:"require_verified"`
	ExpiresAt       *string         `json:"expires_at"`
}

// onto copies the present extras into req (they win over the defaults in req).
func (x *pageExtras) onto(req *page.Request) {
	if x.PageType != nil {
		req.PageType = x.PageType
	}
	if x.Summary != nil {
		req.Summary = x.Summary
	}
	if x.Priority != nil {
		req.Priority = x.Priority
	}
	if x.Tags != nil {
		req.Tags = x.Tags
	}
	if x.Access != nil {
		req.Access = x.Access
	}
	req.Notify, req.OnAction, req.ApprovalChain, req.ExpiresAt = x.Notify, x.OnAction, x.ApprovalChain, x.ExpiresAt
	req.RequireVerified = x.RequireVerified
}
