package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
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

// viewCounted is the page's view counters after this view (POST /internal/pages/:id/view).
type viewCounted struct {
	PageID        string `json:"pageId"`
	ViewCount     int    `json:"viewCount"`
	UniqueViewers int    `json:"uniqueViewers"`
}

// seenMarked is the content version kept as seen by the person (POST
// /internal/pages/:id/seen).
type seenMarked struct {
	PageID  string `json:"pageId"`
	Version int    `json:"version"`
}

// pageAnalytics is a page's views (GET /v1/pages/:id/analytics); DailyViews is
// keyed by UTC day (YYYY-MM-DD).
type pageAnalytics struct {
	PageID        string         `json:"pageId"`
	TotalViews    int            `json:"totalViews"`
	UniqueViewers int            `json:"uniqueViewers"`
	DailyViews    map[string]int `json:"dailyViews"`
	CreatedAt     time.Time      `json:"createdAt"`
	Status        string         `json:"status"`
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
	writeJSON(w, http.StatusOK, viewCounted{PageID: id, ViewCount: res.ViewCount, UniqueViewers: res.UniqueViewers})
	return nil
}

// markSeen is POST /internal/pages/:id/seen: the review page tells which content
// version a signed-in person saw ({"version": n}), kept so their next visit, from
// any browser, marks what changed since (actors/page/seen.go). Anyone else is 401:
// their browser remembers it.
func (rt *realtime) markSeen(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var body struct {
		Version *int `json:"version"`
	}
	v, err := rt.viewerWithBody(w, r, &body, false)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	if body.Version == nil {
		return fault.Field("version", "required", "version is required: the content version the person saw (the page's data-version)")
	}
	res, err := registry.Call[*page.SeenResult](r.Context(), rt.pages, id, &page.MarkSeen{Viewer: v, Version: *body.Version})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, seenMarked{PageID: id, Version: res.Version})
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
	writeJSON(w, http.StatusOK, pageAnalytics{PageID: p.ID, TotalViews: res.TotalViews, UniqueViewers: res.UniqueViewers,
		DailyViews: res.Daily, CreatedAt: p.CreatedAt, Status: page.EffectiveStatus(p, rt.now())})
	return nil
}
