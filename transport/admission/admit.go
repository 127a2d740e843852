// Package admission holds the rules of what a client may take on either HTTP face
// (transport/httpapi, transport/web) before a request reaches an actor: the
// per-address budgets of writes without a credential (anon.go), the places of
// the streams and long-polls held open (open.go), and the API's request rates per
// workspace, person and address (requests.go). Plain values in (a client
// address, a credential key, a size), a Rate and a fault out: no rule writes a
// header, the face does (status.SetRate, status.SetRetryAfter). The node builds one
// Rules and hands it to both faces, so a review page's form and the API spend one
// budget per address and count one set of open streams.
package admission

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/model/ratelimit"
)

// Limits configure the rules; zero values take the defaults named.
type Limits struct {
	// Enforce turns on the per-address budgets of writes without a credential:
	// AnonCommentsPerHour comments (60) and AnonUploadBytesPerHour bytes presigned
	// (256 MiB) per client address, across every page and tenant of the node.
	Enforce                bool
	AnonCommentsPerHour    int
	AnonUploadBytesPerHour int64
	MaxBuckets             int // buckets each budget keeps in memory at most
	// Open bounds the streams and long-polls held open (open.go).
	Open OpenLimits
}

// Rules is one node's admission rules, shared by both faces.
type Rules struct {
	lim  Limits
	anon anonWrites
	open *openConns
}

// New builds the rules; now is the clock of the budgets.
func New(l Limits, now func() time.Time) *Rules {
	if now == nil {
		now = time.Now
	}
	if l.AnonCommentsPerHour <= 0 {
		l.AnonCommentsPerHour = 60
	}
	if l.AnonUploadBytesPerHour <= 0 {
		l.AnonUploadBytesPerHour = 256 << 20
	}
	return &Rules{lim: l, anon: anonWrites{comments: ratelimit.New(now, l.MaxBuckets), uploads: ratelimit.New(now, l.MaxBuckets)},
		open: newOpenConns(l.Open)}
}

// Sweep drops the budgets' idle buckets (the node runs it periodically).
func (ru *Rules) Sweep() {
	ru.anon.comments.Sweep()
	ru.anon.uploads.Sweep()
}

// Collectors report what is held open now, by kind (folio_open_held{kind}).
func (ru *Rules) Collectors() []prometheus.Collector { return ru.open.gauges() }

// CredentialKey names the credential a request is counted against: the API key or
// the session presented, "" for none (anonymous: the budgets of anon.go apply).
func CredentialKey(keyID, sessionID string) string {
	switch {
	case keyID != "":
		return "key:" + keyID
	case sessionID != "":
		return "session:" + sessionID
	}
	return ""
}
