package page

import (
	"time"
)

// Teller delivers a message to the page actor with that id.
type Teller interface {
	Tell(id string, msg any)
}

// RunExpiry watches the durable expiry index (active pages by expiry time) and tells
// each page whose time has come to expire. Because the index lives in bbolt, pages
// that fell due while the server was down expire at the first tick after start; and
// since a page also expires itself before handling any message, nobody sees an
// overdue page as active in between.
func RunExpiry(d *Deps, pages Teller, every time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	told := map[string]time.Time{} // recently told, so a slow page is not flooded
	for {
		now := d.Now()
		for _, id := range DueForExpiry(d.Store, now, 1000) {
			if at, ok := told[id]; ok && now.Sub(at) < 5*time.Second {
				continue
			}
			told[id] = now
			pages.Tell(id, &Expire{})
		}
		for id, at := range told {
			if now.Sub(at) >= 5*time.Second {
				delete(told, id)
			}
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}
