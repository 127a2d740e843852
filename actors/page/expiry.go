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
		due, err := DueForExpiry(d.Store, now, 1000)
		if err != nil && d.Log != nil { // the next tick asks again
			d.Log.Warn("expiry: the store did not answer", "err", err)
		}
		for _, id := range due {
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
