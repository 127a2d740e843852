package apitypes

import "time"

// Registration is a new agent account (POST /v1/auth/agent/register): its key
// works at once and is shown only here.
type Registration struct {
	APIKey    string `json:"apiKey"`
	TenantID  string `json:"tenantId"`
	ClaimCode string `json:"claimCode"`
	ClaimURL  string `json:"claimUrl"`
	Message   string `json:"message"`
}

// Me is the holder of the credential (GET /v1/auth/me): a person (type "human",
// TenantID their first workspace, null when they have none) or an agent's key
// (type "agent", ID the key's id, Email null). Every member is always present.
type Me struct {
	ID       string     `json:"id"`
	Email    NullString `json:"email"`
	TenantID NullString `json:"tenantId"`
	Type     string     `json:"type"` // "agent" or "human"
}

// Tenant is the account a key belongs to (GET /v1/tenant).
type Tenant struct {
	TenantID string      `json:"tenant_id"`
	Name     string      `json:"name"`
	Plan     string      `json:"plan"`
	Usage    TenantUsage `json:"usage"`
}

// TenantUsage counts this month's live pages and the stored bytes (files and the
// agent event log) against the tenant's effective plan.
type TenantUsage struct {
	PagesThisMonth    int   `json:"pages_this_month"`
	PagesLimit        Limit `json:"pages_limit"`
	StoredBytes       int64 `json:"stored_bytes"` // StoredFileBytes + StoredEventBytes
	StoredFileBytes   int64 `json:"stored_file_bytes"`
	StoredEventBytes  int64 `json:"stored_event_bytes"`
	StorageLimitBytes Limit `json:"storage_limit_bytes"`
}

// Dashboard is the tenant's page counts and rates over a period (GET
// /v1/tenant/dashboard); the server writes its own metrics record, the client
// reads them as its DashboardMetrics (TestTheServerWritesTheClientsShapes holds
// the two to the same members).
type Dashboard[M any] struct {
	Period  string `json:"period"` // 7d, 30d or all
	Metrics M      `json:"metrics"`
}

// FilePresigned is where to PUT a file's bytes (POST /v1/pages/:id/files/presign).
type FilePresigned struct {
	UploadURL  string    `json:"uploadUrl"` // a server path under /v1/storage/upload/; the signature in it is the only credential
	StorageKey string    `json:"storageKey"`
	Filename   string    `json:"filename"`
	MimeType   string    `json:"mimeType"`
	SizeBytes  int64     `json:"sizeBytes"`
	UploadedBy string    `json:"uploadedBy"`
	UploadType string    `json:"uploadType"`
	ExpiresAt  time.Time `json:"expiresAt"` // whole seconds, UTC
}

// FileUploaded is the bytes stored under a presigned key (PUT /v1/storage/upload/…).
type FileUploaded struct {
	StorageKey string `json:"storageKey"`
	SizeBytes  int64  `json:"sizeBytes"`
}
