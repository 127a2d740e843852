package page

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"folio/actors/model/fault"
)

// Approval chains (specification 2.5; the request side is Folio's, docs/guide.md).
//
// A chain is a list of steps, each with assignees and a number of approvals it needs
// (min_approvals, default 1). An action decides when it carries decision "approved"
// or "rejected" (by default action approve approves, reject rejects; other actions
// are neutral and leave the chain alone). In sequential mode only the current step
// is open and only its assignees may decide; in parallel mode every step is open
// and a decision counts for each open step the person is assigned to. A step
// completes with min_approvals approvals, or with one rejection; a rejection ends the
// chain as rejected (the steps not reached are skipped), and the chain is approved
// when every step is. The page completes in the same commit as its chain.

// Decisions.
const (
	DecisionApproved = "approved"
	DecisionRejected = "rejected"
)

// Chain and step statuses.
const (
	ChainInProgress = "in_progress"
	StepPending     = "pending"
	StepCompleted   = "completed"
	StepSkipped     = "skipped"
	ModeSequential  = "sequential"
	ModeParallel    = "parallel"
)

// Chain is the state of a page's approval chain.
type Chain struct {
	Mode        string      `json:"mode"`
	Status      string      `json:"chain_status"` // in_progress, approved, rejected
	Steps       []ChainStep `json:"steps"`
	CompletedAt *time.Time  `json:"completed_at,omitempty"`
}

// ChainStep is one step of a chain. Status is pending until the step completes
// (or is skipped because the chain was rejected before reaching it).
type ChainStep struct {
	StepID       string         `json:"step_id"`
	Name         string         `json:"name"`
	Status       string         `json:"status"`
	Assignees    []string       `json:"assignees"`
	MinApprovals int            `json:"min_approvals"`
	Decisions    []StepDecision `json:"decisions"`
	Decision     string         `json:"decision,omitempty"`
	DecidedBy    string         `json:"decided_by,omitempty"`
	DecidedAt    *time.Time     `json:"decided_at,omitempty"`
	// AuthMethod and Key are how DecidedBy was established (StepDecision).
	AuthMethod string  `json:"auth_method,omitempty"`
	Key        *KeyRef `json:"key,omitempty"`
	// Deadline is the step's deadline, nil when it has none (deadline.go).
	Deadline *Deadline `json:"deadline,omitempty"`
}

// StepDecision is one person's decision on a step.
type StepDecision struct {
	Identity  string    `json:"identity"`
	Decision  string    `json:"decision"`
	ActionID  string    `json:"action_id"`
	Comment   *string   `json:"comment"`
	DecidedAt time.Time `json:"decided_at"`
	// AuthMethod is how Identity was established (magic_link, oauth, api_key);
	// Key is the API key that named Identity when a key recorded the decision.
	AuthMethod string  `json:"auth_method,omitempty"`
	Key        *KeyRef `json:"key,omitempty"`
}

// ChainView is the approval chain status of GET /v1/pages/:id/approval and of the
// page object's approval_chain: the chain with current_step, the id of the first
// step still pending (null once the chain is finished).
type ChainView struct {
	ChainStatus string      `json:"chain_status"`
	Mode        string      `json:"mode"`
	CurrentStep *string     `json:"current_step"`
	Steps       []ChainStep `json:"steps"`
	CompletedAt *time.Time  `json:"completed_at,omitempty"`
}

// View is the chain's status document.
func (c *Chain) View() ChainView {
	v := ChainView{ChainStatus: c.Status, Mode: c.Mode, Steps: c.Steps, CompletedAt: c.CompletedAt}
	if i := c.current(); i >= 0 {
		id := c.Steps[i].StepID
		v.CurrentStep = &id
	}
	return v
}

func (c *Chain) viewJSON() json.RawMessage {
	b, _ := json.Marshal(c.View())
	return b
}

// current is the index of the first pending step, -1 when none is.
func (c *Chain) current() int {
	if c.Status != ChainInProgress {
		return -1
	}
	for i, s := range c.Steps {
		if s.Status == StepPending {
			return i
		}
	}
	return -1
}

func (c *Chain) clone() *Chain {
	n := *c
	n.Steps = make([]ChainStep, len(c.Steps))
	for i, s := range c.Steps {
		s.Assignees = append([]string{}, s.Assignees...)
		s.Decisions = append([]StepDecision{}, s.Decisions...)
		n.Steps[i] = s
	}
	return &n
}

func (c *Chain) decided() bool {
	for _, s := range c.Steps {
		if len(s.Decisions) > 0 {
			return true
		}
	}
	return false
}

// chainRequest is the request field approval_chain.
type chainRequest struct {
	Mode  string `json:"mode"`
	Steps []struct {
		StepID       string   `json:"step_id"`
		Name         string   `json:"name"`
		Assignees    []string `json:"assignees"`
		MinApprovals *int     `json:"min_approvals"`
	} `json:"steps"`
}

const (
	maxSteps     = 20
	maxAssignees = 100
)

// setChain validates the request's approval_chain and sets it on p (null removes
// it). A chain that has recorded a decision cannot be replaced (409).
func setChain(p *Page, raw json.RawMessage) ([]string, error) {
	if p.Approval != nil && p.Approval.decided() {
		e := fault.New(fault.Conflict, "the approval chain has recorded decisions and cannot be replaced", map[string]any{"field": "approval_chain", "status": p.Status})
		return nil, e
	}
	if isNull(raw) {
		p.Approval, p.ApprovalChain = nil, nil
		return nil, nil
	}
	var req chainRequest
	if err := fault.DecodeJSON("approval_chain", raw, &req); err != nil {
		return nil, err
	}
	c := &Chain{Mode: req.Mode, Status: ChainInProgress}
	if c.Mode == "" {
		c.Mode = ModeSequential
	}
	if c.Mode != ModeSequential && c.Mode != ModeParallel {
		e := fault.Field("approval_chain.mode", "enum", "approval_chain.mode must be sequential or parallel")
		e.Details["allowed"] = []string{ModeSequential, ModeParallel}
		return nil, e
	}
	if len(req.Steps) == 0 {
		return nil, fault.Field("approval_chain.steps", "required", "approval_chain.steps needs at least one step")
	}
	if len(req.Steps) > maxSteps {
		return nil, fault.Limit("approval_chain.steps", "max_items", maxSteps, "approval_chain.steps has at most %d steps", maxSteps)
	}
	seen := map[string]bool{}
	for i, s := range req.Steps {
		at := fmt.Sprintf("approval_chain.steps[%d]", i)
		st := ChainStep{StepID: s.StepID, Name: strings.TrimSpace(s.Name), Status: StepPending, Decisions: []StepDecision{}}
		if st.StepID == "" {
			st.StepID = fmt.Sprintf("step_%d", i+1)
		} else if !actionIDRe.MatchString(st.StepID) {
			return nil, fault.Field(at+".step_id", "format", "%s.step_id may use letters, digits and _ . : - (at most 64)", at)
		}
		if seen[st.StepID] {
			return nil, fault.Field(at+".step_id", "unique", "step_id %q is used twice", st.StepID)
		}
		seen[st.StepID] = true
		if st.Name == "" {
			st.Name = fmt.Sprintf("Step %d", i+1)
		}
		if utf8.RuneCountInString(st.Name) > 200 {
			return nil, fault.Limit(at+".name", "max_length", 200, "%s.name has at most 200 characters", at)
		}
		if len(s.Assignees) == 0 {
			return nil, fault.Field(at+".assignees", "required", "%s.assignees needs at least one identity", at)
		}
		if len(s.Assignees) > maxAssignees {
			return nil, fault.Limit(at+".assignees", "max_items", maxAssignees, "%s.assignees has at most %d identities", at, maxAssignees)
		}
		who := map[string]bool{}
		for j, a := range s.Assignees {
			a = strings.TrimSpace(a)
			if a == "" || len(a) > 320 {
				return nil, fault.Field(fmt.Sprintf("%s.assignees[%d]", at, j), "format", "an assignee is a non-empty identity of at most 320 characters")
			}
			if who[strings.ToLower(a)] {
				return nil, fault.Field(fmt.Sprintf("%s.assignees[%d]", at, j), "unique", "assignee %q is listed twice", a)
			}
			who[strings.ToLower(a)] = true
			st.Assignees = append(st.Assignees, a)
		}
		st.MinApprovals = 1
		if s.MinApprovals != nil {
			if *s.MinApprovals < 1 || *s.MinApprovals > len(st.Assignees) {
				e := fault.Field(at+".min_approvals", "range", "%s.min_approvals must be between 1 and the number of assignees (%d)", at, len(st.Assignees))
				e.Details["minimum"], e.Details["maximum"] = 1, len(st.Assignees)
				return nil, e
			}
			st.MinApprovals = *s.MinApprovals
		}
		c.Steps = append(c.Steps, st)
	}
	p.Approval, p.ApprovalChain = c, c.viewJSON()
	var warnings []string
	decides := false
	for _, a := range p.Actions {
		decides = decides || a.decision() != ""
	}
	if !decides {
		warnings = append(warnings, `approval_chain: no action decides; add actions "approve" and "reject" or give an action decision "approved" or "rejected"`)
	}
	return warnings, nil
}

// decision is the polarity of executing the action: its decision field when given;
// else approve/approved/accept approve, and reject/deny/decline (any case) or the
// style danger reject; any other action is neutral (""): in an approval chain it
// decides no step. A neutral action that completes a page without a chain approves
// (completionDecision).
func (a Action) decision() string {
	if a.Decision == decisionNone {
		return ""
	}
	if a.Decision != "" {
		return a.Decision
	}
	switch strings.ToLower(a.ActionID) {
	case "approve", "approved", "accept":
		return DecisionApproved
	case "reject", "rejected", "deny", "decline":
		return DecisionRejected
	}
	if a.Style == "danger" {
		return DecisionRejected
	}
	return ""
}

// completionDecision is what a page completed by executing a decides, when no
// approval chain decides it: the action's polarity, approving when neutral, and
// nothing ("": the page's decision stays null) for an action declared
// decision:"none".
func (a Action) completionDecision() string {
	if a.Decision == decisionNone {
		return ""
	}
	if d := a.decision(); d != "" {
		return d
	}
	return DecisionApproved
}

// normalizeDecision reads an action's declared decision: "approve"/"reject" (the
// words an agent writes) or "approved"/"rejected" (the outcome); ok is false for
// anything else.
func normalizeDecision(d string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(d)) {
	case "":
		return "", true
	case "approve", "approved":
		return DecisionApproved, true
	case "reject", "rejected":
		return DecisionRejected, true
	case "none":
		return decisionNone, true
	}
	return "", false
}

func assigned(s ChainStep, identity string) bool {
	for _, a := range s.Assignees {
		if strings.EqualFold(a, identity) {
			return true
		}
	}
	return false
}

func hasDecided(s ChainStep, identity string) bool {
	for _, d := range s.Decisions {
		if strings.EqualFold(d.Identity, identity) {
			return true
		}
	}
	return false
}

// decide records identity's decision on c (a clone the caller owns) and returns the
// indexes of the steps it completed, in order. Someone who may not decide now is 403;
// someone who already decided on every step open to them is 409.
func (c *Chain) decide(identity, decision, actionID string, comment *string, at time.Time) ([]int, error) {
	return c.decideAs(StepDecision{Identity: identity, Decision: decision, ActionID: actionID, Comment: comment, DecidedAt: at})
}

// decideAs is decide with the whole decision, recorded as given (with how its
// identity was established).
func (c *Chain) decideAs(d StepDecision) ([]int, error) {
	identity, decision, at := d.Identity, d.Decision, d.DecidedAt
	var open []int
	if c.Mode == ModeSequential {
		if i := c.current(); i >= 0 {
			open = []int{i}
		}
	} else {
		for i, s := range c.Steps {
			if s.Status == StepPending {
				open = append(open, i)
			}
		}
	}
	var mine []int
	already := false
	for _, i := range open {
		if !assigned(c.Steps[i], identity) {
			continue
		}
		if hasDecided(c.Steps[i], identity) {
			already = true
			continue
		}
		mine = append(mine, i)
	}
	if len(mine) == 0 {
		if already {
			e := fault.New(fault.Conflict, identity+" has already decided on the open step", map[string]any{"identity": identity, "status": Active})
			if len(open) > 0 {
				e.Details["step_id"] = c.Steps[open[0]].StepID
			}
			return nil, e
		}
		e := fault.New(fault.Forbidden, identity+" is not an assignee of the step awaiting a decision", map[string]any{"identity": identity})
		if len(open) > 0 {
			e.Details["step_id"] = c.Steps[open[0]].StepID
			e.Details["assignees"] = c.Steps[open[0]].Assignees
		}
		return nil, e
	}
	var done []int
	for _, i := range mine {
		s := &c.Steps[i]
		s.Decisions = append(s.Decisions, d)
		approvals := 0
		for _, d := range s.Decisions {
			if d.Decision == DecisionApproved {
				approvals++
			}
		}
		if decision == DecisionRejected || approvals >= s.MinApprovals {
			t := at
			s.Status, s.Decision, s.DecidedBy, s.DecidedAt = StepCompleted, decision, identity, &t
			s.AuthMethod, s.Key = d.AuthMethod, d.Key
			done = append(done, i)
		}
	}
	c.settle(at)
	return done, nil
}

// stepCompleted is approval.step_completed for step i (specification 6.2); the
// next step is the one now pending, if any.
func (c *Chain) stepCompleted(i int) ApprovalStepCompleted {
	s := c.Steps[i]
	d := ApprovalStepCompleted{StepID: s.StepID, StepName: s.Name, Decision: s.Decision, DecidedBy: s.DecidedBy, AuthMethod: s.AuthMethod, Key: s.Key}
	if j := c.current(); j >= 0 {
		d.NextStep = c.Steps[j].StepID
	}
	return d
}

// auditDetails are the audit entry's details of a completed step: the fields of its
// event, spelled as the specification's event table spells them (next_step null
// when no step is pending).
func (d ApprovalStepCompleted) auditDetails() map[string]any {
	var next any
	if d.NextStep != "" {
		next = d.NextStep
	}
	m := map[string]any{"step_id": d.StepID, "step_name": d.StepName, "decision": d.Decision, "decided_by": d.DecidedBy, "next_step": next}
	if d.AuthMethod != "" {
		m["auth_method"] = d.AuthMethod
	}
	if d.Key != nil {
		m["key"] = *d.Key
	}
	return m
}

// completed is approval.chain_completed: the final decision and every step's
// decision ("" for a skipped step).
func (c *Chain) completed() ApprovalChainCompleted {
	steps := make([]StepSummary, len(c.Steps))
	for i, s := range c.Steps {
		steps[i] = StepSummary{StepID: s.StepID, Decision: s.Decision}
	}
	return ApprovalChainCompleted{FinalDecision: c.Status, Steps: steps}
}
