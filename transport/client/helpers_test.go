package client_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"folio/transport/client"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// agent starts a node and registers an agent through the client: the node and a
// client holding the new key.
func agent(t *testing.T, name string, opts ...nodetest.Option) (*nodetest.Env, *client.Client) {
	t.Helper()
	e := nodetest.New(t, opts...)
	return e, register(t, e, name)
}

// register makes another agent on the node.
func register(t *testing.T, e *nodetest.Env, name string, opts ...client.Option) *client.Client {
	t.Helper()
	reg, err := client.New(e.Srv.URL, "").Register(ctx(t), client.RegisterRequest{Name: name})
	if err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	c := client.New(e.Srv.URL, reg.APIKey, opts...)
	keys.Store(c, reg.APIKey)
	return c
}

// keys are the API keys of the clients register made.
var keys sync.Map // *client.Client -> string

// keyOf is the API key of a client register made, for raw requests and for other
// clients of the same agent.
func keyOf(c *client.Client) string {
	k, _ := keys.Load(c)
	return k.(string)
}

// ctx is a context that ends with the test (and after a minute at most).
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// allowPrivate lets the node deliver callbacks to the tests' loopback receivers.
func allowPrivate(c *node.Config) { c.AllowPrivateCallbacks = true }

// approvalPage is a page asking for approve or reject.
func approvalPage(title string) client.PageRequest {
	return client.PageRequest{
		Title:    title,
		PageType: "approval",
		Blocks:   []client.Block{{Type: "text", Data: map[string]any{"content": "All checks passed."}}},
		Actions: []client.Action{
			{ActionID: "approve", Label: "Approve", Style: "primary"},
			{ActionID: "reject", Label: "Reject", Style: "danger"},
		},
	}
}

// must takes a call's two results and returns v, failing the test on err:
// must(c.GetPage(cx, id))(t).
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// asError is errors.As for the client's error type.
func asError(err error, target **client.Error) bool { return errors.As(err, target) }

// eventually polls cond until it holds.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
