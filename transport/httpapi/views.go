package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// viewerHash identifies a viewer for unique counts without storing who it is: a
// salted HMAC of the page, the client address (ClientAddress: behind a trusted
// proxy, the client's) and the user agent.
func (rt *realtime) viewerHash(pageID string, r *http.Request) string {
	m := hmac.New(sha256.New, rt.d.ViewSalt)
	for _, part := range []string{pageID, rt.ClientAddress(r), r.UserAgent()} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// countView is POST /internal/pages/:id/view: the viewer page calls it on load; no
// credential is needed (the page's access policy applies). The body is ignored.
func (rt *realtime) countView(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var ignored struct{}
	v, err := rt.viewerWithBody(w, r, &ignored, true)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.ViewResult](r.Context(), rt.pages, id, &page.View{Viewer: v, Hash: rt.viewerHash(id, r), UserAgent: r.UserAgent()})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"pageId": id, "viewCount": res.ViewCount, "uniqueViewers": res.UniqueViewers})
	return nil
}

// analytics is GET /v1/pages/:id/analytics (specification §2.5).
func (rt *realtime) analytics(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.AnalyticsResult](r.Context(), rt.pages, id, &page.Analytics{Caller: callerOf(who)})
	if err != nil {
		return err
	}
	p := res.Page
	writeJSON(w, http.StatusOK, map[string]any{
		"pageId": p.ID, "totalViews": res.TotalViews, "uniqueViewers": res.UniqueViewers, "dailyViews": res.Daily,
		"createdAt": p.CreatedAt, "status": page.EffectiveStatus(p, rt.now()),
	})
	return nil
}
