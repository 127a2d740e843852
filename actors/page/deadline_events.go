package page

import "time"

// The events of deadlines (deadline.go). StepID is "" for the page's own deadline.

// ApprovalReminderSent is approval.reminder_sent: reminder number Reminder of Max
// went to the people who still have to act (Recipients; nil on a page without an
// approval chain, whose notify channels are reminded).
type ApprovalReminderSent struct {
	StepID     string
	Reminder   int
	Max        int
	Recipients []string
	DueAt      *time.Time
}

// ApprovalEscalated is approval.escalated: the due time passed and EscalateTo were
// added as assignees (of StepID, or of every open step for the page's deadline);
// DueAt is the new due time, nil when the escalation gave none.
type ApprovalEscalated struct {
	StepID     string
	EscalateTo []string
	Assignees  []string
	DueAt      *time.Time
}

// pageOverdue is page.overdue: the due time DueAt of the page (StepID "") or of
// a step passed with nobody deciding; OnTimeout says what follows ("action",
// "escalate" or "none").
type pageOverdue struct {
	StepID    string
	DueAt     time.Time
	OnTimeout string
	ActionID  string
}

func (ApprovalReminderSent) EventType() string { return "approval.reminder_sent" }
func (ApprovalEscalated) EventType() string    { return "approval.escalated" }
func (pageOverdue) EventType() string          { return "page.overdue" }

func (d ApprovalReminderSent) stream(*Person) any {
	recipients := d.Recipients
	if recipients == nil {
		recipients = []string{}
	}
	return struct {
		DueAt      *time.Time `json:"due_at"`
		Max        int        `json:"max"`
		Recipients []string   `json:"recipients"`
		Reminder   int        `json:"reminder"`
		StepID     *string    `json:"step_id"`
	}{d.DueAt, d.Max, recipients, d.Reminder, orNull(d.StepID)}
}

func (d ApprovalEscalated) stream(*Person) any {
	return struct {
		Assignees  []string   `json:"assignees"`
		DueAt      *time.Time `json:"due_at"`
		EscalateTo []string   `json:"escalate_to"`
		StepID     *string    `json:"step_id"`
	}{d.Assignees, d.DueAt, d.EscalateTo, orNull(d.StepID)}
}

func (d pageOverdue) stream(*Person) any {
	return struct {
		ActionID  *string   `json:"action_id"`
		DueAt     time.Time `json:"due_at"`
		OnTimeout string    `json:"on_timeout"`
		StepID    *string   `json:"step_id"`
	}{orNull(d.ActionID), d.DueAt, d.OnTimeout, orNull(d.StepID)}
}
