// Package httpapi is Folio's REST surface: httprouter routes, authentication, limits
// and errors. Handlers are thin: parse, authenticate, send one message to one actor,
// write the reply. Business rules live in the actors.
package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/persistence"
)

// retryUnavailable is the Retry-After of a 503 that does not know better: a store
// or page that did not answer is usually back within a second or two.
const retryUnavailable = "1"

// statusOf maps the domain's error codes onto HTTP statuses (specification §7).
var statusOf = map[string]int{
	fault.Invalid:      http.StatusBadRequest,
	fault.Unauthorized: http.StatusUnauthorized,
	fault.Forbidden:    http.StatusForbidden,
	fault.NotFound:     http.StatusNotFound,
	fault.Conflict:     http.StatusConflict,
	fault.RateLimited:  http.StatusTooManyRequests,
	fault.TooLarge:     http.StatusRequestEntityTooLarge,
	fault.Internal:     http.StatusInternalServerError,
	fault.Unavailable:  http.StatusServiceUnavailable,
}

type envelope struct {
	Error body `json:"error"`
}

type body struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// writeError writes err in the specification's envelope. Anything that is not a
// *fault.Error is an internal error: logged in full, reported without internals.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var fe *fault.Error
	switch {
	case errors.As(err, &fe):
	case errors.Is(err, registry.ErrTimeout): // transient: the node or its store is slow or was paused
		fe = fault.New(fault.Unavailable, "the page did not answer in time; try again", nil)
	case errors.Is(err, persistence.ErrUnavailable): // transient: the store did not answer; the record may exist
		s.log.Warn("store unavailable", slog.String("path", r.URL.Path), slog.Any("err", err))
		fe = fault.StoreDown()
	default:
		s.log.Error("request failed", slog.String("path", r.URL.Path), slog.Any("err", err))
		fe = fault.New(fault.Internal, "internal error", nil)
	}
	status, ok := statusOf[fe.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	details := fe.Details
	if details == nil {
		details = map[string]any{}
	}
	// Every 503 says when to try again (a refusal that knows better set it already).
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", retryUnavailable)
	}
	if fe.Code == fault.RateLimited && s.metrics != nil {
		limit, _ := details["limit"].(string)
		s.metrics.rateLimited.WithLabelValues(limit).Inc()
	}
	writeJSON(w, status, envelope{Error: body{Code: fe.Code, Message: fe.Message, Details: details}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
