package page

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"folio/actors/audit"
	"folio/actors/fault"
)

// execute runs an action. The page actor handles one message at a time and the page
// leaves `active` in the same commit as the execution that completes it, so exactly
// one of any number of concurrent executions wins; every other one finds the page
// completed and gets 409 CONFLICT.
//
// Without an approval chain the first execution completes the page. With a chain a
// deciding action records a decision (only by someone the chain lets decide now: 403
// otherwise, 409 for a second decision on the same step) and the page completes with
// the chain; a neutral action is recorded and leaves the page active (once per
// person). Form data on a page with form blocks is validated before anything is
// recorded (forms.go).
func (a *Actor) execute(m *Execute) any {
	act, ok := a.page.action(m.ActionID)
	if !ok {
		return fault.Missing("action", m.ActionID)
	}
	prev := a.page.Status
	if prev != Active {
		e := fault.State("execute an action on", prev)
		e.Details["action_id"] = m.ActionID
		return e
	}
	req := m.Req
	if req == nil {
		req = &ActionRequest{}
	}
	if req.Comment != nil && utf8.RuneCountInString(*req.Comment) > 10000 {
		return limitErr("comment", "max_length", 10000, "comment has at most 10000 characters")
	}
	hasForm := req.FormData != nil && !isNull(req.FormData)
	if hasForm && !isObject(req.FormData) {
		return fault.Field("form_data", "type", "form_data must be an object or null")
	}
	actorID := m.Agent
	if req.Actor != nil && req.Actor.Identity != "" {
		if len(req.Actor.Identity) > 320 {
			return limitErr("actor.identity", "max_length", 320, "actor.identity has at most 320 characters")
		}
		actorID = strings.TrimSpace(req.Actor.Identity)
	}
	now := a.deps.Now().UTC()

	decision := act.decision()
	var chain *Chain // the chain after this decision; nil when untouched
	var stepsDone []int
	if c := a.page.Approval; c != nil && c.Status == ChainInProgress {
		if decision != "" {
			chain = c.clone()
			var err error
			if stepsDone, err = chain.decide(actorID, decision, act.ActionID, req.Comment, now); err != nil {
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

	exec := Execution{ActionID: act.ActionID, Actor: actorID, Comment: req.Comment, ExecutedAt: now, Decision: decision}
	var formData json.RawMessage
	if hasForm {
		formData = append(json.RawMessage(nil), req.FormData...)
		exec.FormData = formData
	}
	next := a.page.clone()
	next.Executions = append(next.Executions, exec)
	next.Stats.ActionCount++
	next.UpdatedAt = now
	completes := a.page.Approval == nil || a.page.Approval.Status != ChainInProgress || (chain != nil && chain.Status != ChainInProgress)
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

	who := auditActor(actorID, m.Agent)
	person := map[string]any{"identity": actorID, "auth_method": authMethod(m)}
	var commentVal any
	if req.Comment != nil {
		commentVal = *req.Comment
	}
	var formVal any
	if formData != nil {
		formVal = formData
	}
	executed := a.event("action.executed", now, map[string]any{
		// the stream payload (specification 6.1) ...
		"actionId": act.ActionID, "actor": actorID,
		// ... and the callback's (6.2)
		"action_id": act.ActionID, "action_label": act.Label, "comment": commentVal, "form_data": formVal,
		"page_state": map[string]any{"previous": prev, "current": next.Status},
	})
	switch {
	case decision != "":
		executed.Data["decision"] = decision
	case completes:
		executed.Data["decision"] = next.Decision
	}
	executed.Actor = person
	entries := []audit.Entry{audit.New("action.executed", who, a.id, now, map[string]any{"action_id": act.ActionID, "label": act.Label, "comment": req.Comment})}
	events := []Event{executed}
	if hasForm && formPage {
		ev := a.event("form.submitted", now, map[string]any{"form_data": formVal, "action_id": act.ActionID})
		ev.Actor = person
		events = append(events, ev)
		entries = append(entries, audit.New("form.submitted", who, a.id, now, map[string]any{"action_id": act.ActionID}))
	}
	for _, i := range stepsDone {
		data := chain.stepCompletedData(i)
		events = append(events, a.event("approval.step_completed", now, data))
		entries = append(entries, audit.New("approval.step_completed", who, a.id, now, data))
	}
	if chain != nil && chain.Status != ChainInProgress {
		data := chain.chainCompletedData()
		events = append(events, a.event("approval.chain_completed", now, data))
		entries = append(entries, audit.New("approval.chain_completed", "system", a.id, now, map[string]any{"final_decision": chain.Status}))
	}
	if completes {
		entries = append(entries, audit.New("page.completed", "system", a.id, now, map[string]any{"action_id": act.ActionID, "decision": next.Decision}))
		events = append(events, a.event("page.completed", now, map[string]any{"actionId": act.ActionID, "decision": next.Decision}))
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

// authMethod is how the person acting was authenticated: actions come in through the
// agent's API key, which vouches for actor.identity.
func authMethod(*Execute) string { return "api_key" }

// auditActor names a person acting through the agent's key as user:<identity>.
func auditActor(identity, agent string) string {
	if identity == agent {
		return agent
	}
	return fmt.Sprintf("user:%s", identity)
}
