package bench

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The harness's own HTTP client: replies arrive whole and exact, keep-alive
// connections are reused, a server's "Connection: close" is honoured, and a cancelled
// call ends at once without spoiling the connection pool.
func TestLeanClient(t *testing.T) {
	var conns atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(201)
			_, _ = w.Write([]byte(`{"method":"` + r.Method + `","auth":"` + r.Header.Get("Authorization") + `","body":` + string(body) + `}`))
		case "/chunked":
			for i := 0; i < 3; i++ {
				_, _ = w.Write([]byte(strings.Repeat("x", 5000)))
				w.(http.Flusher).Flush()
			}
		case "/close":
			w.Header().Set("Connection", "close")
			w.WriteHeader(409)
		case "/stall":
			<-release
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	defer close(release)
	tg := Remote(srv.URL)
	defer tg.Close()
	if tg.lean == nil {
		t.Fatal("an http:// target does not use the lean client")
	}
	ctx := context.Background()

	for i := 0; i < 50; i++ {
		var raw struct {
			Method string         `json:"method"`
			Auth   string         `json:"auth"`
			Body   map[string]int `json:"body"`
		}
		st, err := tg.Call(ctx, "POST", "/echo", "k_1", []byte(`{"n":`+strconv.Itoa(i)+`}`), &raw)
		if err != nil || st != 201 || raw.Method != "POST" || raw.Auth != "Bearer k_1" || raw.Body["n"] != i {
			t.Fatalf("call %d: status %d err %v reply %+v", i, st, err, raw)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("50 sequential calls opened %d connections, want 1 (keep-alive)", n)
	}

	st, raw, err := tg.lean.do(ctx, "GET", "/chunked", "", nil)
	if err != nil || st != 200 || len(raw) != 15000 {
		t.Fatalf("chunked reply: status %d, %d bytes, err %v", st, len(raw), err)
	}

	if st, err := tg.Call(ctx, "POST", "/close", "", nil, nil); err != nil || st != 409 {
		t.Fatalf("Connection: close reply: status %d err %v", st, err)
	}
	before := conns.Load()
	if st, err := tg.Call(ctx, "GET", "/echo", "", nil, nil); err != nil || st != 201 {
		t.Fatalf("call after a closed connection: status %d err %v", st, err)
	}
	if conns.Load() != before+1 {
		t.Fatal("the connection the server closed was reused")
	}

	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if _, err := tg.Call(cctx, "GET", "/stall", "", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: err %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("cancelled call returned after %v", took)
	}

	// A context that expires mid-call ends it the same way, and is already done when
	// the call returns (the harness counts only errors of calls whose context is live).
	dctx, dcancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer dcancel()
	if _, err := tg.Call(dctx, "GET", "/stall", "", nil, nil); !errors.Is(err, context.DeadlineExceeded) || dctx.Err() == nil {
		t.Fatalf("expired call: err %v, context err %v; want both DeadlineExceeded", err, dctx.Err())
	}

	// Concurrent calls each get a connection of their own and all succeed.
	var wg sync.WaitGroup
	var failed atomic.Int64
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if st, err := tg.Call(ctx, "POST", "/echo", "", []byte(`{}`), nil); err != nil || st != 201 {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d concurrent calls failed", failed.Load())
	}
}
