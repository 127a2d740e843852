package ratelimit

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

// TestLimiterIsExactWithAnInjectedClock: a burst of perMinute, then one request per
// interval; Retry-After and the remaining count are exact.
func TestLimiterIsExactWithAnInjectedClock(t *testing.T) {
	for _, rpm := range []int{60, 600, 7} {
		clk := newFakeClock()
		l := New(clk.now, 0)
		interval := time.Minute / time.Duration(rpm)
		for i := 1; i <= rpm; i++ {
			d := l.Take("t", rpm)
			if !d.Allowed || d.Remaining != rpm-i || d.Limit != rpm {
				t.Fatalf("rpm %d request %d: %+v", rpm, i, d)
			}
		}
		d := l.Take("t", rpm)
		if d.Allowed || d.RetryAfter != interval || d.Remaining != 0 {
			t.Fatalf("rpm %d over the burst: %+v, want RetryAfter %v", rpm, d, interval)
		}
		clk.advance(interval - 1)
		if l.Take("t", rpm).Allowed {
			t.Fatalf("rpm %d: allowed 1 ns before the interval", rpm)
		}
		clk.advance(1)
		if d := l.Take("t", rpm); !d.Allowed || d.Remaining != 0 {
			t.Fatalf("rpm %d: after the interval %+v", rpm, d)
		}
		if d := l.Take("other", rpm); !d.Allowed || d.Remaining != rpm-1 {
			t.Fatalf("rpm %d: another key %+v", rpm, d)
		}
	}
	if d := New(time.Now, 0).Take("x", 0); !d.Allowed || d.Limit != 0 {
		t.Fatalf("unlimited: %+v", d)
	}
}

// TestLimiterMemoryIsBounded: 300,000 distinct clients never hold more than the
// configured number of buckets, and Sweep drops every idle one.
func TestLimiterMemoryIsBounded(t *testing.T) {
	clk := newFakeClock()
	l := New(clk.now, 6400)
	for i := 0; i < 300_000; i++ {
		l.Take(fmt.Sprint("10.", i>>16, ".", (i>>8)&255, ".", i&255), 60)
		if i%50_000 == 0 && l.Len() > 6400 {
			t.Fatalf("after %d clients: %d buckets", i+1, l.Len())
		}
	}
	if n := l.Len(); n > 6400 || n < 6000 {
		t.Fatalf("%d buckets held, want at most 6400 (and the shards filled)", n)
	}
	clk.advance(time.Second)
	l.Sweep()
	if n := l.Len(); n != 0 {
		t.Fatalf("%d buckets after everyone was idle long enough to be full again", n)
	}
}

// TestLimiterEvictionNeverPunishes: evicting to make room only ever forgets a
// bucket, which equals a full one, so an evicted client gets at least its due.
func TestLimiterEvictionNeverPunishes(t *testing.T) {
	clk := newFakeClock()
	l := New(clk.now, limiterShards) // one bucket per shard
	for i := 0; i < 10_000; i++ {
		if !l.Take(fmt.Sprint("k", i), 1).Allowed {
			t.Fatalf("a first request of key %d refused", i)
		}
	}
}

// TestLimiterHasNoGlobalLock exercises many keys from many goroutines (-race).
func TestLimiterHasNoGlobalLock(t *testing.T) {
	l := New(time.Now, 0)
	var wg sync.WaitGroup
	var allowed atomic.Int64
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				if l.Take(fmt.Sprint("k", i%50), 600).Allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	// 50 keys × a burst of 600 (plus what refilled while the test ran).
	if n := allowed.Load(); n < 50*600 || n > 50*600+50*600 {
		t.Fatalf("%d allowed", n)
	}
}

func BenchmarkLimiterTake(b *testing.B) {
	l := New(time.Now, 0)
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = fmt.Sprint("ten_", i)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.Take(keys[i&1023], 1_000_000)
			i++
		}
	})
}

// TestLimiterKeepsOutstandingRequestsAcrossARateChange: a plan change converts the
// bucket: the requests made in the current window still count, at the new rate.
func TestLimiterKeepsOutstandingRequestsAcrossARateChange(t *testing.T) {
	clk := newFakeClock()
	l := New(clk.now, 0)
	for i := 0; i < 30; i++ {
		l.Take("t", 60) // 30 of 60 spent
	}
	if d := l.Take("t", 600); !d.Allowed || d.Remaining != 600-31 {
		t.Fatalf("raised to 600/min: %+v, want 569 remaining", d)
	}
	if d := l.Take("t", 10); d.Allowed || d.RetryAfter != 31*6*time.Second-9*6*time.Second {
		t.Fatalf("lowered to 10/min with 31 outstanding: %+v", d)
	}
}

// TestAMinuteQuotaIsTheSustainedRate pins what docs/behaviour.md says of "60 per
// minute": a client sending as fast as it is let through gets 119 in its first
// minute from a full bucket (the burst, then one a second) and 60 in each later one.
func TestAMinuteQuotaIsTheSustainedRate(t *testing.T) {
	clk := newFakeClock()
	l := New(clk.now, 0)
	perMinute := func() int {
		n := 0
		for end := clk.now().Add(time.Minute); clk.now().Before(end); clk.advance(100 * time.Millisecond) {
			for l.Take("t", 60).Allowed {
				n++
			}
		}
		return n
	}
	if first := perMinute(); first != 119 {
		t.Fatalf("first minute from a full bucket: %d allowed, want 119 (60 at once, then one a second)", first)
	}
	for m := 2; m <= 4; m++ {
		if n := perMinute(); n != 60 {
			t.Fatalf("minute %d: %d allowed, want 60", m, n)
		}
	}
}
