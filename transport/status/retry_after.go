package status

import (
	"net/http"
	"strconv"
)

// SetRetryAfter tells the client when to try again, on either face, unless a
// refusal that knows better already did: a 429 or 503 whose fault carries
// retry_after (seconds: a rate, a month's quota, the streams held open) says that,
// and every other 503 says RetryAfter.
func SetRetryAfter(h http.Header, err error) {
	if err == nil || h.Get("Retry-After") != "" {
		return
	}
	fe, code, _ := Of(err)
	if code != http.StatusServiceUnavailable && code != http.StatusTooManyRequests {
		return
	}
	if s, ok := fe.Details["retry_after"].(int); ok && s > 0 {
		h.Set("Retry-After", strconv.Itoa(s))
	} else if code == http.StatusServiceUnavailable {
		h.Set("Retry-After", RetryAfter)
	}
}
