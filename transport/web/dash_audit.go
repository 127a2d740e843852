package web

import (
	"encoding/base64"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/auditlog"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// The audit screen: the workspace's latest signed checkpoint (docs/audit.md) and
// the key that verifies it, and the download of the whole export as JSON Lines,
// for the workspace's owner only. Both read the workspace of the session's own
// membership (desk): another workspace's log is not found.

// mountAudit registers the dashboard's audit screen and its download.
func (s *Site) mountAudit(r Router) {
	r.Handle("GET", "/audit", s.serve(s.auditScreen))
	r.Handle("GET", "/audit/export", s.serve(s.auditExport))
}

// auditView is the audit screen.
type auditView struct {
	dashShell
	Signs      bool // the server signs checkpoints
	Size       int64
	Root       string // base64, as in the note
	SignedAt   time.Time
	Note       string // the checkpoint as signed
	Key        string // the verifier key to pin
	ExportHref string
	ExportName string
}

// exportPage bounds the entries of one read transaction of the download.
const exportPage = 1000

// ownerDesk admits the workspace's owner; anyone else has been answered (403).
func (s *Site) ownerDesk(w http.ResponseWriter, r *http.Request) (*desk, bool) {
	d, ok := s.desk(w, r)
	if !ok {
		return nil, false
	}
	list, err := registry.Call[[]tenant.Member](r.Context(), s.c.Tenants, d.ws.ID, &tenant.ListMembers{})
	if err != nil {
		s.failed(w, r, err)
		return nil, false
	}
	for _, m := range list {
		if d.cred.Session != nil && m.UserID == d.cred.Session.UserID && m.Role == "owner" {
			return d, true
		}
	}
	http.Error(w, "Only the workspace's owner sees its audit log: ask them for the export.", http.StatusForbidden)
	return nil, false
}

// auditScreen is GET /audit.
func (s *Site) auditScreen(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.ownerDesk(w, r)
	if !ok {
		return nil
	}
	v := auditView{dashShell: s.dashShell(d, "audit", "Audit log"), ExportHref: d.link("/audit/export", nil),
		ExportName: exportName(d.ws.ID, s.c.Now())}
	if l := s.c.Audit; l != nil {
		cp, err := l.Latest(d.ws.ID)
		if err != nil {
			return err
		}
		v.Signs, v.Size, v.Root, v.SignedAt, v.Note, v.Key = true, cp.Size, base64.StdEncoding.EncodeToString(cp.Root[:]),
			cp.SignedAt, string(cp.Note), l.VerifierKey()
	}
	s.render(w, r, http.StatusOK, "dash-audit", v)
	return nil
}

// auditExport is GET /audit/export: the workspace's whole audit log as JSON
// Lines (auditlog.ExportLine, what GET /v1/audit/export pages through), read a
// bounded page per read transaction and written as it is read.
func (s *Site) auditExport(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.ownerDesk(w, r)
	if !ok {
		return nil
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="`+exportName(d.ws.ID, s.c.Now())+`"`)
	w.Header().Set("Cache-Control", "no-store")
	for after := int64(0); ; {
		page, err := auditlog.ReadPage(s.c.Store, d.ws.ID, after, exportPage)
		if err != nil {
			if after == 0 {
				return err
			}
			return nil // a later page: the download ends short, and verify says so
		}
		if _, err := page.WriteTo(w); err != nil || len(page) < exportPage || r.Context().Err() != nil {
			return nil
		}
		after = page.Last(after)
	}
}

// exportName is the download's file name: the workspace and the day.
func exportName(ws string, now time.Time) string {
	return "folio-audit-" + ws + "-" + now.UTC().Format("2006-01-02") + ".jsonl"
}
