package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

func TestPercentForPutsTheGoalAtTheMinimumHeapOrTheMinimumPercentage(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name          string
		live, minHeap uint64
		minPercent    int
		want          int
	}{
		{"a small live heap may grow to the minimum heap", 32 * mib, 384 * mib, 600, 1100},
		{"a live heap past minHeap/(1+minPercent) keeps minPercent", 64 * mib, 384 * mib, 600, 600},
		{"a live heap larger than the minimum heap keeps minPercent", 500 * mib, 384 * mib, 600, 600},
		{"a tiny live heap is capped where the runtime's own minimum reaches minHeap", 1, 384 * mib, 600, 9600},
		{"an unknown live heap is capped too", 0, 384 * mib, 600, 9600},
		{"no minimum heap leaves minPercent", 32 * mib, 0, 600, 600},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := percentFor(c.live, c.minHeap, c.minPercent); got != c.want {
				t.Fatalf("percentFor(%d, %d, %d) = %d, want %d", c.live, c.minHeap, c.minPercent, got, c.want)
			}
		})
	}
}

// churn allocates total bytes of short-lived 64 KiB buffers while keeping about
// 1 MiB live, and reports how many collections ran meanwhile and the largest heap
// (live or garbage) it saw.
func churn(total int) (cycles uint64, peak uint64) {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	var keep [16][]byte
	for i := 0; i*(64<<10) < total; i++ {
		keep[i%len(keep)] = make([]byte, 64<<10)
		if i%64 == 0 {
			metrics.Read(s)
			peak = max(peak, s[1].Value.Uint64())
		}
	}
	runtime.KeepAlive(keep)
	metrics.Read(s)
	return s[0].Value.Uint64() - before, peak
}

func TestPacerLetsTheHeapReachTheMinimumBeforeCollecting(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	const minHeap, total = 64 << 20, 512 << 20

	baseline, _ := churn(total) // GOGC=100 over a ~1 MiB live heap: a collection every few MiB

	runtime.GC()
	p, stop := startGCPacer(minHeap, 100)
	paced, peak := churn(total)
	stop()

	t.Logf("%d MiB allocated: %d collections at GOGC=100, %d with a %d MiB minimum heap (GOGC %d, peak heap %d MiB)",
		total>>20, baseline, paced, minHeap>>20, p.percent.Load(), peak>>20)
	if paced < total/minHeap/2 {
		t.Errorf("the pacer let the heap grow past its minimum: %d collections for %d MiB, want about %d", paced, total>>20, total/minHeap)
	}
	if paced > 2*total/minHeap {
		t.Errorf("the pacer collected %d times for %d MiB, want about %d", paced, total>>20, total/minHeap)
	}
	if baseline < 4*paced {
		t.Errorf("GOGC=100 alone collected %d times, the pacer %d: it should save most of them", baseline, paced)
	}
	if peak > 2*minHeap {
		t.Errorf("the heap reached %d MiB with a %d MiB minimum", peak>>20, minHeap>>20)
	}
}

func TestStoppedPacerLeavesTheMinimumPercentage(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	_, stop := startGCPacer(256<<20, 150)
	if got := debug.SetGCPercent(150); got <= 150 {
		t.Fatalf("a running pacer over a small heap set GOGC %d, want more than the minimum 150", got)
	}
	stop()
	// A different live heap, and collections that would each run the pending
	// adjustment had stop not disarmed it: a running pacer would change GOGC.
	live := make([]byte, 32<<20)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	runtime.KeepAlive(live)
	if got := debug.SetGCPercent(100); got != 150 {
		t.Fatalf("after stop GOGC is %d, want the minimum 150", got)
	}
}

func TestServeSetsGOGCFromItsFlags(t *testing.T) {
	for _, c := range []struct {
		name  string
		flags []string
		check func(percent float64) bool
		want  string
	}{
		{"by default a fresh node may grow its heap to 384 MiB", nil,
			func(p float64) bool { return p >= 1000 }, "well over 600 (a goal of 384 MiB over a live heap of a few MiB)"},
		{"--gc-min-heap-mib 0 leaves --gc-percent alone", []string{"--gc-min-heap-mib", "0"},
			func(p float64) bool { return p == 600 }, "600"},
		{"--gc-percent sets it then", []string{"--gc-min-heap-mib", "0", "--gc-percent", "300"},
			func(p float64) bool { return p == 300 }, "300"},
		{"a small minimum heap over --gc-percent keeps the percentage", []string{"--gc-min-heap-mib", "1", "--gc-percent", "300"},
			func(p float64) bool { return p == 300 }, "300"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, t.TempDir(), freeAddr(t), c.flags...)
			if got := nodetest.Metric(t, p.base, "go_gc_gogc_percent"); !c.check(got) {
				t.Fatalf("go_gc_gogc_percent = %v, want %s", got, c.want)
			}
		})
	}
}
