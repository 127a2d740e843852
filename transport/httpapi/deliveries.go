package httpapi

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/callback"
	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/persistence"
	"folio/transport/apitypes"
)

// DeliveryDeps are what the delivery routes need.
type DeliveryDeps struct {
	Store      *persistence.Store
	Dispatcher *callback.Dispatcher
}

// MountDelivery registers the delivery routes (routes.go): the approval chain
// status, the delivery log of a page and manual redelivery.
func (s *Server) MountDelivery(deps DeliveryDeps) {
	s.delivery = &deliveryHandlers{s: s, deps: deps}
	s.delivery.routes()
}

type deliveryHandlers struct {
	s    *Server
	deps DeliveryDeps
}

// approval is GET /v1/pages/:id/approval: the chain status of specification 2.5;
// 404 when the page has no approval chain.
func (h *deliveryHandlers) approval(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), h.s.pages, id, &page.Get{Caller: callerOf(who)})
	if err != nil {
		return err
	}
	if res.Page.Approval == nil {
		return fault.New(fault.NotFound, "this page has no approval chain", map[string]any{"resource": "approval_chain", "id": res.Page.ID})
	}
	writeJSON(w, http.StatusOK, approvalStatus{res.Page.ID, res.Page.Approval.View()})
	return nil
}

// approvalStatus is the answer of GET /v1/pages/:id/approval: the chain as the
// page keeps it (client.ApprovalStatus is the one definition of its shape).
type approvalStatus struct {
	PageID string `json:"pageId"`
	page.ChainView
}

// list is GET /v1/pages/:id/deliveries: every callback and notification of the page
// with its attempts, newest first.
func (h *deliveryHandlers) list(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	limit, offset, err := limitOffset(r, 50, 200)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), h.s.pages, id, &page.Get{Caller: callerOf(who)})
	if err != nil {
		return err
	}
	rows, total, err := callback.ListPage(h.deps.Store, res.Page.ID, limit, offset)
	if err != nil {
		return err
	}
	out := make([]deliveryView, len(rows))
	for i, d := range rows {
		out[i] = viewDelivery(d)
	}
	writeJSON(w, http.StatusOK, apitypes.DeliveryList[deliveryView]{Deliveries: out, Total: total, Limit: limit, Offset: offset})
	return nil
}

// get is GET /v1/deliveries/:id.
func (h *deliveryHandlers) get(w http.ResponseWriter, _ *http.Request, ps httprouter.Params, who tenant.Principal) error {
	id := ps.ByName("id")
	d, err := callback.Load(h.deps.Store, id)
	if err != nil {
		return err
	}
	if d == nil || d.TenantID != who.TenantID {
		return fault.Missing("delivery", id)
	}
	writeJSON(w, http.StatusOK, viewDelivery(d))
	return nil
}

// retry is POST /v1/deliveries/:id/retry: one more attempt at once, with the same
// event id and body bytes. 202: the attempt runs in the background (see GET
// /v1/deliveries/:id); 409 while an attempt is in flight.
func (h *deliveryHandlers) retry(w http.ResponseWriter, _ *http.Request, ps httprouter.Params, who tenant.Principal) error {
	d, err := h.deps.Dispatcher.Retry(who.TenantID, ps.ByName("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, apitypes.DeliveryQueued{ID: d.ID, PageID: d.PageID, EventID: d.EventID, Status: "queued", QueuedAt: h.s.now().UTC()})
	return nil
}

// deliveryView is one delivery of the log.
type deliveryView struct {
	ID            string        `json:"id"`
	PageID        string        `json:"pageId"`
	EventID       string        `json:"eventId"`
	Event         string        `json:"event"`
	Channel       string        `json:"channel"`
	Target        string        `json:"target"`
	Status        string        `json:"status"`
	Note          *string       `json:"note"`
	AttemptCount  int           `json:"attemptCount"`
	MaxAttempts   int           `json:"maxAttempts"`
	NextAttemptAt *time.Time    `json:"nextAttemptAt"`
	WaitingFor    *string       `json:"waitingFor"` // the earlier delivery (same page, same target) this one waits for
	CreatedAt     time.Time     `json:"createdAt"`
	CompletedAt   *time.Time    `json:"completedAt"`
	Attempts      []attemptView `json:"attempts"`
	Reply         *replyView    `json:"reply"`
}

type attemptView struct {
	Attempt       int        `json:"attempt"`
	At            time.Time  `json:"at"`
	HTTPStatus    *int       `json:"httpStatus"`
	LatencyMS     float64    `json:"latencyMs"`
	Error         *string    `json:"error"`
	Manual        bool       `json:"manual"`
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
}

type replyView struct {
	Status   string   `json:"status"`
	BlockIDs []string `json:"blockIds"`
	Error    *string  `json:"error"`
}

func viewDelivery(d *callback.Delivery) deliveryView {
	v := deliveryView{ID: d.ID, PageID: d.PageID, EventID: d.EventID, Event: d.Event, Channel: d.Channel,
		Target: callback.DisplayTarget(d.Channel, d.Target), Status: d.Status, Note: optString(d.Note), AttemptCount: d.AttemptCount,
		MaxAttempts: d.MaxAttempts(), NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt, CompletedAt: d.CompletedAt,
		Attempts: make([]attemptView, len(d.Attempts))}
	if d.Waiting() {
		v.WaitingFor = optString(d.After)
	}
	for i, a := range d.Attempts {
		av := attemptView{Attempt: a.N, At: a.At, LatencyMS: a.LatencyMS, Error: optString(a.Error), Manual: a.Manual, NextAttemptAt: a.NextAttemptAt}
		if a.HTTPStatus != 0 {
			st := a.HTTPStatus
			av.HTTPStatus = &st
		}
		v.Attempts[i] = av
	}
	if d.Reply != nil {
		ids := d.Reply.BlockIDs
		if ids == nil {
			ids = []string{}
		}
		v.Reply = &replyView{Status: d.Reply.Status, BlockIDs: ids, Error: optString(d.Reply.Error)}
	}
	return v
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
