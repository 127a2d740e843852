package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"folio/persistence"
)

// defaultAPIURL is Slack's Web API; --slack-api-url replaces it (tests use a fake
// Slack of their own).
const defaultAPIURL = "https://slack.com/api"

// defaultResponseOrigin is where Slack's response_url addresses live.
const defaultResponseOrigin = "https://hooks.slack.com"

// maxAnswer caps what is read of a Slack answer.
const maxAnswer = 1 << 20

// Client calls the Slack Web API (POST <BaseURL>/<method>, a JSON body, the bot
// token as Bearer) and interactions' response_url addresses. HTTP is the
// SSRF-guarded client of deliveries, except with a test's --slack-api-url.
type Client struct {
	BaseURL string
	HTTP    *http.Client
	Store   *persistence.Store
}

// APIError is a Slack answer that is not ok: its error code (invalid_auth,
// channel_not_found, ratelimited, …), the HTTP status, and Retry-After on 429.
type APIError struct {
	Method     string
	Code       string
	Status     int
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("Slack %s answered HTTP %d", e.Method, e.Status)
	}
	return fmt.Sprintf("Slack %s: %s", e.Method, e.Code)
}

// Permanent tells an error no retry can fix (a bad token, an unknown channel, a
// message Slack refuses) from a passing one.
func (e *APIError) Permanent() bool {
	switch e.Code {
	case "not_authed", "invalid_auth", "account_inactive", "token_revoked", "token_expired", "no_permission",
		"channel_not_found", "not_in_channel", "is_archived", "missing_scope", "invalid_blocks", "msg_too_long",
		"no_text", "invalid_arguments", "restricted_action", "user_not_found", "not_configured":
		return true
	}
	return false
}

// NotConfigured is the error of a tenant without credentials.
var errNotConfigured = &APIError{Method: "chat.postMessage", Code: "not_configured"}

func (c *Client) base() string {
	if c.BaseURL == "" {
		return defaultAPIURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

// Call sends a JSON body to method with token and decodes the answer into out
// (may be nil). Slack takes JSON for its write methods (chat.postMessage,
// chat.update); read methods take a form (UserInfo).
func (c *Client) Call(ctx context.Context, token, method string, body []byte, out any) (int, error) {
	return c.call(ctx, token, method, "application/json; charset=utf-8", body, out)
}

func (c *Client) call(ctx context.Context, token, method, contentType string, body []byte, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base()+"/"+method, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+token)
	hc, err := c.client()
	if err != nil {
		return 0, err
	}
	res, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return res.StatusCode, err
	}
	if res.StatusCode != http.StatusOK {
		e := &APIError{Method: method, Status: res.StatusCode}
		if res.StatusCode == http.StatusTooManyRequests {
			e.Code = "ratelimited"
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
				e.RetryAfter = time.Duration(s) * time.Second
			}
		}
		return res.StatusCode, e
	}
	var ok struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(raw, &ok); err != nil {
		return res.StatusCode, fmt.Errorf("the Slack API method %s answered something that is not JSON", method)
	}
	if !ok.OK {
		return res.StatusCode, &APIError{Method: method, Code: ok.Error, Status: res.StatusCode}
	}
	if out != nil {
		return res.StatusCode, json.Unmarshal(raw, out)
	}
	return res.StatusCode, nil
}

// Posted is where chat.postMessage put a message: what chat.update names later.
type Posted struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
}

// PostAs posts a chat.postMessage body with tenantID's bot token (a delivery's
// attempt) and answers where the message is. A tenant without credentials gets a
// permanent APIError saying how to set them.
func (c *Client) PostAs(ctx context.Context, tenantID string, body []byte) (int, Posted, error) {
	var at Posted
	s, err := Load(c.Store, tenantID)
	if err != nil {
		return 0, at, err
	}
	if s == nil {
		return 0, at, errNotConfigured
	}
	status, err := c.Call(ctx, s.BotToken, "chat.postMessage", body, &at)
	return status, at, err
}

// UpdateAs sends a chat.update body with tenantID's bot token (a delivery's
// attempt), errors as PostAs's.
func (c *Client) UpdateAs(ctx context.Context, tenantID string, body []byte) (int, error) {
	s, err := Load(c.Store, tenantID)
	if err != nil {
		return 0, err
	}
	if s == nil {
		return 0, &APIError{Method: "chat.update", Code: "not_configured"}
	}
	return c.Call(ctx, s.BotToken, "chat.update", body, nil)
}

// User is what users.info says of a Slack user.
type User struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
	IsBot   bool   `json:"is_bot"`
	Profile struct {
		Email string `json:"email"`
	} `json:"profile"`
}

// UserInfo asks users.info about user (needs the users:read.email scope for the address).
func (c *Client) UserInfo(ctx context.Context, token, user string) (*User, error) {
	body := url.Values{"user": {user}}.Encode()
	var out struct {
		User User `json:"user"`
	}
	if _, err := c.call(ctx, token, "users.info", "application/x-www-form-urlencoded", []byte(body), &out); err != nil {
		return nil, err
	}
	return &out.User, nil
}

// responseOrigin is the origin a response_url must have: Slack's hooks host, or
// the fake Slack's when --slack-api-url points elsewhere. Nothing else is posted to,
// whatever a payload says.
func (c *Client) responseOrigin() string {
	if c.BaseURL == "" || c.BaseURL == defaultAPIURL {
		return defaultResponseOrigin
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return defaultResponseOrigin
	}
	return u.Scheme + "://" + u.Host
}

// Respond posts msg to an interaction's response_url.
func (c *Client) Respond(ctx context.Context, responseURL string, msg any) error {
	u, err := url.Parse(responseURL)
	if err != nil || u.Scheme+"://"+u.Host != c.responseOrigin() {
		return errors.New("response_url is not a Slack address")
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, responseURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	hc, err := c.client()
	if err != nil {
		return err
	}
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxAnswer))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("response_url answered HTTP %d", res.StatusCode)
	}
	return nil
}

// client is the HTTP client; none when the node's dispatcher did not start.
func (c *Client) client() (*http.Client, error) {
	if c.HTTP == nil {
		return nil, errors.New("no HTTP client for Slack on this node (its delivery dispatcher did not start)")
	}
	return c.HTTP, nil
}
