// Package bench is Folio's load harness: scenarios that drive a real server over
// HTTP, SSE and WebSocket, measure throughput and latency, and check correctness
// (one winner per action, every event exactly once, every callback delivered).
package bench

import (
	"sort"
	"sync"
	"time"
)

// Recorder collects latencies and outcomes from many goroutines.
type Recorder struct {
	mu     sync.Mutex
	lat    []time.Duration
	errors map[string]int
	ok     int
}

// NewRecorder makes an empty recorder.
func NewRecorder() *Recorder { return &Recorder{errors: map[string]int{}} }

// OK records one successful operation.
func (r *Recorder) OK(d time.Duration) {
	r.mu.Lock()
	r.lat = append(r.lat, d)
	r.ok++
	r.mu.Unlock()
}

// Fail records one failed operation under a short code (HTTP status or error kind).
func (r *Recorder) Fail(code string) {
	r.mu.Lock()
	r.errors[code]++
	r.mu.Unlock()
}

// Count is the number of successful operations so far.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ok
}

// Latency summarises a set of durations in milliseconds.
type Latency struct {
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// Summary returns the successes, their latency percentiles and the errors by code.
func (r *Recorder) Summary() (int, Latency, map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	errs := map[string]int{}
	for k, v := range r.errors {
		errs[k] = v
	}
	return r.ok, Percentiles(r.lat), errs
}

// Percentiles of ds (which it sorts).
func Percentiles(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	at := func(q float64) float64 {
		i := int(q * float64(len(ds)-1))
		return float64(ds[i].Microseconds()) / 1000
	}
	return Latency{P50: at(.50), P90: at(.90), P99: at(.99), Max: float64(ds[len(ds)-1].Microseconds()) / 1000}
}
