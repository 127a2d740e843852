package node

import (
	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/page"
	"folio/persistence"
)

// eventCounter is a page outlet that counts committed events by type
// (folio_events_published_total); it writes nothing.
type eventCounter struct{ c *prometheus.CounterVec }

func newEventCounter(reg prometheus.Registerer) eventCounter {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "folio_events_published_total",
		Help: "Page events committed, by type."}, []string{"type"})
	reg.MustRegister(c)
	return eventCounter{c: c}
}

func (e eventCounter) Stage(*persistence.Tx, *page.Page, []page.Event) error { return nil }

func (e eventCounter) Committed(_ *page.Page, events []page.Event) {
	for _, ev := range events {
		e.c.WithLabelValues(ev.Type).Inc()
	}
}
