package persistence

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// commitFrom runs b.N calls of op(i), i from 0 to b.N-1, from clients goroutines
// at once, each taking the next i as it finishes one, and returns each call's
// latency by i and the wall time of them all. An error fails the benchmark.
func commitFrom(b *testing.B, clients int, op func(i int) error) ([]time.Duration, time.Duration) {
	b.Helper()
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < b.N; i = int(next.Add(1) - 1) {
				t0 := time.Now()
				if err := op(i); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	return lat, time.Since(start)
}
