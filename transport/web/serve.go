package web

import (
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// handler serves one route for people. It either writes the whole page and
// returns nil, or returns the error before writing anything, and serve draws it.
// A refusal it can explain in its own page (a form shown again with the problem)
// is drawn by the handler; only what it cannot comes back.
type handler func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error

// serve is the one place where a handler's error becomes the error page (failed:
// the status the API gives the same fault).
func (s *Site) serve(h handler) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		if err := h(w, r, ps); err != nil {
			s.failed(w, r, err)
		}
	}
}
