package page

// Verdicts mean what they say. An action declares its outcome with `decision`
// (approve, reject or none) and whether executing it ends the page with `final`
// (default true). Without `decision` the outcome is inferred as before
// (Action.decision: approve/accept ids approve, reject/deny/decline ids and danger
// style reject; any other action approves when it completes a page without a chain).
// An action with `final: false` is recorded and announced (action.executed to the
// agent's stream and callback) and leaves the page active; it never decides an
// approval step, and each person executes it at most once.

// decisionNone is the stored decision of an action declared `decision: "none"`: a
// neutral outcome, neither approval nor rejection, even when it completes the page.
const decisionNone = "none"

// OutcomeNone is the outcome of an execution that neither approved nor rejected.
const OutcomeNone = "none"

// Verdict is what one execution decided and about which content: the action's
// label, its outcome (approved, rejected or none), whether it ended the page, and
// the content version and hash of the page it was made on. It is part of every
// recorded execution (Execution), of action.executed, and of the audit entry.
type Verdict struct {
	ActionLabel string `json:"action_label,omitempty"`
	Outcome     string `json:"outcome,omitempty"`
	// Step is true for an action declared final:false (the page stayed active).
	Step        bool   `json:"step,omitempty"`
	PageVersion int    `json:"page_version,omitempty"`
	ContentHash string `json:"content_hash,omitempty"`
	// Edits are the reviewer's corrections of editable blocks that the approval
	// carries (edits.go); nil when none.
	Edits []Edit `json:"edits,omitempty"`
}

// Final reports whether executing the action ends the page (true unless declared false).
func (a Action) final() bool { return a.Final == nil || *a.Final }

// LastExecution is the page's most recent execution, nil when none.
func (p *Page) LastExecution() *Execution {
	if n := len(p.Executions); n > 0 {
		return &p.Executions[n-1]
	}
	return nil
}

// OutcomeOf names an execution's outcome for records made before outcomes were
// stored: its decision, else none.
func (e Execution) OutcomeOf() string {
	switch {
	case e.Outcome != "":
		return e.Outcome
	case e.Decision == DecisionApproved || e.Decision == DecisionRejected:
		return e.Decision
	}
	return OutcomeNone
}

// OutcomeOf is the outcome of an execution whose decision (ActionExecuted.Decision)
// is d: approved, rejected, or none.
func OutcomeOf(d string) string {
	if d == DecisionApproved || d == DecisionRejected {
		return d
	}
	return OutcomeNone
}
