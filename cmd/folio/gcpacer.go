package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcPacer lets the heap grow to minHeap bytes between collections however small the
// live heap is, and never to less than minPercent over it (the GOGC it would
// otherwise run at).
//
// Why: under load a node allocates hundreds of megabytes a second (bbolt
// materialises a node for every page a commit touches) while its live heap is tens
// of megabytes, so with a fixed GOGC the collector marks several times a second,
// and the requests that arrive during a mark make the latency tail (bench/README.md,
// Performance). The number of collections is allocation ÷ (goal − live): a goal of
// at least minHeap makes it proportional to the memory the operator allows rather
// than to the live heap. When the live heap is large the goal is minPercent over it,
// exactly as with GOGC alone, so the pacer never collects more often than before.
//
// The invariant: after every collection GOGC is percentFor(live heap), so the heap
// goal is max(minHeap, live × (1 + minPercent/100)).
type gcPacer struct {
	minHeap    uint64
	minPercent int
	percent    atomic.Int64 // the GOGC set after the last collection
	stopped    atomic.Bool
	samples    []metrics.Sample
}

// runtimeMinHeap is the runtime's smallest heap goal at GOGC=100; it scales with
// GOGC, so a percentage above minHeap/runtimeMinHeap×100 would put the goal past
// minHeap however small the live heap is.
const runtimeMinHeap = 4 << 20

// percentFor is the GOGC that puts the heap goal at minHeap (or just under it) for
// a live heap of live bytes, and at no less than minPercent.
func percentFor(live, minHeap uint64, minPercent int) int {
	live = max(live, 1)
	p := uint64(max(minPercent, 0))
	if minHeap > live {
		q := (minHeap - live) * 100 / live
		q = min(q, minHeap*100/runtimeMinHeap)
		p = max(p, q)
	}
	return int(p)
}

// startGCPacer sets GOGC for the current live heap and again after every
// collection, until stop is called.
func startGCPacer(minHeap uint64, minPercent int) (p *gcPacer, stop func()) {
	p = &gcPacer{minHeap: minHeap, minPercent: minPercent,
		samples: []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}}
	p.adjust()
	p.arm()
	return p, func() {
		p.stopped.Store(true)
		debug.SetGCPercent(minPercent)
	}
}

// arm attaches the next adjustment to an object only the collector will find
// unreachable: its cleanup runs after the next collection.
func (p *gcPacer) arm() {
	sentinel := new([64]byte) // not a tiny allocation, so it is freed on its own
	runtime.AddCleanup(sentinel, func(p *gcPacer) {
		if p.stopped.Load() {
			return
		}
		p.adjust()
		p.arm()
	}, p)
}

// adjust sets GOGC from the live heap the last collection found. Before the first
// collection there is no such figure, and the whole heap (live or not) stands in
// for it: an overestimate, which only sets a lower percentage.
func (p *gcPacer) adjust() {
	metrics.Read(p.samples)
	var live uint64
	for _, s := range p.samples {
		if s.Value.Kind() == metrics.KindUint64 && s.Value.Uint64() > 0 {
			live = s.Value.Uint64()
			break
		}
	}
	want := percentFor(live, p.minHeap, p.minPercent)
	// SetGCPercent recomputes the goal under the heap lock; skip it when the
	// percentage barely moved.
	if cur := p.percent.Load(); cur != 0 && abs(int64(want)-cur)*20 < cur {
		return
	}
	p.percent.Store(int64(want))
	debug.SetGCPercent(want)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
