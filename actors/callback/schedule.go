package callback

import (
	"folio/actors/model/webhook"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// defaultSchedule is the specification's retry table: after the first attempt
// fails, retries follow after 1 m, 5 m, 30 m, 2 h and 12 h (six attempts in all).
var defaultSchedule = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour}

const (
	maxDelay      = 24 * time.Hour // no single wait is longer
	retryAfterCap = time.Hour      // a 429/503 Retry-After is honoured up to this
)

// Delays is the waits after each failed attempt: a custom retry gives max_attempts
// attempts in all, the n-th retry after initial_delay_seconds * 2^(n-1)
// (exponential, the default), * n (linear) or * 1 (fixed), each capped at 24 h;
// without one, def (the default schedule) applies.
func Delays(r *webhook.Retry, def []time.Duration) []time.Duration {
	if r == nil {
		return append([]time.Duration(nil), def...)
	}
	attempts := len(def) + 1
	if r.MaxAttempts != nil {
		attempts = *r.MaxAttempts
	}
	initial := 60.0
	if r.InitialDelaySeconds != nil {
		initial = *r.InitialDelaySeconds
	}
	out := make([]time.Duration, 0, max(attempts-1, 0))
	for n := 1; n < attempts; n++ {
		f := 1.0
		switch r.Backoff {
		case "linear":
			f = float64(n)
		case "fixed":
		default:
			f = math.Pow(2, float64(n-1))
		}
		secs := initial * f
		d := maxDelay
		if secs < maxDelay.Seconds() {
			d = time.Duration(secs * float64(time.Second))
		}
		out = append(out, d)
	}
	return out
}

func millis(ds []time.Duration) []int64 {
	out := make([]int64, len(ds))
	for i, d := range ds {
		out[i] = d.Milliseconds()
	}
	return out
}

// retryAfter reads a Retry-After header (seconds or an HTTP date), capped.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		d = time.Duration(min(n, int64(retryAfterCap/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = max(t.Sub(now), 0)
	} else {
		return 0, false
	}
	return min(d, retryAfterCap), true
}
