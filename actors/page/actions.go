package page

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"folio/actors/model/audit"
	"folio/actors/model/fault"
)

// Auth methods recorded with a person's action (actor.auth_method in callbacks and
// audit): how the identity was established.
const (
	AuthAPIKey    = "api_key"    // an API key of the page's tenant vouched for it (actor.identity)
	AuthLink      = "link"       // typed by whoever holds a public page's link: unverified
	AuthNone      = "none"       // nobody identified: an anonymous viewer (page.viewed)
	AuthMagicLink = "magic_link" // a signed-in person who proved the address by a mailed link
	AuthOAuth     = "oauth"      // a signed-in person an identity provider vouched for
	AuthEmailLink = "email_link" // a person who confirmed a decision link mailed to that address (actors/maillink)
)

// SubmitAction is the implicit action of a page with form blocks and no actions:
// executing it submits the form (form.submitted) and completes the page.
const SubmitAction = "submit"

// maxIdentityChars bounds the identity a person gives.
const maxIdentityChars = 320

// Act is an action executed by a person through a route open to the page link's
// holders (the review page, or the API without a key). The page's access policy
// decides whether they may. A signed-in person acts as their verified address
// (auth_method magic_link or oauth) whatever the body says; anyone else gives an
// identity that is recorded as unverified (auth_method "link"), so it never
// satisfies an approval step's assignees.
type Act struct {
	Viewer
	ActionID string
	Req      *ActionRequest
}

func (m *Act) public()          {}
func (m *Act) run(a *Actor) any { return a.act(m) }

// who is the person an execution is recorded for.
type who struct {
	identity string  // as recorded (actor.identity)
	method   string  // AuthAPIKey, AuthLink
	audit    string  // the audit log's actor
	key      *KeyRef // the API key that named identity (a key acting for a person)
	// A default outcome (AuthTimeout, deadline_fire.go): why, and the chain steps
	// its deadline covers.
	reason string
	steps  []int
}

// execute is an action through the page owner's key: actor.identity names the
// person the key acts for (the agent itself when absent).
func (a *Actor) execute(m *Execute) any {
	req := m.Req
	if req == nil {
		req = &ActionRequest{}
	}
	w := who{identity: m.Agent, method: AuthAPIKey, audit: m.Agent}
	if req.Actor != nil && req.Actor.Identity != "" {
		id, err := checkIdentity(req.Actor.Identity)
		if err != nil {
			return err
		}
		w.identity, w.audit = id, auditActor(id, m.Agent)
		if id != m.Agent {
			w.key = m.Key
		}
		// The key vouches for the person; on an authenticated page it may only vouch
		// for someone the page is shared with.
		if id != m.Agent && a.page.Access.Mode == "authenticated" && !a.page.Access.Allows(id) {
			return fault.New(fault.Forbidden, "actor.identity "+id+" is not among the page's allowed_identities",
				map[string]any{"field": "actor.identity", "identity": id, "reason": "not_allowed"})
		}
	}
	return a.run(m.ActionID, req, w)
}

// act is an action by a person: signed in, or holding the page link.
func (a *Actor) act(m *Act) any {
	if m.Person != "" {
		if err := a.visible(m.Viewer); err != nil {
			return err
		}
		req := m.Req
		if req == nil {
			req = &ActionRequest{}
		}
		return a.run(m.ActionID, req, who{identity: m.Person, method: m.Method, audit: "user:" + m.Person})
	}
	if a.owns(m.Viewer) {
		return a.execute(&Execute{Caller: Caller{TenantID: m.TenantID, Agent: m.Agent, Key: m.Key}, ActionID: m.ActionID, Req: m.Req})
	}
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	req := m.Req
	if req == nil {
		req = &ActionRequest{}
	}
	raw := ""
	if req.Actor != nil {
		raw = req.Actor.Identity
	}
	if strings.TrimSpace(raw) == "" {
		return fault.Field("actor.identity", "required", "say who you are: your name or e-mail address")
	}
	id, err := checkIdentity(raw)
	if err != nil {
		return err
	}
	return a.run(m.ActionID, req, who{identity: id, method: AuthLink, audit: "user:" + id})
}

// checkIdentity trims a given identity and bounds it.
func checkIdentity(s string) (string, error) {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > maxIdentityChars {
		return "", fault.Limit("actor.identity", "max_length", maxIdentityChars, "actor.identity has at most %d characters", maxIdentityChars)
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", fault.Field("actor.identity", "format", "actor.identity must not contain control characters")
	}
	return s, nil
}

// run executes an action for a person. The page actor handles one message at a
// time and the page leaves `active` in the same commit as the execution that
// completes it, so exactly one of any number of concurrent executions wins; every
// other one finds the page completed and gets 409 CONFLICT.
//
// Without an approval chain the first execution completes the page. With a chain a
// deciding action records a decision (only by a verified assignee the chain lets
// decide now: 403 otherwise, 409 for a second decision on the same step) and the
// page completes with the chain; a neutral action is recorded and leaves the page
// active (once per person). Form data on a page with form blocks is validated
// before anything is recorded (forms.go).
func (a *Actor) run(actionID string, req *ActionRequest, w who) any {
	act, ok := a.page.action(actionID)
	if !ok && actionID == SubmitAction && len(a.page.Actions) == 0 {
		if _, hasForm := formFields(a.page.Blocks); hasForm {
			act, ok = Action{ActionID: SubmitAction, Label: "Submit"}, true
		}
	}
	if !ok {
		return fault.Missing("action", actionID)
	}
	prev := a.page.Status
	if prev != Active {
		e := fault.State("execute an action on", prev)
		e.Details["action_id"] = actionID
		return e
	}
	// The version check follows the state check: on a completed page the loser of a
	// race hears that the page is decided, whatever version it named.
	if err := a.page.checkSeen(req.PageVersion); err != nil {
		err.(*fault.Error).Details["action_id"] = actionID
		return err
	}
	if req.Comment != nil && utf8.RuneCountInString(*req.Comment) > 10000 {
		return fault.Limit("comment", "max_length", 10000, "comment has at most 10000 characters")
	}
	if req.FormValues != nil && (req.FormData == nil || isNull(req.FormData)) {
		if len(req.FormValues) > maxFormKeys {
			return fault.Limit("form_values", "max_items", maxFormKeys, "form_values has at most %d fields", maxFormKeys)
		}
		values := make(map[string][]string, len(req.FormValues))
		for k, v := range req.FormValues {
			values[FormPrefix+k] = v
		}
		r := *req
		r.FormData = formDataFromValues(a.page, values)
		req = &r
	}
	hasForm := req.FormData != nil && !isNull(req.FormData)
	if hasForm && !isObject(req.FormData) {
		return fault.Field("form_data", "type", "form_data must be an object or null")
	}
	actorID := w.identity
	now := a.deps.Now().UTC()

	decision := act.decision()
	final := act.final()
	var chain *Chain // the chain after this decision; nil when untouched
	var stepsDone []int
	if !final {
		// A step that does not end the page decides no approval step either; each
		// person takes it once (verdict.go).
		if a.page.executedBy(act.ActionID, actorID) {
			return fault.New(fault.Conflict, fmt.Sprintf("%s has already executed %s", actorID, act.ActionID),
				map[string]any{"status": prev, "action_id": act.ActionID, "identity": actorID})
		}
	} else if c := a.page.Approval; c != nil && c.Status == ChainInProgress {
		if decision != "" {
			if w.method == AuthLink {
				return fault.New(fault.Forbidden, "deciding an approval step needs a verified identity: sign in first",
					map[string]any{"reason": "verification_required", "identity": actorID})
			}
			// require_verified: a step is decided only by the person, signed in; an
			// API key naming them (or acting as itself) decides nothing.
			if a.page.RequireVerified && w.method != AuthMagicLink && w.method != AuthOAuth && w.method != AuthEmailLink && w.method != AuthTimeout {
				return fault.New(fault.Forbidden, "this page's approval steps need the person to sign in and decide themselves (require_verified): "+
					actorID+" must open the page, sign in and decide there; an API key cannot decide for them",
					map[string]any{"reason": "verification_required", "identity": actorID, "require_verified": true})
			}
			chain = c.clone()
			var err error
			if stepsDone, err = chain.decideFor(w, StepDecision{Identity: actorID, Decision: decision, ActionID: act.ActionID,
				Comment: req.Comment, DecidedAt: now, AuthMethod: w.method, Key: w.key}); err != nil {
				return err
			}
		} else if a.page.executedBy(act.ActionID, actorID) {
			return fault.New(fault.Conflict, fmt.Sprintf("%s has already executed %s", actorID, act.ActionID),
				map[string]any{"status": prev, "action_id": act.ActionID, "identity": actorID})
		}
	}
	// The form blocks are looked for only when form data came: finding them decodes
	// every block's data, which an execution without form data never needs.
	formPage := false
	if hasForm {
		var fields []formField
		if fields, formPage = formFields(a.page.Blocks); formPage {
			if err := checkFormData(fields, req.FormData); err != nil {
				return err
			}
		}
	}

	exec := Execution{ActionID: act.ActionID, Actor: actorID, AuthMethod: w.method, Key: w.key, Comment: req.Comment, ExecutedAt: now, Decision: decision,
		Verdict: Verdict{ActionLabel: act.Label, Step: !final, PageVersion: a.page.Version, ContentHash: a.contentHash()}}
	var formData json.RawMessage
	if hasForm {
		formData = append(json.RawMessage(nil), req.FormData...)
		exec.FormData = formData
	}
	next := a.page.clone()
	next.Executions = append(next.Executions, exec)
	next.Stats.ActionCount++
	next.UpdatedAt = now
	completes := final && (a.page.Approval == nil || a.page.Approval.Status != ChainInProgress || (chain != nil && chain.Status != ChainInProgress))
	if chain != nil {
		next.Approval, next.ApprovalChain = chain, chain.viewJSON()
	}
	if completes {
		next.Status, next.CompletedAt = Completed, &now
		next.Decision = act.completionDecision()
		if chain != nil && chain.Status != ChainInProgress {
			next.Decision = chain.Status
		}
	}

	person := &Person{Identity: actorID, AuthMethod: w.method, Key: w.key}
	data := ActionExecuted{ActionID: act.ActionID, ActionLabel: act.Label, Comment: req.Comment, FormData: formData,
		PageState: PageState{Previous: prev, Current: next.Status}}
	switch {
	case decision != "":
		data.Decision = decision
	case completes:
		data.Decision = next.Decision
	}
	exec.Outcome = OutcomeOf(data.Decision)
	if len(req.Edits) > 0 {
		edits, err := checkEdits(a.page, req.Edits, actorID, a.deps.Limits)
		if err != nil {
			return err
		}
		// Edits go with the approval that completes the page, and only with it (an
		// edit that changes nothing is no edit).
		if len(edits) > 0 && (!completes || next.Decision != DecisionApproved) {
			return fault.New(fault.Invalid, fmt.Sprintf("edits go only with the decision that approves and completes the page, and %q does not: "+
				"leave edits out (say what should change in your comment), or choose the approving action", act.Label),
				map[string]any{"field": "edits", "constraint": "approving_decision", "action_id": act.ActionID})
		}
		exec.Edits = edits
	}
	next.Executions[len(next.Executions)-1] = exec
	data.Verdict = exec.Verdict
	executed := a.event(now, data)
	executed.Actor = person
	details := map[string]any{"action_id": act.ActionID, "label": act.Label, "comment": req.Comment, "auth_method": w.method,
		"outcome": exec.Outcome, "final": final, "page_version": exec.PageVersion, "content_hash": exec.ContentHash}
	if w.key != nil {
		details["key"] = *w.key // "recorded by key … for <identity>"
	}
	if len(exec.Edits) > 0 {
		details["edits"] = exec.Edits
	}
	if w.reason != "" {
		details["reason"] = w.reason
	}
	entries := []audit.Entry{audit.New("action.executed", w.audit, a.id, now, details)}
	events := []Event{executed}
	if hasForm && formPage {
		ev := a.event(now, FormSubmitted{ActionID: act.ActionID, FormData: formData})
		ev.Actor = person
		events = append(events, ev)
		entries = append(entries, audit.New("form.submitted", w.audit, a.id, now, map[string]any{"action_id": act.ActionID}))
	}
	for _, i := range stepsDone {
		step := chain.stepCompleted(i)
		ev := a.event(now, step)
		ev.Actor = person
		events = append(events, ev)
		entries = append(entries, audit.New("approval.step_completed", w.audit, a.id, now, step.auditDetails()))
	}
	if chain != nil && chain.Status != ChainInProgress {
		events = append(events, a.event(now, chain.completed()))
		entries = append(entries, audit.New("approval.chain_completed", "system", a.id, now, map[string]any{"final_decision": chain.Status}))
	}
	if completes {
		entries = append(entries, audit.New("page.completed", "system", a.id, now, map[string]any{"action_id": act.ActionID, "decision": next.Decision}))
		events = append(events, a.event(now, PageCompleted{ActionID: act.ActionID, Decision: next.Decision}))
	}
	if err := a.apply(next, entries, events); err != nil {
		return err
	}
	return &Result{Page: next, Execution: &exec, Previous: prev}
}

// executedBy reports whether identity has executed the action on this page before.
func (p *Page) executedBy(actionID, identity string) bool {
	for _, e := range p.Executions {
		if e.ActionID == actionID && strings.EqualFold(e.Actor, identity) {
			return true
		}
	}
	return false
}

// auditActor names a person acting through the agent's key as user:<identity>.
func auditActor(identity, agent string) string {
	if identity == agent {
		return agent
	}
	return fmt.Sprintf("user:%s", identity)
}
