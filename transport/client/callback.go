package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// The callback events of the specification (docs/spec.md 6.2), sent when a page's
// on_action names no events; on_action.events may ask for any page event.
const (
	EventActionExecuted         = "action.executed"
	EventApprovalStepCompleted  = "approval.step_completed"
	EventApprovalChainCompleted = "approval.chain_completed"
	EventPageExpired            = "page.expired"
	EventPageViewed             = "page.viewed"
	EventFormSubmitted          = "form.submitted"
)

// CallbackEvent is the body of a callback. The same event may arrive more than once
// (retries, a manual redelivery): receivers de-duplicate by EventID.
type CallbackEvent struct {
	Event     string          `json:"event"`
	EventID   string          `json:"event_id"`
	PageID    string          `json:"page_id"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"` // one of the *Data types below for the specification's events
	Actor     *Actor          `json:"actor,omitempty"`
	PageState *PageState      `json:"page_state,omitempty"` // action.executed
}

// ActionExecutedData is the Data of action.executed.
type ActionExecutedData struct {
	ActionID    string         `json:"action_id"`
	ActionLabel string         `json:"action_label"`
	Comment     string         `json:"comment"`
	Decision    string         `json:"decision"`
	FormData    map[string]any `json:"form_data"`
	Verdict
	Receipt *Receipt `json:"receipt"` // the audit entry that recorded the decision
}

// StepCompletedData is the Data of approval.step_completed.
type StepCompletedData struct {
	StepID    string `json:"step_id"`
	StepName  string `json:"step_name"`
	Decision  string `json:"decision"`
	DecidedBy string `json:"decided_by"`
	NextStep  string `json:"next_step"` // empty after the last step
}

// ChainCompletedData is the Data of approval.chain_completed.
type ChainCompletedData struct {
	FinalDecision string        `json:"final_decision"`
	StepsSummary  []StepSummary `json:"steps_summary"`
}

// StepSummary is one step in ChainCompletedData.
type StepSummary struct {
	StepID   string `json:"step_id"`
	Decision string `json:"decision"`
}

// PageExpiredData is the Data of page.expired.
type PageExpiredData struct {
	Reason    string    `json:"reason"` // timeout
	ExpiredAt time.Time `json:"expired_at"`
}

// PageViewedData is the Data of page.viewed.
type PageViewedData struct {
	ViewCount int    `json:"view_count"`
	UserAgent string `json:"user_agent"`
}

// FormSubmittedData is the Data of form.submitted.
type FormSubmittedData struct {
	FormData map[string]any `json:"form_data"`
}

// maxCallbackBody bounds what ParseCallback reads.
const maxCallbackBody = 10 << 20

// ParseCallback reads a callback request in an http.Handler: it verifies the
// signature with secret (VerifySignature, DefaultTolerance) and decodes the body.
// An empty secret skips verification, for pages published without hmac_secret.
// The handler answers 2xx to acknowledge the delivery.
func ParseCallback(r *http.Request, secret string) (*CallbackEvent, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCallbackBody+1))
	if err != nil {
		return nil, fmt.Errorf("client: read the callback: %w", err)
	}
	if len(body) > maxCallbackBody {
		return nil, fmt.Errorf("client: the callback is larger than %d bytes", maxCallbackBody)
	}
	if secret != "" {
		if err := VerifySignature(body, r.Header, secret, DefaultTolerance); err != nil {
			return nil, err
		}
	}
	var ev CallbackEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, fmt.Errorf("client: decode the callback: %w", err)
	}
	return &ev, nil
}
