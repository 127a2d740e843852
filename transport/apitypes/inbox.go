package apitypes

import "time"

// InboxEntry is one page in the tenant's inbox, with the page's own status.
type InboxEntry struct {
	ID         string     `json:"id"`
	PageID     string     `json:"pageId"`
	Title      string     `json:"title"`
	PageType   string     `json:"pageType"`
	Status     string     `json:"status"` // unread, read, archived
	Starred    bool       `json:"starred"`
	Priority   string     `json:"priority"`
	CreatedAt  time.Time  `json:"createdAt"`
	PageStatus string     `json:"pageStatus"`
	Decision   NullString `json:"decision"` // approved or rejected once the page completed
	// The last executed action, its label and outcome (approved, rejected, none);
	// null before any.
	ActionID    NullString `json:"actionId"`
	ActionLabel NullString `json:"actionLabel"`
	Outcome     NullString `json:"outcome"`
}

// InboxList is one window of the inbox (GET /v1/inbox), newest first.
type InboxList struct {
	Entries []InboxEntry `json:"entries"`
	Total   int          `json:"total"`
	Limit   int          `json:"limit"`
	Offset  int          `json:"offset"`
}
