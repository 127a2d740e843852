// Package foliomcp is Folio's MCP server (the Model Context Protocol, on the official
// go-sdk): the tools, resources and prompt an agent uses to publish pages for people
// and get their decisions. Every tool calls Folio's HTTP API through the typed client
// (transport/client), so an MCP agent meets exactly the rules and answers an HTTP
// agent does. It runs over stdio (`folio mcp`) or streamable HTTP (`/mcp` on a node).
//
// An agent without a key gets an account on its first tool call (specification
// section 5): the key, the claim code and the claim address come back in that
// tool's answer, with the sentence to show its human, and are kept for the rest of
// the session (and, over stdio, in a file for the next run).
package foliomcp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/client"
)

// Version is the server's version as MCP clients see it.
const Version = "1.0.0"

// Options says how the MCP server reaches Folio and with which key.
type Options struct {
	// BaseURL is the Folio server's address; HTTPClient (nil: a default one) how to
	// reach it (the node's own /mcp uses an in-process transport).
	BaseURL    string
	HTTPClient *http.Client
	// Key is the API key of a stdio session ("" : the stored one, else provisioned).
	// Over HTTP every request's own `Authorization: Bearer` wins.
	Key string
	// Keys keeps a provisioned key for the next run (stdio); nil: not kept.
	Keys KeyStore
	// AgentName names an account provisioned for a client that says nothing better.
	AgentName string
	// DecisionWait is how long one request_approval or wait_for_decision call
	// waits before it answers pending (0: DefaultDecisionWait, 45 s). Keep it below
	// the request timeout of the clients agents use (60 s by default in the
	// official TypeScript SDK, not reset by progress unless the client asks).
	// Heartbeat is how often a waiting call reports progress to a client that
	// asked for it (0: DefaultHeartbeat, 5 s).
	DecisionWait time.Duration
	Heartbeat    time.Duration

	// Streamable HTTP only (HTTPHandler). Sessions bounds the sessions;
	// CallerAddress names the caller of a request (nil: the TCP peer's address): the
	// per-caller session bound counts under it, and an account a session
	// provisions is registered as that caller's (the registration limit is per
	// caller, not one bucket for every /mcp session).
	Sessions      SessionLimits
	CallerAddress func(*http.Request) string
}

// folio is the state the tools share.
type folio struct {
	o Options

	mu          sync.Mutex
	provisioned map[string]string // MCP session id -> key provisioned for it
}

// NewServer builds the MCP server with every tool, resource and prompt.
func NewServer(o Options) *mcp.Server {
	s, _ := newServer(o, nil)
	return s
}

// newServer builds the server; sessionID (nil: the SDK's) makes the id of each
// streamable HTTP session.
func newServer(o Options, sessionID func() string) (*mcp.Server, *folio) {
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.AgentName == "" {
		o.AgentName = "mcp-agent"
	}
	if o.DecisionWait <= 0 {
		o.DecisionWait = DefaultDecisionWait
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	f := &folio{o: o, provisioned: map[string]string{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "folio", Title: "Folio", Version: Version}, &mcp.ServerOptions{
		Instructions: instructions, GetSessionID: sessionID,
	})
	f.pageTools(s)
	f.readTools(s)
	f.contentTools(s)
	f.decisionTools(s)
	f.resources(s)
	f.prompts(s)
	return s, f
}

const instructions = `Folio shows a person a page you publish (text, tables, diffs, forms, charts…) with buttons such as Approve and Reject, and tells you what they decided.
To ask a person, call request_approval: it publishes the page and waits a bounded time (under a minute). If the answer is status pending, give the person the page's URL (pageUrl) and call wait_for_decision with its page_id, again each time it answers pending: people may take hours, and no decision is lost between calls.
To publish without waiting, call publish_page and later wait_for_decision. A page published without actions gets Approve and Reject. Decisions come back with who decided and how their identity was verified.`

// InProcess is an HTTP client that serves every request with h in this process (a
// node's own API, for the /mcp it mounts).
func InProcess(h http.Handler) *http.Client { return &http.Client{Transport: handlerTransport{h}} }

// Provisioned is what a tool's answer carries when its call created the account.
type Provisioned struct {
	APIKey    string `json:"apiKey" jsonschema:"the new API key: keep it, it is shown once"`
	TenantID  string `json:"tenantId"`
	ClaimCode string `json:"claimCode" jsonschema:"the code a person confirms at claimUrl to own this account (claimUrl carries the claim token after #)"`
	ClaimURL  string `json:"claimUrl"`
	Message   string `json:"message" jsonschema:"what to tell your human"`
}

// clientFor is the API client of a tool call: the request's bearer key (HTTP), the
// key provisioned for this session, the configured or stored key (stdio), or a new
// account (provisioned is then set).
func (f *folio) clientFor(ctx context.Context, req *mcp.CallToolRequest) (*client.Client, *Provisioned, error) {
	var extra *mcp.RequestExtra
	var session *mcp.ServerSession
	if req != nil {
		extra, session = req.Extra, req.Session
	}
	f.mu.Lock()
	defer f.mu.Unlock() // one provisioning per session, even for concurrent first calls
	if k := f.keyOf(extra, session); k != "" {
		return f.client(k), nil, nil
	}
	sid := ""
	if session != nil {
		sid = session.ID()
	}
	name := f.o.AgentName
	if session != nil {
		if p := session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			name = p.ClientInfo.Name
		}
	}
	// Over HTTP ctx names the session's caller: the in-process transport presents
	// the registration as theirs (callerOf), so the limit counts it per caller.
	reg, err := f.client("").Register(ctx, client.RegisterRequest{Name: name})
	if err != nil {
		return nil, nil, fmt.Errorf("no API key was configured, and registering an agent account failed: %w", err)
	}
	f.provisioned[sid] = reg.APIKey
	if f.o.Keys != nil {
		_ = f.o.Keys.Save(reg.APIKey) // kept for the next run; a failure only costs a new account then
	}
	return f.client(reg.APIKey), &Provisioned{APIKey: reg.APIKey, TenantID: reg.TenantID, ClaimCode: reg.ClaimCode, ClaimURL: reg.ClaimURL,
		Message: "I created a Folio account to ask you for decisions. To see and manage what I publish, claim it at " + reg.ClaimURL +
			" (claim code " + reg.ClaimCode + ")."}, nil
}

// forget drops what was kept for a session that ended.
func (f *folio) forget(sessionID string) {
	f.mu.Lock()
	delete(f.provisioned, sessionID)
	f.mu.Unlock()
}

// keyOf is the key a request already has (f.mu held): its bearer (HTTP), the key
// provisioned for its session, the configured one, or the stored one; "" for none.
func (f *folio) keyOf(extra *mcp.RequestExtra, session *mcp.ServerSession) string {
	if extra != nil && extra.Header != nil {
		if h := extra.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
			return strings.TrimSpace(h[7:])
		}
	}
	if session != nil {
		if k := f.provisioned[session.ID()]; k != "" {
			return k
		}
	}
	if f.o.Key != "" {
		return f.o.Key
	}
	if f.o.Keys != nil {
		if k, err := f.o.Keys.Load(); err == nil && k != "" {
			return k
		}
	}
	return ""
}

// readerFor is the client of a resource read: the key the session already has; a
// read never creates an account.
func (f *folio) readerFor(extra *mcp.RequestExtra, session *mcp.ServerSession) (*client.Client, error) {
	f.mu.Lock()
	k := f.keyOf(extra, session)
	f.mu.Unlock()
	if k == "" {
		return nil, fmt.Errorf("no Folio account yet: call a tool such as publish_page first (it creates one), or configure an API key")
	}
	return f.client(k), nil
}

func (f *folio) client(key string) *client.Client {
	return client.New(f.o.BaseURL, key, client.WithHTTPClient(f.o.HTTPClient), client.WithUserAgent("folio-mcp/"+Version))
}
