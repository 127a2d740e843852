package httpapi

import (
	_ "embed"
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// openapiDoc is the OpenAPI 3.1 description of every route. The test suite checks
// real responses against it, so it cannot silently drift from the code.
//
//go:embed openapi.json
var openapiDoc []byte

// OpenAPI returns the document (for tests and tools).
func OpenAPI() []byte { return openapiDoc }

func (s *Server) openapi(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) error {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openapiDoc)
	return nil
}
