package node

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// actorMeters exposes protoactor's own OpenTelemetry metrics on our registry, so
// GET /metrics shows them beside folio_* series. protoactor reads the global meter
// provider, so the newest node in a process owns it (one node per process in
// production; tests that start several only lose protoactor series on older ones).
func actorMeters(reg prometheus.Registerer) (metric.MeterProvider, error) {
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	otel.SetMeterProvider(mp)
	return mp, nil
}

// nodeMetrics are the node-level series (actors and storage).
type nodeMetrics struct {
	restarts    prometheus.Counter
	alive       prometheus.Gauge
	spawned     prometheus.Counter
	passivated  prometheus.Counter
	commitSecs  prometheus.Histogram
	commitBatch prometheus.Histogram
	commits     prometheus.Counter
	retries     *prometheus.CounterVec
}

func newNodeMetrics(reg prometheus.Registerer) *nodeMetrics {
	m := &nodeMetrics{
		restarts:   prometheus.NewCounter(prometheus.CounterOpts{Name: "folio_actor_restarts_total", Help: "Actors restarted by their supervisor after a panic."}),
		alive:      prometheus.NewGauge(prometheus.GaugeOpts{Name: "folio_actors_alive", Help: "Entity actors (pages, tenants, mailboxes) currently in memory."}),
		spawned:    prometheus.NewCounter(prometheus.CounterOpts{Name: "folio_actors_spawned_total", Help: "Entity actors spawned."}),
		passivated: prometheus.NewCounter(prometheus.CounterOpts{Name: "folio_actors_passivated_total", Help: "Entity actors stopped after being idle or evicted as least recently used (--max-live-pages)."}),
		commitSecs: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "folio_bbolt_commit_duration_seconds", Help: "Duration of one group commit (including fsync).",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .25, .5, 1}}),
		commitBatch: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "folio_bbolt_commit_batch_size", Help: "Writes packed into one group commit.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256}}),
		commits: prometheus.NewCounter(prometheus.CounterOpts{Name: "folio_store_commits_total", Help: "Store transactions committed (each holds up to 256 writes; bbolt commits a group in one, PostgreSQL in one more per busy retry)."}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "folio_store_retries_total",
			Help: "Re-runs after losing a race on PostgreSQL, by reason: deadlock (40P01: the group transaction run again whole), unique (23505: two nodes created one key at once; the one function run again), busy (a write after the first of its group waited for a row another node held: the group committed the writes before it and runs it first in the next transaction) or serialization (40001, not expected at read committed). As a share of folio_store_commits_total it is what two nodes' overlapping writes cost."}, []string{"reason"}),
	}
	// Both reasons exist from the start, at zero, so a rate over them is defined
	// before the first conflict.
	m.retries.WithLabelValues("serialization")
	m.retries.WithLabelValues("deadlock")
	m.retries.WithLabelValues("unique")
	m.retries.WithLabelValues("busy")
	reg.MustRegister(m.restarts, m.alive, m.spawned, m.passivated, m.commitSecs, m.commitBatch, m.commits, m.retries)
	return m
}

func (m *nodeMetrics) spawnedOne()    { m.spawned.Inc(); m.alive.Inc() }
func (m *nodeMetrics) passivatedOne() { m.passivated.Inc(); m.alive.Dec() }

func (m *nodeMetrics) observeCommit(batch, transactions int, took time.Duration) {
	m.commitSecs.Observe(took.Seconds())
	m.commitBatch.Observe(float64(batch))
	m.commits.Add(float64(transactions)) // a group split on PostgreSQL ("busy") is several
}

func (m *nodeMetrics) retried(reason string) { m.retries.WithLabelValues(reason).Inc() }
