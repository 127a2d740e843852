package client_test

import (
	"strings"
	"testing"
	"time"

	"folio/transport/client"
	"folio/transport/node"
)

// TestErrorsAreTyped: a second execution is a 409 (IsConflict) whose details name
// the page's status; another tenant's page and an unknown action are 404; a bad key
// is 401; every one carries the envelope's code and message.
func TestErrorsAreTyped(t *testing.T) {
	e, c := agent(t, "errors")
	cx := ctx(t)
	id := must(c.Publish(cx, approvalPage("Twice?")))(t).PageID
	must(c.ExecuteAction(cx, id, "approve", client.ActionRequest{}))(t)

	_, err := c.ExecuteAction(cx, id, "approve", client.ActionRequest{})
	var fe *client.Error
	if !client.IsConflict(err) || !asError(err, &fe) || fe.Code != client.CodeConflict || fe.Message == "" || fe.Details["status"] != "completed" {
		t.Fatalf("second execution: %#v", err)
	}
	if !strings.HasPrefix(err.Error(), "folio: 409 CONFLICT: ") {
		t.Errorf("Error() = %q", err.Error())
	}
	if _, err := c.ExecuteAction(cx, id, "no_such_action", client.ActionRequest{}); !client.IsNotFound(err) {
		t.Errorf("unknown action: %v", err)
	}
	other := register(t, e, "other")
	if _, err := other.GetPage(cx, id); !client.IsNotFound(err) || client.IsConflict(err) {
		t.Errorf("another tenant's page: %v", err)
	}
	if _, err := client.New(e.Srv.URL, "sk_live_"+"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH").Me(cx); !client.IsUnauthorized(err) {
		t.Errorf("a key that does not exist: %v", err)
	}
	if _, err := c.Publish(cx, client.PageRequest{}); !asError(err, &fe) || fe.Status != 400 || fe.Code != client.CodeInvalidRequest || fe.Details["field"] != "title" {
		t.Errorf("no title: %#v", err)
	}
	if _, ok := client.RetryAfter(err); ok {
		t.Errorf("a 400 says to retry after a while: %v", err)
	}
}

// TestRateLimitCarriesRetryAfter: past the registrations allowed per minute, the
// 429 is IsRateLimited and RetryAfter gives the server's Retry-After.
func TestRateLimitCarriesRetryAfter(t *testing.T) {
	e, _ := agent(t, "first", func(c *node.Config) { c.EnforceLimits, c.RegisterPerMinute = true, 1 })
	_, err := client.New(e.Srv.URL, "").Register(ctx(t), client.RegisterRequest{Name: "second"})
	d, ok := client.RetryAfter(err)
	var fe *client.Error
	if !client.IsRateLimited(err) || !ok || d <= 0 || d > time.Minute || !asError(err, &fe) || fe.Code != client.CodeRateLimited {
		t.Fatalf("second registration: %v (retry after %v, %v)", err, d, ok)
	}
}
