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
	"folio/persistence"
	"folio/transport/status"
)

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
	fe, code, internal := status.Of(err)
	switch {
	case internal:
		s.log.Error("request failed", slog.String("path", r.URL.Path), slog.Any("err", err))
	case errors.Is(err, persistence.ErrUnavailable):
		s.log.Warn("store unavailable", slog.String("path", r.URL.Path), slog.Any("err", err))
	}
	details := fe.Details
	if details == nil {
		details = map[string]any{}
	}
	status.SetRetryAfter(w.Header(), err)
	if fe.Code == fault.RateLimited && s.metrics != nil {
		limit, _ := details["limit"].(string)
		s.metrics.rateLimited.WithLabelValues(limit).Inc()
	}
	writeJSON(w, code, envelope{Error: body{Code: fe.Code, Message: fe.Message, Details: details}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
