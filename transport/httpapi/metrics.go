package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics counts requests and their latency by route pattern, method and status.
type httpMetrics struct {
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "folio_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "folio_http_request_duration_seconds", Help: "HTTP request latency by route, method and status.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method", "status"}),
	}
	m.rateLimited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_rate_limited_total", Help: "Requests refused with 429, by limit (requests_per_minute, pages_per_month).",
	}, []string{"limit"})
	reg.MustRegister(m.requests, m.latency, m.rateLimited)
	return m
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Flush lets streaming handlers flush through the recorder.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// observe wraps a route's handler with its metrics, labelled by the route pattern.
func (m *httpMetrics) observe(method, route string, h httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		h(rec, r, ps)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		code := strconv.Itoa(status)
		m.requests.WithLabelValues(route, method, code).Inc()
		m.latency.WithLabelValues(route, method, code).Observe(time.Since(start).Seconds())
	}
}
