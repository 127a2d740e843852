package main

import (
	"testing"

	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/ports"
)

// TestServeSetsTheCollectorFromItsFlags: a server starts with Go's own collector
// settings, and the flags reach the runtime (as Prometheus shows it).
func TestServeSetsTheCollectorFromItsFlags(t *testing.T) {
	const noLimit = float64(1<<63 - 1)
	for _, c := range []struct {
		name              string
		flags             []string
		percent, limitMiB float64
	}{
		{"by default Go's: GOGC 100 and no memory limit", nil, 100, noLimit},
		{"--gc-percent sets GOGC", []string{"--gc-percent", "300"}, 300, noLimit},
		{"--memory-limit-mib sets the soft limit", []string{"--memory-limit-mib", "256"}, 100, 256},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, t.TempDir(), ports.Free(t), c.flags...)
			if got := nodetest.Metric(t, p.base, "go_gc_gogc_percent"); got != c.percent {
				t.Errorf("go_gc_gogc_percent = %v, want %v", got, c.percent)
			}
			want := c.limitMiB
			if want != noLimit {
				want *= 1 << 20
			}
			if got := nodetest.Metric(t, p.base, "go_gc_gomemlimit_bytes"); got != want {
				t.Errorf("go_gc_gomemlimit_bytes = %v, want %v", got, want)
			}
		})
	}
}
