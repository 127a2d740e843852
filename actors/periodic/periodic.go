// Package periodic runs background sweeps (retention, orphan blobs, workflow
// re-drives) on a ticker until the node stops.
package periodic

import "time"

// Run calls fn every interval until stop closes; fn never runs after Run returns.
func Run(every time.Duration, stop <-chan struct{}, fn func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			fn()
		}
	}
}
