package page

import (
	"fmt"
	"time"
	"unicode/utf8"

	"folio/actors/model/fault"
	"folio/persistence"
)

// Views (specification §4.9): each view raises the page's total (stats.view_count,
// last_viewed_at) and the count of its UTC date; a viewer (a salted hash of client
// address + user agent computed by the transport, never the address itself) counts
// once toward unique viewers. page.viewed (for the owning agent and its callbacks,
// never the public streams) is emitted for a viewer's first view and then at most
// once per viewEventEvery. Views are not audited.

const (
	bucketDailyViews = "page_views"   // pageId 0x00 YYYY-MM-DD -> count (U64)
	bucketViewers    = "page_viewers" // pageId 0x00 viewerHash -> last page.viewed (unix nanos, U64)
)

// viewEventEvery is the least time between two page.viewed events of one viewer.
const viewEventEvery = 30 * time.Minute

// View counts one view. Hash identifies the viewer (salted; at most 64 bytes).
type View struct {
	Viewer
	Hash      string
	UserAgent string
}

// ViewResult answers View.
type ViewResult struct {
	ViewCount     int
	UniqueViewers int
}

// Analytics reads the page's view analytics (the owner's key).
type Analytics struct{ Caller }

// AnalyticsResult answers Analytics.
type AnalyticsResult struct {
	Page          *Page
	TotalViews    int
	UniqueViewers int
	Daily         map[string]int
}

func (m *View) public()               {}
func (m *View) run(a *Actor) any      { return a.view(m) }
func (m *Analytics) run(a *Actor) any { return a.analytics() }

func (a *Actor) view(m *View) any {
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	if m.Hash == "" || len(m.Hash) > 64 {
		return fault.Field("viewer", "required", "a viewer hash is required")
	}
	ua := m.UserAgent
	if len(ua) > 512 {
		ua = ua[:512]
		for !utf8.ValidString(ua) {
			ua = ua[:len(ua)-1]
		}
	}
	now := a.deps.Now().UTC()
	day := persistence.Key([]byte(a.id), []byte(now.Format("2006-01-02")))
	viewerKey := persistence.Key([]byte(a.id), []byte(m.Hash))
	var dayCount uint64
	var lastEvent []byte
	if err := a.deps.Store.View(func(tx *persistence.Tx) error {
		dayCount = persistence.ReadU64(tx.Get(bucketDailyViews, day))
		lastEvent = tx.Get(bucketViewers, viewerKey)
		return nil
	}); err != nil {
		return fmt.Errorf("page: views of %s: %w", a.id, err) // not counted: the count would restart at 0
	}
	next := a.page.clone()
	next.Stats.ViewCount++
	next.Stats.LastViewedAt = &now
	if lastEvent == nil {
		next.UniqueViewers++
	}
	var events []Event
	emit := lastEvent == nil || now.Sub(time.Unix(0, int64(persistence.ReadU64(lastEvent)))) >= viewEventEvery
	if emit {
		ev := a.event(now, PageViewed{ViewCount: next.Stats.ViewCount, UserAgent: ua})
		ev.Actor = &Person{Identity: "anonymous", AuthMethod: AuthNone}
		if m.Agent != "" {
			ev.Actor = &Person{Identity: m.Agent, AuthMethod: AuthAPIKey}
		}
		events = append(events, ev)
	}
	extra := func(tx *persistence.Tx) error {
		if err := tx.Put(bucketDailyViews, day, persistence.U64(dayCount+1)); err != nil {
			return err
		}
		if emit {
			return tx.Put(bucketViewers, viewerKey, persistence.U64(uint64(now.UnixNano())))
		}
		return nil
	}
	if err := a.applyWith(next, nil, events, extra); err != nil {
		return err
	}
	return &ViewResult{ViewCount: next.Stats.ViewCount, UniqueViewers: next.UniqueViewers}
}

func (a *Actor) analytics() any {
	daily := map[string]int{}
	if err := a.deps.Store.View(func(tx *persistence.Tx) error {
		prefix := append([]byte(a.id), 0)
		tx.Scan(bucketDailyViews, prefix, false, func(k, v []byte) bool {
			daily[string(k[len(prefix):])] = int(persistence.ReadU64(v))
			return true
		})
		return nil
	}); err != nil {
		return fmt.Errorf("page: analytics of %s: %w", a.id, err)
	}
	return &AnalyticsResult{Page: a.page, TotalViews: a.page.Stats.ViewCount, UniqueViewers: a.page.UniqueViewers, Daily: daily}
}
