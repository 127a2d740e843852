package foliomcp

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/actors/model/fault"
)

// SessionLimits bound the sessions of the streamable HTTP endpoint. Every session
// holds memory and goroutines until it ends, and an anonymous `initialize` opens
// one, so each is bounded in time, per caller and on the node.
type SessionLimits struct {
	// Idle ends a session that has had no request for this long. A request in
	// flight (a tool call waiting for a person, streaming progress) is not idle:
	// the clock starts when the session's last request has been answered.
	Idle time.Duration // 0: 30 minutes
	// PerCaller is how many sessions one caller address holds open at once; the
	// next initialize is refused with 429 until one ends.
	PerCaller int // 0: 50
	// Max is how many sessions the node holds open at once; past it a new session
	// is refused with 503.
	Max int // 0: 2,000
	// Node is this node's name among the nodes behind one balancer (--node-name):
	// every session id it hands out starts with Node and a dot, so the balancer can
	// send a session's requests to the node that holds it (docs/nginx/folio.conf).
	// "": ids are random only (one node, or a balancer that keeps a client on one).
	Node string
}

func (l *SessionLimits) defaults() {
	if l.Idle <= 0 {
		l.Idle = 30 * time.Minute
	}
	if l.PerCaller <= 0 {
		l.PerCaller = 50
	}
	if l.Max <= 0 {
		l.Max = 2000
	}
}

// retryAfter is what a refusal asks the caller to wait: a session frees up when
// one of the caller's ends (its client ends it, or it idles out), which the server
// cannot foresee, so the wait is a minute or the idle timeout when shorter.
func (l SessionLimits) retryAfter() int {
	return int((min(l.Idle, time.Minute) + time.Second - 1) / time.Second)
}

// Handler serves the MCP server over streamable HTTP with bounded sessions. A
// request's `Authorization: Bearer sk_…` is the key its tools use; a session
// without one is provisioned an account on its first tool call, counted under the
// address of the caller that opened the session.
type Handler struct {
	sdk    *mcp.StreamableHTTPHandler
	f      *folio
	lim    SessionLimits
	caller func(*http.Request) string

	mu       sync.Mutex
	open     int            // sessions held or being opened
	byCaller map[string]int // the same, per caller address; no zero entries
	ended    int            // sessions ended since memory was last handed back
}

// HTTPHandler builds the streamable HTTP endpoint. o.CallerAddress names a
// request's caller (nil: the TCP peer's address).
func HTTPHandler(o Options) *Handler {
	lim := o.Sessions
	lim.defaults()
	caller := o.CallerAddress
	if caller == nil {
		caller = peerAddress
	}
	s, f := newServer(o, sessionIDs(lim.Node))
	s.AddReceivingMiddleware(noteSession)
	return &Handler{
		sdk:      mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{SessionTimeout: lim.Idle}),
		f:        f,
		lim:      lim,
		caller:   caller,
		byCaller: map[string]int{},
	}
}

// Serve serves one request of the endpoint. A request that would open a session
// past a bound is refused before anything is written: the returned *fault.Error
// (429 RATE_LIMITED past the caller's bound, 503 SERVICE_UNAVAILABLE past the
// node's), with Retry-After already set on w.
//
// Invariant: h.open and h.byCaller count every session from the moment its
// opening request is admitted until the SDK has closed it (its client ended it,
// it idled out, or its initialize failed), and nothing else.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		h.sdk.ServeHTTP(w, r) // a request of an existing session (or one the SDK refuses)
		return nil
	}
	caller := h.caller(r)
	if err := h.reserve(caller); err != nil {
		w.Header().Set("Retry-After", fmt.Sprint(h.lim.retryAfter()))
		return err
	}
	slot := &sessionSlot{caller: caller}
	defer func() { // also when the SDK panics: the place is given back
		if slot.session.Load() == nil { // no session came of it (not an initialize, or a refused one)
			h.release(caller, false)
		}
	}()
	// The SDK handles every request of the session with the values of this
	// request's context: the slot is how the session's handlers know its caller.
	h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), slotKey{}, slot)))
	ss := slot.session.Load()
	if ss == nil {
		return nil
	}
	go func() {
		_ = ss.Wait() // returns once the SDK closed the session
		h.f.forget(ss.ID())
		h.release(caller, true)
	}()
	return nil
}

// reserve counts a session about to open for caller, or refuses it.
func (h *Handler) reserve(caller string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	idle := h.lim.Idle.String()
	if n := h.byCaller[caller]; n >= h.lim.PerCaller {
		return fault.New(fault.RateLimited, fmt.Sprintf("too many MCP sessions open from your address: %d allowed at once. "+
			"End sessions you no longer use (DELETE /mcp with their Mcp-Session-Id) or reuse one; a session also ends after %s without a request. Retry in %d s",
			h.lim.PerCaller, idle, h.lim.retryAfter()),
			map[string]any{"limit": "mcp_sessions", "scope": "address", "policy": "mcp_sessions", "max_sessions": h.lim.PerCaller,
				"idle_timeout_seconds": int(h.lim.Idle / time.Second), "retry_after": h.lim.retryAfter()})
	}
	if h.open >= h.lim.Max {
		return fault.New(fault.Unavailable, fmt.Sprintf("this server holds as many MCP sessions as it allows (%d); retry in %d s, or reuse a session you already have",
			h.lim.Max, h.lim.retryAfter()),
			map[string]any{"limit": "mcp_sessions", "scope": "server", "max_sessions": h.lim.Max,
				"idle_timeout_seconds": int(h.lim.Idle / time.Second), "retry_after": h.lim.retryAfter()})
	}
	h.open++
	h.byCaller[caller]++
	return nil
}

// release uncounts a session of caller that ended (session) or never came to be.
func (h *Handler) release(caller string, session bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.open--
	if h.byCaller[caller]--; h.byCaller[caller] <= 0 {
		delete(h.byCaller, caller)
	}
	if !session {
		return
	}
	if h.ended++; h.ended >= handBackEvery || (h.open == 0 && h.ended >= handBackWhenNone) {
		h.ended = 0
		handBack()
	}
}

// Open is how many sessions are held (or being opened) now.
func (h *Handler) Open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.open
}

// sessionSlot travels in the context of a session's opening request: the caller
// it was admitted for, and the session the SDK made of it (set by noteSession when
// the initialize arrives).
type sessionSlot struct {
	caller  string
	session atomic.Pointer[mcp.ServerSession]
}

type slotKey struct{}

// callerOf is the caller address of the HTTP session whose handler ctx is, "" for
// a session that has none (stdio, in memory).
func callerOf(ctx context.Context) string {
	if s, ok := ctx.Value(slotKey{}).(*sessionSlot); ok {
		return s.caller
	}
	return ""
}

// noteSession hands the session an initialize arrives on to its slot.
func noteSession(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" {
			if s, ok := ctx.Value(slotKey{}).(*sessionSlot); ok {
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
					s.session.CompareAndSwap(nil, ss)
				}
			}
		}
		return next(ctx, method, req)
	}
}

// CheckNodeName refuses a --node-name a balancer could not match in a session id:
// 1 to 32 letters, digits, - or _ ("" is no name).
func CheckNodeName(name string) error {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("%q holds %q: use 1 to 32 letters, digits, - or _ (e.g. node1)", name, c)
		}
	}
	if len(name) > 32 {
		return fmt.Errorf("%q is %d characters long: use at most 32", name, len(name))
	}
	return nil
}

// sessionIDs makes the ids of a node's sessions: node, a dot and 26 random
// characters (the SDK's own ids are those characters alone).
func sessionIDs(node string) func() string {
	if node == "" {
		return nil // the SDK's
	}
	return func() string { return node + "." + rand.Text() }
}

// peerAddress is the TCP peer's host.
func peerAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
