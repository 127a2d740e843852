package client

import "time"

// DeadlineRequest is the clock of a decision, on a page request or an approval step
// (sent beside their other fields): a due time distinct from expiry (DueAt, or
// DueIn seconds from the start of the clock), reminders, and what happens when it
// passes. Left empty, there is no deadline (on PATCH: the deadline is left as is).
type DeadlineRequest struct {
	DueAt     *time.Time `json:"due_at,omitempty"`
	DueIn     int        `json:"due_in,omitempty"`
	Remind    *Remind    `json:"remind,omitempty"`
	OnTimeout *OnTimeout `json:"on_timeout,omitempty"`
}

// Remind sends a reminder every EverySeconds to the people who still have to act,
// at most Max times.
type Remind struct {
	EverySeconds int `json:"every_seconds"`
	Max          int `json:"max"`
}

// OnTimeout is what the due time does: ActionID applies that action as the
// default outcome (decided by "system", auth_method "timeout"); EscalateTo adds
// assignees, with a new due time only when DueAt or DueIn say so.
type OnTimeout struct {
	ActionID   string     `json:"action_id,omitempty"`
	EscalateTo []string   `json:"escalate_to,omitempty"`
	DueAt      *time.Time `json:"due_at,omitempty"`
	DueIn      int        `json:"due_in,omitempty"`
}

// Deadline is a deadline as the page keeps it, and how far it went.
type Deadline struct {
	DeadlineRequest
	RemindersSent int  `json:"reminders_sent"`
	Overdue       bool `json:"overdue"`
	Fired         bool `json:"fired"`
}
