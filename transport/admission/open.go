package admission

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/model/fault"
	"folio/actors/model/ratelimit"
)

// OpenLimits bound what clients hold open: event streams (SSE and WebSocket: the
// page, comment, agent and member streams, and a person's own stream on the
// pages) and long-polls (GET /v1/pages/:id/wait). Each holds a socket, and so a
// file descriptor, for as long as the client likes; zero fields are unbounded.
type OpenLimits struct {
	// Per client address and per credential (an API key, a session), each kind
	// counted apart: past one, 429 RATE_LIMITED.
	StreamsPerAddress, StreamsPerCredential int
	WaitsPerAddress, WaitsPerCredential     int
	// Max bounds streams and long-polls together on this node: past it, 503
	// SERVICE_UNAVAILABLE. The node derives it from the process's descriptor limit
	// with headroom kept, so /healthz and the API still answer when it is reached.
	Max int
	// RetryAfter is what a refusal asks the client to wait (10 s).
	RetryAfter time.Duration
}

// HoldStream takes one of the event streams' places for a client address and its
// credential (CredentialKey; "" for none), or refuses with the fault to answer
// (429 for the client's own cap, 503 for the node's; retry_after says the seconds
// for the face's Retry-After). release gives the place back; it may be called any
// number of times.
func (ru *Rules) HoldStream(addr, cred string) (release func(), err error) {
	return ru.open.hold(&ru.open.streams, addr, cred)
}

// HoldWait takes one of the long-polls' places; as HoldStream.
func (ru *Rules) HoldWait(addr, cred string) (release func(), err error) {
	return ru.open.hold(&ru.open.waits, addr, cred)
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
// none), or refuses.
func (o *openConns) hold(k *openKind, addr, cred string) (release func(), err error) {
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
		return nil, o.refusal(k, scope, limit)
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
// close one of its own), 503 when the node as a whole holds all it may; either
// way retry_after is the seconds to wait.
func (o *openConns) refusal(k *openKind, scope string, limit int) error {
	retry := ratelimit.CeilSeconds(o.retry)
	details := map[string]any{"limit": "open_" + k.name, "scope": scope, "max_open": limit, "retry_after": retry}
	if scope == "server" {
		return fault.New(fault.Unavailable, fmt.Sprintf("this server holds as many streams and waits as it can (%d); retry in %d s", limit, retry), details)
	}
	whose := map[string]string{"address": "from this address", "credential": "with this credential"}[scope]
	return fault.New(fault.RateLimited, fmt.Sprintf("too many %s open %s: %d allowed at once; close one, or retry in %d s", k.what, whose, limit, retry), details)
}
