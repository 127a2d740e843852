package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/model/fault"
	"folio/actors/model/ratelimit"
)

// OpenLimits bound what clients hold open: event streams (SSE and WebSocket: the
// page, comment, agent and member streams) and long-polls (GET
// /v1/pages/:id/wait). Each holds a socket, and so a file descriptor, for as long
// as the client likes; zero fields are unbounded.
type OpenLimits struct {
	// Per client address (ClientAddress) and per credential (an API key, a
	// session), each kind counted apart: past one, 429 RATE_LIMITED.
	StreamsPerAddress, StreamsPerCredential int
	WaitsPerAddress, WaitsPerCredential     int
	// Max bounds streams and long-polls together on this node: past it, 503
	// SERVICE_UNAVAILABLE. The node derives it from the process's descriptor limit
	// with headroom kept, so /healthz and the API still answer when it is reached.
	Max int
	// RetryAfter is what a refusal asks the client to wait (10 s).
	RetryAfter time.Duration
}

// openKind is what a client holds open.
type openKind struct {
	name                string // "streams", "waits": the refusal's details.limit is "open_"+name
	what                string // in the message a person reads
	perAddress, perCred int
	open                int // held now, all clients
	address, credential map[string]int
}

// openConns counts the streams and long-polls held open, by kind, client address
// and credential, and in all. Invariant: every count is the number of holds taken
// and not yet released (release runs once per hold), and a key whose count drops
// to zero is deleted, so memory follows what is open now.
type openConns struct {
	mu      sync.Mutex
	max     int
	total   int
	retry   time.Duration
	streams openKind
	waits   openKind
}

func newOpenConns(l OpenLimits) *openConns {
	if l.RetryAfter <= 0 {
		l.RetryAfter = 10 * time.Second
	}
	return &openConns{max: l.Max, retry: l.RetryAfter,
		streams: openKind{name: "streams", what: "event streams", perAddress: l.StreamsPerAddress, perCred: l.StreamsPerCredential,
			address: map[string]int{}, credential: map[string]int{}},
		waits: openKind{name: "waits", what: "waits for a decision", perAddress: l.WaitsPerAddress, perCred: l.WaitsPerCredential,
			address: map[string]int{}, credential: map[string]int{}},
	}
}

// hold takes one of kind's places for a client address and its credential ("" for
// none), or refuses: the error is the envelope's fault and Retry-After is set on
// w. release gives the place back; it may be called any number of times.
func (o *openConns) hold(w http.ResponseWriter, k *openKind, addr, cred string) (release func(), err error) {
	o.mu.Lock()
	var scope string
	var limit int
	switch {
	case o.max > 0 && o.total >= o.max:
		scope, limit = "server", o.max
	case k.perAddress > 0 && k.address[addr] >= k.perAddress:
		scope, limit = "address", k.perAddress
	case cred != "" && k.perCred > 0 && k.credential[cred] >= k.perCred:
		scope, limit = "credential", k.perCred
	}
	if scope != "" {
		o.mu.Unlock()
		return nil, o.refusal(w, k, scope, limit)
	}
	o.total++
	k.open++
	k.address[addr]++
	if cred != "" {
		k.credential[cred]++
	}
	o.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.total--
			k.open--
			decr(k.address, addr)
			if cred != "" {
				decr(k.credential, cred)
			}
		})
	}, nil
}

// gauges report what is held open now, by kind (folio_open_held{kind}).
func (o *openConns) gauges() []prometheus.Collector {
	var out []prometheus.Collector
	for _, k := range []*openKind{&o.streams, &o.waits} {
		out = append(out, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "folio_open_held",
			Help: "Event streams and waits for a decision held open now, by kind (streams, waits).", ConstLabels: prometheus.Labels{"kind": k.name}},
			func() float64 {
				o.mu.Lock()
				defer o.mu.Unlock()
				return float64(k.open)
			}))
	}
	return out
}

func decr(m map[string]int, key string) {
	if m[key] <= 1 {
		delete(m, key)
		return
	}
	m[key]--
}

// refusal is the error for a full place: 429 for one client's own cap (it can
// close one of its own), 503 when the node as a whole holds all it may.
func (o *openConns) refusal(w http.ResponseWriter, k *openKind, scope string, limit int) error {
	retry := ratelimit.CeilSeconds(o.retry)
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	details := map[string]any{"limit": "open_" + k.name, "scope": scope, "max_open": limit, "retry_after": retry}
	if scope == "server" {
		return fault.New(fault.Unavailable, fmt.Sprintf("this server holds as many streams and waits as it can (%d); retry in %d s", limit, retry), details)
	}
	whose := map[string]string{"address": "from this address", "credential": "with this credential"}[scope]
	return fault.New(fault.RateLimited, fmt.Sprintf("too many %s open %s: %d allowed at once; close one, or retry in %d s", k.what, whose, limit, retry), details)
}

// credentialKey names the credential a hold is counted against: the API key or
// the session presented, "" for none.
func credentialKey(keyID, sessionID string) string {
	switch {
	case keyID != "":
		return "key:" + keyID
	case sessionID != "":
		return "session:" + sessionID
	}
	return ""
}

// holdStream takes a stream's place (OpenLimits) for r's client and credential.
func (s *Server) holdStream(w http.ResponseWriter, r *http.Request, keyID, sessionID string) (release func(), err error) {
	return s.open.hold(w, &s.open.streams, s.ClientAddress(r), credentialKey(keyID, sessionID))
}

// holdWait takes a long-poll's place (OpenLimits) for r's client and credential.
func (s *Server) holdWait(w http.ResponseWriter, r *http.Request, keyID string) (release func(), err error) {
	return s.open.hold(w, &s.open.waits, s.ClientAddress(r), credentialKey(keyID, ""))
}

// HoldPersonStream takes the place of a signed-in person's own stream (transport/web
// GET /decide/stream) among the open streams of r's client and of the session,
// under the same bounds as every event stream; release gives it back once (and
// stops watching the session). A refusal is err (429/503, Retry-After already set
// on w), for the caller to answer. ended is called when the session ends (sign-out).
func (s *Server) HoldPersonStream(w http.ResponseWriter, r *http.Request, sessionID string, ended func()) (release func(), err error) {
	give, err := s.holdStream(w, r, "", sessionID)
	if err != nil {
		return nil, err
	}
	cancel := func() {}
	if s.people != nil {
		cancel = s.people.OnEnd(sessionID, ended)
	}
	var once sync.Once
	return func() { once.Do(func() { cancel(); give() }) }, nil
}
