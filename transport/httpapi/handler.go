package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/tenant"
)

// handler serves one route of the API. It either writes the whole reply and returns
// nil, or returns the error before writing a status (headers it set, such as
// Retry-After, stay), and serve writes the error envelope (errors.go). A handler that
// has begun its own response (a stream, a file, a redirect, 204) returns nil from
// then on: its status is already sent.
type handler func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error

// authed is a handler that runs only for a valid API key (requireKey).
type authed func(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error

// serve is the one place where a handler's error becomes a response.
func (s *Server) serve(h handler) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		if err := h(w, r, ps); err != nil {
			s.writeError(w, r, err)
		}
	}
}
