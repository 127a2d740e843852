package status

import (
	"net/http"
	"strconv"
)

// SetRetryAfter tells the client when to try again, on either face, unless a
// refusal that knows better already did: a 429 whose fault carries retry_after
// (seconds: a rate, a month's quota) says that, and every 503 says RetryAfter.
func SetRetryAfter(h http.Header, err error) {
	if err == nil || h.Get("Retry-After") != "" {
		return
	}
	fe, code, _ := Of(err)
	switch code {
	case http.StatusServiceUnavailable:
		h.Set("Retry-After", RetryAfter)
	case http.StatusTooManyRequests:
		if s, ok := fe.Details["retry_after"].(int); ok && s > 0 {
			h.Set("Retry-After", strconv.Itoa(s))
		}
	}
}
