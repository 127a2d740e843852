package page

import (
	"fmt"
	"unicode/utf8"

	"folio/actors/audit"
	"folio/actors/fault"
)

// execute runs an action. The page actor handles one message at a time and the page
// leaves `active` in the same commit as the first execution, so exactly one of any
// number of concurrent executions wins; every other one finds the page completed and
// gets 409 CONFLICT.
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
	if req.FormData != nil && !isNull(req.FormData) && !isObject(req.FormData) {
		return fault.Field("form_data", "type", "form_data must be an object or null")
	}
	actorID := m.Agent
	if req.Actor != nil && req.Actor.Identity != "" {
		if len(req.Actor.Identity) > 320 {
			return limitErr("actor.identity", "max_length", 320, "actor.identity has at most 320 characters")
		}
		actorID = req.Actor.Identity
	}
	now := a.deps.Now().UTC()
	exec := Execution{ActionID: act.ActionID, Actor: actorID, Comment: req.Comment, ExecutedAt: now}
	if req.FormData != nil && !isNull(req.FormData) {
		exec.FormData = append([]byte(nil), req.FormData...)
	}
	next := a.page.clone()
	next.Executions = append(next.Executions, exec)
	next.Stats.ActionCount++
	next.Status, next.CompletedAt, next.UpdatedAt = Completed, &now, now
	entries := []audit.Entry{
		audit.New("action.executed", auditActor(actorID, m.Agent), a.id, now, map[string]any{"action_id": act.ActionID, "label": act.Label, "comment": req.Comment}),
		audit.New("page.completed", "system", a.id, now, map[string]any{"action_id": act.ActionID}),
	}
	events := []Event{
		a.event("action.executed", now, map[string]any{"actionId": act.ActionID, "actor": actorID}),
		a.event("page.completed", now, map[string]any{"actionId": act.ActionID}),
	}
	if err := a.apply(next, entries, events); err != nil {
		return err
	}
	return &Result{Page: next, Execution: &exec, Previous: prev}
}

// auditActor names a person acting through the agent's key as user:<identity>.
func auditActor(identity, agent string) string {
	if identity == agent {
		return agent
	}
	return fmt.Sprintf("user:%s", identity)
}
