package web_test

import (
	"fmt"
	"net/http/httptest"
	"runtime"
	"syscall"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// BenchmarkReviewPageAllBlocks renders the review page of the all-blocks page on
// the server (the node's handler, no network), chrome included: cold, a page whose
// blocks no view has drawn yet (each iteration publishes one with fresh block ids,
// outside the timer), and warm, the same page again (blocks from the cache, the
// countdown drawn each time). Run it alone:
//
//	go test ./transport/web/ -run '^$' -bench ReviewPageAllBlocks -benchtime 200x
func BenchmarkReviewPageAllBlocks(b *testing.B) {
	e := nodetest.New(b)
	key, _ := e.Register("bench")
	h := e.Node.Handler()
	get := func(id string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/p/"+id, nil))
		if rec.Code != 200 {
			b.Fatalf("GET /p/%s = %d", id, rec.Code)
		}
		return rec.Body.Len()
	}
	fresh := func(n int) string {
		blocks := allBlocks(b)
		for j, bl := range blocks {
			bl.(map[string]any)["id"] = fmt.Sprintf("b%d_%d", j, n)
		}
		return publish(b, e, key, approvalPage(map[string]any{"blocks": blocks}))
	}
	b.Run("cold", func(b *testing.B) {
		get(fresh(-1)) // templates parsed, lexers indexed once per process
		n := 0
		b.ReportAllocs()
		// The GET runs on this goroutine, held to one OS thread, so the thread's
		// CPU time is the render's (with its share of GC assists), whatever else
		// the machine runs: cpu-ns/op compares builds on a loaded host.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			id := fresh(n)
			n++
			b.StartTimer()
			t0 := threadCPU(b)
			get(id)
			cpu += threadCPU(b) - t0
		}
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
	b.Run("warm", func(b *testing.B) {
		id := fresh(-2)
		size := get(id)
		b.ReportAllocs()
		for b.Loop() {
			get(id)
		}
		b.ReportMetric(float64(size), "html-bytes")
	})
}

// threadCPU is the CPU time the calling OS thread has used (user and system).
func threadCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
