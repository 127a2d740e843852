package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// nodeMetrics are the node-level series (actors and storage).
type nodeMetrics struct {
	restarts    prometheus.Counter
	spawned     prometheus.Counter
	passivated  prometheus.Counter
	commitSecs  prometheus.Histogram
	commitBatch prometheus.Histogram
}

func newNodeMetrics(reg prometheus.Registerer) *nodeMetrics {
	m := &nodeMetrics{
		restarts:   prometheus.NewCounter(prometheus.CounterOpts{Name: "folio_actor_restarts_total", Help: "Actors restarted by their supervisor after a panic."}),
		spawned:    prometheus.NewCounter(prometheus.CounterOpts{Name: "folio_actors_spawned_total", Help: "Entity actors spawned."}),
		passivated: prometheus.NewCounter(prometheus.CounterOpts{Name: "folio_actors_passivated_total", Help: "Entity actors stopped after being idle."}),
		commitSecs: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "folio_bbolt_commit_duration_seconds", Help: "Duration of one group commit (including fsync).",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .25, .5, 1}}),
		commitBatch: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "folio_bbolt_commit_batch_size", Help: "Writes packed into one group commit.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256}}),
	}
	reg.MustRegister(m.restarts, m.spawned, m.passivated, m.commitSecs, m.commitBatch)
	return m
}

func (m *nodeMetrics) observeCommit(batch int, took time.Duration) {
	m.commitSecs.Observe(took.Seconds())
	m.commitBatch.Observe(float64(batch))
}
