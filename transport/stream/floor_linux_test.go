package stream

import (
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkAnswerFloor is the floor under issue 33's "CPU per answer of a parked
// wait against CPU per delivery to an SSE viewer": what the kernel and the write
// path cost for each, with nothing of Folio around them, measured as the CPU of the
// one OS thread that writes (RUSAGE_THREAD; on loopback the receiver's TCP work is
// done inside the sender's system call, as it is for the server in the bench).
//
//   - delivery: one SSE frame of an action.executed event (536 bytes, as an HTTP/1.1
//     chunk) written with WriteNow to a stream that stays open;
//   - answer, keep-alive: the same decision as a wait's whole response (609 bytes,
//     as Folio writes it) written with WriteNow, the connection kept;
//   - answer, close: that response, then the connection closed, as for the bench's
//     clients (Connection: close).
//
// The ratios of these floors bound from below what any server can reach: a wait's
// answer cannot cost less than its response and, for a client that asked for it,
// its close.
func BenchmarkAnswerFloor(b *testing.B) {
	event := `{"id":"3","type":"action.executed","pageId":"pg_0VcDFOjPNPyJX44CA4dWUd1t","timestamp":"2026-11-27T21:48:35.171Z","data":{"action_id":"approve","actor":{"identity":"ops@example.com","auth_method":"link"},"decision":"approve","final":true,"page_version":1,"content_hash":"sha256:2f1d6c0f8b1e4c7a9d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708","form_values":{}}}`
	frame := []byte("id: 3\nevent: action.executed\ndata: " + event + "\n\n")
	frame = append([]byte(fmt.Sprintf("%x\r\n", len(frame))), append(frame, "\r\n"...)...)
	body := strings.Repeat("x", 609-187) // the wait's JSON outcome, sized as measured
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\n" +
		"Date: Fri, 27 Nov 2026 21:48:35 GMT\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\nConnection: close\r\n\r\n" + body)

	b.Run("delivery to an open SSE stream", func(b *testing.B) {
		pairs := loopbackPairs(b, 64)
		cpu := threadCPU(b, func(i int) {
			if n, err := WriteNow(pairs[i%len(pairs)].server, frame); err != nil || n != len(frame) {
				b.Fatalf("write: %d %v", n, err)
			}
		})
		b.ReportMetric(cpu, "cpu-ns/op")
	})
	b.Run("wait answer, connection kept", func(b *testing.B) {
		pairs := loopbackPairs(b, 64)
		cpu := threadCPU(b, func(i int) {
			if n, err := WriteNow(pairs[i%len(pairs)].server, answer); err != nil || n != len(answer) {
				b.Fatalf("write: %d %v", n, err)
			}
		})
		b.ReportMetric(cpu, "cpu-ns/op")
	})
	b.Run("wait answer, connection closed", func(b *testing.B) {
		// Connections are opened 256 at a time outside the measure, so the
		// descriptors in use stay bounded whatever b.N is.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var spent int64
		for done := 0; done < b.N; {
			b.StopTimer()
			pairs := loopbackPairs(b, min(256, b.N-done))
			b.StartTimer()
			t0 := threadNanos(b)
			for _, p := range pairs {
				if n, err := WriteNow(p.server, answer); err != nil || n != len(answer) {
					b.Fatalf("write: %d %v", n, err)
				}
				_ = p.server.Close()
			}
			spent += threadNanos(b) - t0
			done += len(pairs)
			b.StopTimer()
			closePairs(pairs)
			b.StartTimer()
		}
		b.ReportMetric(float64(spent)/float64(b.N), "cpu-ns/op")
	})
}

// loopbackPair is one TCP connection over loopback: the server's end and the
// client's, whose reader drains it until it closes.
type loopbackPair struct{ server, client net.Conn }

// loopbackPairs opens n connections whose client ends are drained by goroutines of
// their own (so no socket buffer fills), all closed when the benchmark ends
// (closing a pair twice is harmless).
func loopbackPairs(b *testing.B, n int) []loopbackPair {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	pairs := make([]loopbackPair, n)
	for i := range pairs {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		pairs[i] = loopbackPair{server: s, client: c}
		go func() { _, _ = io.Copy(io.Discard, c) }()
	}
	b.Cleanup(func() { closePairs(pairs) })
	return pairs
}

// closePairs closes both ends of every pair.
func closePairs(pairs []loopbackPair) {
	for _, p := range pairs {
		_ = p.server.Close()
		_ = p.client.Close()
	}
}

// threadCPU runs op b.N times on one locked OS thread, with the timer running, and
// returns the CPU (user and system) that thread spent per op, in nanoseconds.
func threadCPU(b *testing.B, op func(i int)) float64 {
	b.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	t0 := threadNanos(b)
	for i := 0; i < b.N; i++ {
		op(i)
	}
	spent := threadNanos(b) - t0
	b.StopTimer()
	return float64(spent) / float64(b.N)
}

// threadNanos is the CPU (user and system) the calling OS thread has used.
func threadNanos(b *testing.B) int64 {
	var r unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &r); err != nil {
		b.Fatal(err)
	}
	return r.Utime.Nano() + r.Stime.Nano()
}
