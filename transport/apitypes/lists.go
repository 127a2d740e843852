package apitypes

// The listings' windows: one shape each, the element left to its reader. The
// server writes each element from its stored record as is (a page through its
// view, an agent event as the bytes the mailbox kept, acknowledged flag added),
// so that nothing on the wire changes with the Go type that carries it; the
// client reads the same window with its structured element (client.Page,
// client.InboxEvent), which is the one definition of the element's shape, and
// TestTheServerWritesTheClientsShapes checks that the two agree.

// PageList is one window of the tenant's pages (GET /v1/pages), newest first.
type PageList[P any] struct {
	Pages  []P `json:"pages"`
	Total  int `json:"total"` // every page that matches the filter
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// EventList is one window of agent events, oldest first: the unacknowledged ones
// (GET /v1/agent/inbox) or one page's retained ones (GET /v1/pages/:id/agent-events).
type EventList[E any] struct {
	Events []E `json:"events"`
	Total  int `json:"total"` // every event of the listing
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// CommentList is one window of a page's comments (GET /v1/pages/:id/comments),
// oldest first.
type CommentList[C any] struct {
	Comments []C `json:"comments"`
	Total    int `json:"total"` // every comment of the page
}

// FileList is a page's files (GET /v1/pages/:id/files).
type FileList[F any] struct {
	Files []F `json:"files"`
}

// AuditList is one page (page, per_page: 1-based) of a page's audit records (GET
// /v1/pages/:id/audit), oldest first.
type AuditList[E any] struct {
	Items   []E `json:"items"`
	Total   int `json:"total"` // every record of the page
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
}

// TemplateList is the catalog of page templates (GET /v1/templates).
type TemplateList[T any] struct {
	Templates []T `json:"templates"`
}

// DeliveryList is one window of a page's callbacks and notifications with their
// attempts (GET /v1/pages/:id/deliveries), newest first.
type DeliveryList[D any] struct {
	Deliveries []D `json:"deliveries"`
	Total      int `json:"total"`
	Limit      int `json:"limit"`
	Offset     int `json:"offset"`
}
