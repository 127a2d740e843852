package ratelimit

import (
	"testing"
	"time"
)

// TestTakeCostSpendsBytesAndRefillsEvenly: a budget of n bytes per hour takes
// requests until their bytes would pass it, refuses the next with the exact wait,
// and gives back n/60 bytes a minute.
func TestTakeCostSpendsBytesAndRefillsEvenly(t *testing.T) {
	const n = 60 << 20 // 1 MiB a minute
	clk := newFakeClock()
	l := New(clk.now, 0)
	for i := range 6 {
		if d := l.TakeCost("a", 10<<20, n, time.Hour); !d.Allowed {
			t.Fatalf("request %d of 10 MiB refused within a 60 MiB budget", i)
		}
	}
	d := l.TakeCost("a", 10<<20, n, time.Hour)
	if d.Allowed || (d.RetryAfter+time.Second-1)/time.Second != 600 || d.Limit != n {
		t.Fatalf("the 7th 10 MiB request: %+v, want refused for 10 minutes (Retry-After 600)", d)
	}
	if d := l.TakeCost("b", 10<<20, n, time.Hour); !d.Allowed {
		t.Fatal("another key shares the budget")
	}
	clk.advance(10 * time.Minute)
	if d := l.TakeCost("a", 10<<20, n, time.Hour); !d.Allowed {
		t.Fatalf("10 MiB refused after 10 minutes refilled them: %+v", d)
	}
	if d := l.TakeCost("a", 1<<10, n, time.Hour); d.Allowed {
		t.Fatal("a KiB allowed from an empty budget")
	}
}
