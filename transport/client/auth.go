package client

import "context"

// RegisterRequest is the body of POST /v1/auth/agent/register.
type RegisterRequest struct {
	Name       string `json:"name"`
	OwnerEmail string `json:"owner_email,omitempty"` // a claim mail goes there
}

// Registration is a new agent account: its key works at once and is shown only
// here.
type Registration struct {
	APIKey    string `json:"apiKey"`
	TenantID  string `json:"tenantId"`
	ClaimCode string `json:"claimCode"`
	ClaimURL  string `json:"claimUrl"`
	Message   string `json:"message"`
}

// Me is the holder of the credential (GET /v1/auth/me): for an API key, the key's
// id with type "agent" and no e-mail.
type Me struct {
	ID       string `json:"id"`
	Email    string `json:"email"`
	TenantID string `json:"tenantId"`
	Type     string `json:"type"` // "agent" or "human"
}

// Register creates an agent account (POST /v1/auth/agent/register). No credential
// is sent, whatever key the client holds; use the returned key in a new client.
func (c *Client) Register(ctx context.Context, req RegisterRequest) (*Registration, error) {
	r, err := c.newRequest(ctx, "POST", "/v1/auth/agent/register", req)
	if err != nil {
		return nil, err
	}
	var out Registration
	if err := c.send(r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Me tells who the client's credential is (GET /v1/auth/me).
func (c *Client) Me(ctx context.Context) (*Me, error) {
	return call[Me](ctx, c, "GET", "/v1/auth/me", nil)
}
