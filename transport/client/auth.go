package client

import (
	"context"

	"folio/transport/apitypes"
)

// RegisterRequest is the body of POST /v1/auth/agent/register.
type RegisterRequest struct {
	Name       string `json:"name"`
	OwnerEmail string `json:"owner_email,omitempty"` // a claim mail goes there
}

// Registration is a new agent account: its key works at once and is shown only
// here.
type Registration = apitypes.Registration

// Me is the holder of the credential (GET /v1/auth/me): for an API key, the key's
// id with type "agent" and no e-mail.
type Me = apitypes.Me

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
