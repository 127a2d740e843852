package page

import (
	"fmt"

	"folio/actors/model/fault"
	"folio/persistence"
)

// "Changed since you last looked" (issue 32 item 4): the content version a
// signed-in person last saw of a page is kept per page and person, so their next
// visit, from any browser, marks the blocks changed since (Page.ChangedSince). A
// record holds the newest version the person reported seeing (a report never
// lowers it) and when it was written. A page keeps at most Deps.SeenPerPage
// records (default DefaultSeenPerPage); a new person past that bound replaces the
// record written longest ago. People who are not signed in are remembered by
// their browser only (the review page's script keeps the version in localStorage).

const bucketSeen = "page_seen" // pageId 0x00 person -> U64 version, U64 written (unix nanos)

// DefaultSeenPerPage is how many people's last seen versions a page keeps.
const DefaultSeenPerPage = 1000

// MarkSeen records that the signed-in viewer saw the page at content version
// Version. It answers *SeenResult.
type MarkSeen struct {
	Viewer
	Version int
}

// SeenResult answers MarkSeen: the version now on record for the person.
type SeenResult struct{ Version int }

func (m *MarkSeen) public()          {}
func (m *MarkSeen) run(a *Actor) any { return a.markSeen(m) }

func (d *Deps) seenPerPage() int {
	if d.SeenPerPage <= 0 {
		return DefaultSeenPerPage
	}
	return d.SeenPerPage
}

func (a *Actor) markSeen(m *MarkSeen) any {
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	if m.Person == "" {
		return fault.New(fault.Unauthorized, "only a signed-in person's last seen version is kept; sign in, or let the browser remember it",
			map[string]any{"field": "session", "constraint": "required"})
	}
	if m.Version < 1 || m.Version > a.page.Version {
		return fault.New(fault.Invalid, fmt.Sprintf("version %d is not a version of this page; its current version is %d", m.Version, a.page.Version),
			map[string]any{"field": "version", "constraint": "range", "minimum": 1, "maximum": a.page.Version})
	}
	key := persistence.Key([]byte(a.id), []byte(m.Person))
	now := uint64(a.deps.Now().UnixNano())
	version := m.Version
	err := a.deps.Store.Update(func(tx *persistence.Tx) error {
		old := tx.Get(bucketSeen, key)
		if old != nil {
			version = max(version, int(persistence.ReadU64(old)))
		} else if err := a.forgetOldestSeen(tx, a.deps.seenPerPage()-1); err != nil {
			return err
		}
		return tx.Put(bucketSeen, key, append(persistence.U64(uint64(version)), persistence.U64(now)...))
	})
	if err != nil {
		return fmt.Errorf("page: seen version of %s: %w", a.id, err)
	}
	return &SeenResult{Version: version}
}

// forgetOldestSeen removes the records written longest ago until at most keep
// remain. It runs only when a person is recorded for the first time, so a page's
// records are scanned at most once per new person.
func (a *Actor) forgetOldestSeen(tx *persistence.Tx, keep int) error {
	type rec struct {
		key []byte
		at  uint64
	}
	var all []rec
	tx.Scan(bucketSeen, append([]byte(a.id), 0), false, func(k, v []byte) bool {
		var at uint64
		if len(v) >= 16 {
			at = persistence.ReadU64(v[8:])
		}
		all = append(all, rec{append([]byte(nil), k...), at})
		return true
	})
	for len(all) > keep {
		oldest := 0
		for i, r := range all {
			if r.at < all[oldest].at {
				oldest = i
			}
		}
		if err := tx.Delete(bucketSeen, all[oldest].key); err != nil {
			return err
		}
		all = append(all[:oldest], all[oldest+1:]...)
	}
	return nil
}

// seenBy is the version the person last saw of the page (0: none on record).
func (a *Actor) seenBy(person string) int {
	if person == "" {
		return 0
	}
	var v []byte
	if err := a.deps.Store.View(func(tx *persistence.Tx) error {
		v = tx.Get(bucketSeen, persistence.Key([]byte(a.id), []byte(person)))
		return nil
	}); err != nil {
		return 0 // the marks are a help: without the record the browser's own stands
	}
	return int(persistence.ReadU64(v))
}
