package callback

import (
	"encoding/json"
	"time"

	"folio/actors/page"
)

// envelope is a callback body (specification 6.2); the field order is fixed.
type envelope struct {
	Event     string     `json:"event"`
	EventID   string     `json:"event_id"`
	PageID    string     `json:"page_id"`
	Timestamp string     `json:"timestamp"`
	Data      any        `json:"data"`
	Actor     *person    `json:"actor,omitempty"`
	PageState *pageState `json:"page_state,omitempty"`
}

// The callback's spelling of event payloads, written here only: for each event of
// the specification's event table exactly the table's keys of data, absent values
// null. Object keys are declared in byte order, as these bodies have always been
// written (they were encoded from maps once), so receivers see the same bytes.

type person struct {
	AuthMethod *string `json:"auth_method"`
	Identity   *string `json:"identity"`
	// Key: the API key that named identity (auth_method api_key), absent otherwise.
	Key *page.KeyRef `json:"key,omitempty"`
}

type pageState struct {
	Current  string `json:"current"`
	Previous string `json:"previous"`
}

type actionExecuted struct {
	ActionID    string  `json:"action_id"`
	ActionLabel string  `json:"action_label"`
	Comment     *string `json:"comment"`
	// The verdict: the content version and hash it was decided on (0 and "" when
	// the execution predates versions), the outcome (approved, rejected, none), and
	// whether the action ended the page.
	ContentHash string          `json:"content_hash"`
	Decision    *string         `json:"decision"`
	Final       bool            `json:"final"`
	FormData    json.RawMessage `json:"form_data"`
	Outcome     string          `json:"outcome"`
	PageVersion int             `json:"page_version"`
	// Edits: the reviewer's corrections the approval carries; absent without any.
	Edits []page.Edit `json:"edits,omitempty"`
	// Receipt: the audit entry that recorded the decision, to verify offline
	// (page/receipt.go); null only for an event recorded without one.
	Receipt *page.Receipt `json:"receipt"`
}

type stepCompleted struct {
	DecidedBy string  `json:"decided_by"`
	Decision  string  `json:"decision"`
	NextStep  *string `json:"next_step"`
	StepID    string  `json:"step_id"`
	StepName  string  `json:"step_name"`
}

type chainCompleted struct {
	FinalDecision string        `json:"final_decision"`
	StepsSummary  []stepSummary `json:"steps_summary"`
}

type stepSummary struct {
	Decision *string `json:"decision"`
	StepID   string  `json:"step_id"`
}

type pageExpired struct {
	ExpiredAt time.Time `json:"expired_at"`
	Reason    string    `json:"reason"`
}

type pageViewed struct {
	UserAgent string `json:"user_agent"`
	ViewCount int    `json:"view_count"`
}

type formSubmitted struct {
	FormData json.RawMessage `json:"form_data"`
}

// callbackBody builds the exact bytes of ev's callback: for the specification's
// events exactly the table's fields (absent ones null), with actor where the table
// has one (null fields when nobody is named) and page_state for action.executed; for
// other events their data as the agent's stream carries it, and the actor if any.
func callbackBody(ev page.Event) ([]byte, error) {
	env := envelope{Event: ev.Type, EventID: ev.ID, PageID: ev.PageID, Timestamp: stamp(ev.At)}
	switch d := ev.Data.(type) {
	case page.ActionExecuted:
		env.Data = actionExecuted{ActionID: d.ActionID, ActionLabel: d.ActionLabel, Comment: d.Comment,
			Decision: orNull(d.Decision), FormData: d.FormData,
			Outcome: page.OutcomeOf(d.Decision), Final: !d.Verdict.Step, PageVersion: d.Verdict.PageVersion, ContentHash: d.Verdict.ContentHash, Edits: d.Verdict.Edits,
			Receipt: d.Receipt}
		env.Actor = personOf(ev.Actor)
		env.PageState = &pageState{Current: d.PageState.Current, Previous: d.PageState.Previous}
	case page.ApprovalStepCompleted:
		env.Data = stepCompleted{DecidedBy: d.DecidedBy, Decision: d.Decision, NextStep: orNull(d.NextStep),
			StepID: d.StepID, StepName: d.StepName}
		if ev.Actor != nil { // who decided and how (a key naming a person says so)
			env.Actor = personOf(ev.Actor)
		}
	case page.ApprovalChainCompleted:
		steps := make([]stepSummary, len(d.Steps))
		for i, s := range d.Steps {
			steps[i] = stepSummary{Decision: orNull(s.Decision), StepID: s.StepID}
		}
		env.Data = chainCompleted{FinalDecision: d.FinalDecision, StepsSummary: steps}
	case page.PageExpired:
		env.Data = pageExpired{ExpiredAt: d.ExpiredAt, Reason: d.Reason}
	case page.PageViewed:
		env.Data = pageViewed{UserAgent: d.UserAgent, ViewCount: d.ViewCount}
		env.Actor = personOf(ev.Actor)
	case page.FormSubmitted:
		env.Data = formSubmitted{FormData: d.FormData}
		env.Actor = personOf(ev.Actor)
	default:
		env.Data = ev.AgentData()
		if ev.Actor != nil {
			env.Actor = personOf(ev.Actor)
		}
	}
	return json.Marshal(env)
}

// personOf is the callback's actor: null identity and auth_method when nobody is named.
func personOf(p *page.Person) *person {
	if p == nil {
		return &person{}
	}
	return &person{AuthMethod: &p.AuthMethod, Identity: &p.Identity, Key: p.Key}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// orNull is s, or null when s is "" (absent).
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
