package registry

import "time"

// Every calls fn every interval until stop closes; fn never runs after Every
// returns. It runs the node's background sweeps (retention, orphan blobs, workflow
// re-drives) beside the actors.
func Every(every time.Duration, stop <-chan struct{}, fn func()) {
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
