package httpapi

import (
	"net/http"
	"strconv"

	"folio/actors/auditlog"
	"folio/actors/model/fault"
	"folio/actors/tenant"

	"github.com/julienschmidt/httprouter"
)

// Audit proofs for auditors (docs/guide.md, "Proof for auditors"): the tenant's
// signed checkpoint, the key that verifies it, inclusion and consistency proofs,
// and the export the offline verifier reads. The tenant is always the API key's.

// Export pages: at most maxExportLimit entries per request, each page read in one
// read transaction.
const (
	defExportLimit = 1000
	maxExportLimit = 10000
)

func (s *Server) auditLog() (*auditlog.Log, error) {
	if s.audit == nil {
		return nil, fault.New(fault.Unavailable, "this server signs no audit checkpoints", nil)
	}
	return s.audit, nil
}

// auditCheckpoint is GET /v1/audit/checkpoint: the latest signed checkpoint of
// the tenant's committed tree, as signed.
func (s *Server) auditCheckpoint(w http.ResponseWriter, _ *http.Request, _ httprouter.Params, who tenant.Principal) error {
	l, err := s.auditLog()
	if err != nil {
		return err
	}
	cp, err := l.Latest(who.TenantID)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(cp.Note)
	return nil
}

// auditKey is GET /v1/audit/key: the verifier key, name+hash+key. It is public:
// an auditor needs no API key to fetch it (and should pin it from elsewhere too).
func (s *Server) auditKey(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) error {
	l, err := s.auditLog()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(l.VerifierKey() + "\n"))
	return nil
}

// auditInclusion is GET /v1/audit/proof/inclusion?entry=N&size=M.
func (s *Server) auditInclusion(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	l, err := s.auditLog()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	entry, err := requiredInt(q.Get("entry"), "entry", "the audit entry's sequence, from 1")
	if err != nil {
		return err
	}
	size, err := intParam(q.Get("size"), "size", 0, 1, maxQueryInt)
	if err != nil {
		return err
	}
	p, err := l.Inclusion(who.TenantID, int64(entry), int64(size))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// auditConsistency is GET /v1/audit/proof/consistency?from=A&to=B.
func (s *Server) auditConsistency(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	l, err := s.auditLog()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	from, err := requiredInt(q.Get("from"), "from", "the older checkpoint's tree size")
	if err != nil {
		return err
	}
	to, err := intParam(q.Get("to"), "to", 0, 1, maxQueryInt)
	if err != nil {
		return err
	}
	p, err := l.Consistency(who.TenantID, int64(from), int64(to))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// auditExport is GET /v1/audit/export?after=&limit=: one page of the tenant's
// entries as JSON Lines (auditlog.ExportLine). The next page starts after the
// last line's sequence; a page shorter than limit is the last.
func (s *Server) auditExport(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	q := r.URL.Query()
	after, err := intParam(q.Get("after"), "after", 0, 0, maxQueryInt)
	if err != nil {
		return err
	}
	limit, err := intParam(q.Get("limit"), "limit", defExportLimit, 1, maxExportLimit)
	if err != nil {
		return err
	}
	page, err := auditlog.ReadPage(s.store, who.TenantID, int64(after), limit)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	_, _ = page.WriteTo(w) // a failed write is the client gone
	return nil
}

// requiredInt reads a required whole-number query parameter of at least 1.
func requiredInt(raw, name, what string) (int, error) {
	if raw == "" {
		return 0, fault.Field(name, "required", "%s is required: %s", name, what)
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, fault.Field(name, "integer", "%s must be a whole number (%s)", name, what)
	}
	return intParam(strconv.Itoa(n), name, 0, 1, maxQueryInt)
}
