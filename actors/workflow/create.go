package workflow

import (
	"fmt"
	"maps"
	"strings"
	"time"
	"unicode/utf8"

	"folio/actors/model/fault"
	"folio/actors/model/ids"
	"folio/actors/page"
	"folio/persistence"
)

// Limits of one workflow.
const (
	MaxPages    = 20
	MaxNameChar = 200
)

// Deps are what the workflow service needs.
type Deps struct {
	Store *persistence.Store
	// PageDeps validate and stage member pages exactly as the page actors do.
	PageDeps *page.Deps
	// Pages reaches page actors (announce new pages, publish the next step).
	Pages page.Teller
	Now   func() time.Time
}

// Service creates and reads workflows and keeps them in step with their pages.
type Service struct{ d Deps }

// New builds the service; plug Outlet() into the page actors and run Run.
func New(d Deps) *Service { return &Service{d: d} }

// CreateRequest is the body of POST /v1/workflows, its pages already decoded.
type CreateRequest struct {
	Name  string
	Flow  string // sequential (default) or parallel
	Pages []*page.Request
}

// Created answers Create: the stored workflow and its pages in order.
type Created struct {
	Workflow *Workflow
	Pages    []*page.Page
	Warnings []string // the pages' advisory warnings, prefixed pages[i].
}

// Create validates every page body first (a 400 names pages[i].<field>), then writes
// all pages and the workflow record in ONE transaction: after a crash either the
// whole workflow exists or nothing of it does. Sequential: the first page is
// published, the rest are drafts; parallel: every page is published.
func (s *Service) Create(c page.Caller, req CreateRequest) (*Created, error) {
	name := strings.TrimSpace(req.Name)
	if name == "" {
		return nil, fault.Field("name", "required", "name is required")
	}
	if n := utf8.RuneCountInString(name); n > MaxNameChar {
		return nil, limitErr("name", "max_length", MaxNameChar, "name is %d characters; the limit is %d", n, MaxNameChar)
	}
	flow := req.Flow
	if flow == "" {
		flow = Sequential
	}
	if flow != Sequential && flow != Parallel {
		e := fault.Field("flow", "enum", "flow must be sequential or parallel")
		e.Details["allowed"] = []string{Sequential, Parallel}
		return nil, e
	}
	if len(req.Pages) == 0 {
		return nil, fault.Field("pages", "min_items", "pages must hold at least one page request body")
	}
	if len(req.Pages) > MaxPages {
		return nil, limitErr("pages", "max_items", MaxPages, "a workflow has at most %d pages", MaxPages)
	}
	prepared := make([]*page.Prepared, len(req.Pages))
	var warnings []string
	for i, pr := range req.Pages {
		if pr == nil {
			return nil, fault.Field(fmt.Sprintf("pages[%d]", i), "type", "pages[%d] must be a page request body (an object)", i)
		}
		publish := flow == Parallel || i == 0
		n, err := page.Prepare(s.d.PageDeps, ids.New("pg"), c, pr, publish)
		if err != nil {
			return nil, Within(fmt.Sprintf("pages[%d]", i), err)
		}
		prepared[i] = n
		for _, w := range n.Warnings {
			warnings = append(warnings, fmt.Sprintf("pages[%d].%s", i, w))
		}
	}
	now := s.d.Now().UTC()
	w := &Workflow{V: schemaV1, ID: ids.New("wf"), TenantID: c.TenantID, Name: name, Flow: flow, Status: Active,
		CreatedAt: now, UpdatedAt: now}
	for _, n := range prepared {
		w.Steps = append(w.Steps, Step{PageID: n.Page.ID, Status: n.Page.Status, ExpiresAt: n.Page.ExpiresAt})
	}
	err := s.d.Store.Update(func(tx *persistence.Tx) error {
		// The record and membership first, so the outlet (run by Stage below) sees the
		// pages as members.
		if err := put(tx, w); err != nil {
			return err
		}
		for _, st := range w.Steps {
			if err := tx.Put(bucketMembers, []byte(st.PageID), []byte(w.ID)); err != nil {
				return err
			}
		}
		for _, n := range prepared {
			if err := n.Stage(s.d.PageDeps, tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := &Created{Workflow: w, Warnings: warnings}
	for _, n := range prepared {
		// Before answering: the page actor runs the outlets' Committed for the new
		// page before any later message for it.
		s.d.Pages.Tell(n.Page.ID, n.Announce())
		out.Pages = append(out.Pages, n.Page)
	}
	return out, nil
}

// Within re-roots a 400 of a nested body under prefix: field "title" becomes
// "pages[2].title". Other errors pass unchanged.
func Within(prefix string, err error) error {
	fe, ok := err.(*fault.Error)
	if !ok || fe.Code != fault.Invalid {
		return err
	}
	d := maps.Clone(fe.Details)
	if f, ok := d["field"].(string); ok && f != "" {
		d["field"] = prefix + "." + f
	} else {
		d["field"] = prefix
	}
	return fault.New(fe.Code, prefix+": "+fe.Message, d)
}

func limitErr(field, constraint string, limit int, format string, args ...any) *fault.Error {
	e := fault.Field(field, constraint, format, args...)
	e.Details["limit"] = limit
	return e
}
