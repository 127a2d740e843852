package bench

import "time"

// Options parameterise a run; every scenario reads the fields it needs.
type Options struct {
	Concurrency  int           // parallel clients
	Duration     time.Duration // how long a timed scenario runs
	Count        int           // operations, pages or events (0: use Duration)
	Rate         float64       // events per second (fanout, agent-stream)
	Subscribers  int           // fanout viewers
	PayloadBytes int           // extra text per published page
	Tenants      int           // publishing tenants (publish): 1 is one hot tenant
	Transport    string        // "sse" or "ws"
	Racers       int           // parallel executions per page (act)
	// Affinity sends what the documented balancer (docs/nginx/folio.conf) sends to
	// one node to one node: all of a page's executions (act), page p's to node p mod
	// N (it hashes the page id), and all of a tenant's publishes (publish), tenant
	// t's to node t mod N (it hashes the credential of a request about no page).
	// Without it a page's racers meet on different nodes, and publish i goes to
	// node i mod N.
	Affinity    bool
	Repeat      int    // runs of each scenario; the report gives their medians (default 1)
	PostgresURL string // raw-pg: the database to write to (empty: start a PostgreSQL)
	// BrokenReceiver makes the callbacks receiver verify with a wrong secret, so its
	// check must fail (used by the harness's own test).
	BrokenReceiver bool
	Progress       func(line string)
}

func (o *Options) defaults() {
	if o.Concurrency <= 0 {
		o.Concurrency = 64
	}
	if o.Duration <= 0 && o.Count <= 0 {
		o.Duration = 10 * time.Second
	}
	if o.Rate <= 0 {
		o.Rate = 5
	}
	if o.Subscribers <= 0 {
		o.Subscribers = 1000
	}
	if o.Transport == "" {
		o.Transport = "sse"
	}
	if o.Racers <= 0 {
		o.Racers = 8
	}
	if o.Repeat <= 0 {
		o.Repeat = 1
	}
	if o.Tenants <= 0 {
		o.Tenants = 1
	}
}
