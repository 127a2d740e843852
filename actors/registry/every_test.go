package registry

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestEveryTicksUntilStopped: fn runs repeatedly, and not once more after Every returns.
func TestEveryTicksUntilStopped(t *testing.T) {
	var n atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { Every(time.Millisecond, stop, func() { n.Add(1) }); close(done) }()
	for n.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	close(stop)
	<-done
	after := n.Load()
	time.Sleep(10 * time.Millisecond)
	if n.Load() != after {
		t.Fatalf("fn ran after Every returned: %d then %d", after, n.Load())
	}
}
