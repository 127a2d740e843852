package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"golang.org/x/oauth2"
)

// exchange redeems code with its PKCE verifier at c's token endpoint, through client.
//
// A refusal by the token endpoint is reported by status and RFC 6749 error code only:
// oauth2.RetrieveError's own text quotes the response body, which is not ours to log.
func exchange(ctx context.Context, c *oauth2.Config, client *http.Client, code, verifier string) (*oauth2.Token, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	tok, err := c.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	var refused *oauth2.RetrieveError
	switch {
	case errors.As(err, &refused):
		status := "no response"
		if refused.Response != nil {
			status = fmt.Sprintf("%d %s", refused.Response.StatusCode, http.StatusText(refused.Response.StatusCode))
		}
		if refused.ErrorCode != "" {
			return nil, fmt.Errorf("token endpoint refused the code: %s, error %q", status, refused.ErrorCode)
		}
		return nil, fmt.Errorf("token endpoint refused the code: %s", status)
	case err != nil:
		return nil, fmt.Errorf("token exchange: %w", err)
	}
	return tok, nil
}
